import unittest

from forms import size_error, upload_hint
from uploads import check_upload

MB = 1024 * 1024


class UploadsTest(unittest.TestCase):
    def test_small_file_is_accepted(self):
        check_upload("photo.JPG", 3 * MB)

    def test_limit_is_inclusive(self):
        check_upload("scan.pdf", 25 * MB)

    def test_large_file_is_rejected(self):
        with self.assertRaises(ValueError):
            check_upload("scan.pdf", 25 * MB + 1)

    def test_wrong_type_is_rejected(self):
        with self.assertRaises(ValueError):
            check_upload("notes.txt", 10)


class FormsTest(unittest.TestCase):
    def test_hint(self):
        self.assertEqual(upload_hint(), "JPG, PNG or PDF, up to 25 MB")

    def test_size_error(self):
        self.assertIsNone(size_error(2 * MB))
        self.assertEqual(size_error(30 * MB), "This file is 30.0 MB; the limit is 25 MB.")


if __name__ == "__main__":
    unittest.main()
