import unittest

from progress import percent_done, progress_bar, status_line


class PercentTest(unittest.TestCase):
    def test_partial(self):
        self.assertEqual(percent_done(3, 4), 75.0)
        self.assertEqual(percent_done(1, 3), 33.3)

    def test_complete(self):
        self.assertEqual(percent_done(5, 5), 100.0)

    def test_nothing_to_do(self):
        self.assertEqual(percent_done(0, 0), 0.0)


class BarTest(unittest.TestCase):
    def test_half(self):
        self.assertEqual(progress_bar(1, 2, width=10), "[#####-----]")

    def test_status_line(self):
        self.assertEqual(status_line("copy", 1, 4), "copy [#####---------------] 25.0%")


if __name__ == "__main__":
    unittest.main()
