"""Small text helpers used by the report generator."""

import asyncio
import re
import unicodedata

WORD_RE = re.compile(r"[\w']+")
shout = lambda s: s.upper() + "!"


def normalize(text):
    """Strip accents and collapse whitespace."""
    decomposed = unicodedata.normalize("NFKD", text)
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(plain.split())


def slugify(text, sep="-"):
    def clean(word):
        return re.sub(r"[^a-z0-9]", "", word.lower())

    words = [clean(w) for w in WORD_RE.findall(normalize(text))]
    return sep.join(w for w in words if w)


def word_count(text):
    return len(WORD_RE.findall(text))


class Wrapper:
    """Wraps text to a fixed width."""

    def __init__(self, width=72):
        self.width = width

    def wrap(self, text):
        lines, line = [], ""
        for word in text.split():
            if line and len(line) + 1 + len(word) > self.width:
                lines.append(line)
                line = word
            else:
                line = f"{line} {word}" if line else word
        if line:
            lines.append(line)
        return lines

    def fill(self, text):
        return "\n".join(self.wrap(text))


def truncate(text, limit, ellipsis="..."):
    if len(text) <= limit:
        return text
    return text[: max(0, limit - len(ellipsis))] + ellipsis


async def fetch_all(loaders):
    results = await asyncio.gather(*(load() for load in loaders))
    return [r for r in results if r]


def _is_blank(line):
    return not line.strip()


def strip_blank_lines(text):
    return "\n".join(line for line in text.splitlines() if not _is_blank(line))


if __name__ == "__main__":
    import sys

    for arg in sys.argv[1:]:
        print(slugify(arg))
