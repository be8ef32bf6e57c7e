import unittest

from password import is_strong, problems


class PasswordTest(unittest.TestCase):
    def test_letters_and_digits(self):
        self.assertTrue(is_strong("abc12345"))
        self.assertTrue(is_strong("passw0rd"))

    def test_letters_only_is_weak(self):
        self.assertFalse(is_strong("abcdefgh"))

    def test_digits_only_is_weak(self):
        self.assertFalse(is_strong("12345678"))

    def test_too_short(self):
        self.assertFalse(is_strong("a1b2c3"))

    def test_problems(self):
        self.assertEqual(problems("abcdefgh"), ["add a digit"])
        self.assertEqual(problems("abc12345"), [])


if __name__ == "__main__":
    unittest.main()
