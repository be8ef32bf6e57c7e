"""Posts: their front matter and where their pages go."""

import datetime

import yaml
from slugify import slugify

# Words left out of the URLs.
STOPWORDS = ["a", "an", "the", "of", "in", "on"]


def read_post(path):
    """The front matter (a dict) and the body of a post file: YAML between
    two `---` lines, then Markdown."""
    with open(path, encoding="utf-8") as f:
        _, front, body = f.read().split("---\n", 2)
    return yaml.safe_load(front), body


def url_path(title, date):
    """Where a post's page goes: /YYYY/MM/<slug of the title>/."""
    slug = slugify(title, stopwords=STOPWORDS, replacements=[["&", "and"]])
    return f"/{date:%Y/%m}/{slug}/"


def tag_id(tag):
    """A tag as used in the tag pages' file names."""
    return slugify(tag, separator="_")


def page_of(path):
    meta, _ = read_post(path)
    date = meta["date"]
    if isinstance(date, str):
        date = datetime.date.fromisoformat(date)
    return url_path(meta["title"], date)
