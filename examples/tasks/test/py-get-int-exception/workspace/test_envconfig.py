import unittest

from envconfig import get_bool, get_int, load


class GetIntTest(unittest.TestCase):
    def test_set(self):
        self.assertEqual(get_int("WORKERS", 4, {"WORKERS": "8"}), 8)

    def test_missing(self):
        self.assertEqual(get_int("WORKERS", 4, {}), 4)

    def test_not_a_number(self):
        self.assertEqual(get_int("WORKERS", 4, {"WORKERS": "abc"}), 4)
        self.assertEqual(get_int("WORKERS", 4, {"WORKERS": ""}), 4)


class LoadTest(unittest.TestCase):
    def test_load(self):
        env = {"WORKERS": "many", "PORT": "9000", "DEBUG": "yes"}
        self.assertEqual(load(env), {"workers": 4, "port": 9000, "debug": True})

    def test_get_bool(self):
        self.assertFalse(get_bool("DEBUG", True, {"DEBUG": "no"}))
        self.assertTrue(get_bool("DEBUG", True, {}))


if __name__ == "__main__":
    unittest.main()
