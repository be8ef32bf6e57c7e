import unittest

from pages import output_name, page_title


class OutputNameTest(unittest.TestCase):
    def test_markdown(self):
        self.assertEqual(output_name("notes.md"), "notes.html")

    def test_name_ending_in_extension_letters(self):
        self.assertEqual(output_name("command.md"), "command.html")
        self.assertEqual(output_name("docs/read.md"), "docs/read.html")

    def test_other_extension(self):
        self.assertEqual(output_name("guide.txt"), "guide.txt.html")


class TitleTest(unittest.TestCase):
    def test_title(self):
        self.assertEqual(page_title("blog/release-notes.md"), "Release Notes")


if __name__ == "__main__":
    unittest.main()
