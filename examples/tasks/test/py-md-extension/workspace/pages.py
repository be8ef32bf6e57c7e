"""A tiny static site builder: turns Markdown pages into HTML pages."""


def output_name(filename):
    """Return the HTML file name for a source file.

    'notes.md' -> 'notes.html'; a name that does not end in '.md' gets
    '.html' appended: 'guide.txt' -> 'guide.txt.html'.
    """
    return filename.rstrip(".md") + ".html"


def page_title(filename):
    """Return a title for the page: 'release-notes.md' -> 'Release Notes'."""
    base = filename.rsplit("/", 1)[-1]
    if base.endswith(".md"):
        base = base[: -len(".md")]
    return base.replace("-", " ").title()
