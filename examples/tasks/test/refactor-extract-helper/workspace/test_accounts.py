import unittest

import accounts
from accounts import check_login, normalize_email, register


class NormalizeTest(unittest.TestCase):
    def test_normalize(self):
        self.assertEqual(normalize_email("  Ada@Example.COM "), "ada@example.com")

    def test_invalid(self):
        for email in ("ada", "@example.com", "ada@", "a@b@c"):
            with self.assertRaises(ValueError):
                normalize_email(email)


class AccountsTest(unittest.TestCase):
    def setUp(self):
        accounts.clear()

    def test_register_and_login(self):
        self.assertEqual(register(" Ada@Example.com", "s3cret"), "ada@example.com")
        self.assertTrue(check_login("ADA@example.com ", "s3cret"))
        self.assertFalse(check_login("ada@example.com", "wrong"))

    def test_duplicate(self):
        register("ada@example.com", "x")
        with self.assertRaises(ValueError):
            register("ADA@example.com", "y")

    def test_invalid_login(self):
        with self.assertRaises(ValueError):
            check_login("nobody", "x")


if __name__ == "__main__":
    unittest.main()
