import unittest

from paging import page, page_count

ITEMS = ["a", "b", "c", "d", "e"]


class PagingTest(unittest.TestCase):
    def test_first_page(self):
        self.assertEqual(page(ITEMS, 1, 2), ["a", "b"])

    def test_last_page_is_partial(self):
        self.assertEqual(page(ITEMS, 3, 2), ["e"])

    def test_page_past_the_end_is_empty(self):
        self.assertEqual(page(ITEMS, 4, 2), [])

    def test_page_count(self):
        self.assertEqual(page_count(5, 2), 3)
        self.assertEqual(page_count(4, 2), 2)
        self.assertEqual(page_count(0, 2), 0)


if __name__ == "__main__":
    unittest.main()
