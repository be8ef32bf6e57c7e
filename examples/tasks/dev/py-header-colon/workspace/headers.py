"""Parsing HTTP-style headers."""


def parse_headers(text):
    """Parse `Name: value` lines into a dict keyed by lowercase name.

    Blank lines are skipped; spaces around names and values are dropped.
    """
    headers = {}
    for line in text.splitlines():
        if not line.strip():
            continue
        name, value = line.split(":")
        headers[name.strip().lower()] = value.strip()
    return headers


def content_type(headers):
    """Return the media type of a Content-Type header, without parameters."""
    value = headers.get("content-type", "")
    return value.split(";")[0].strip()
