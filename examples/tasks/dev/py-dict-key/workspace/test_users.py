import unittest

from users import active_phones, contact_line, load_users


class UsersTest(unittest.TestCase):
    def setUp(self):
        self.users = load_users()

    def test_contact_line(self):
        self.assertEqual(contact_line(self.users[0]), "Ada Lovelace (555-0101)")

    def test_contact_lines(self):
        lines = [contact_line(user) for user in self.users]
        self.assertEqual(lines[2], "Grace Hopper (555-0103)")

    def test_active_phones(self):
        self.assertEqual(active_phones(self.users), ["555-0101", "555-0103"])


if __name__ == "__main__":
    unittest.main()
