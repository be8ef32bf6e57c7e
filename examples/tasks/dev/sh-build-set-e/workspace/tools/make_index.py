"""Prints an index page linking every page of a directory, by its <title>."""

import html
import pathlib
import re
import sys

pages = sorted(pathlib.Path(sys.argv[1]).glob("*.html"))
items = []
for page in pages:
    match = re.search(r"<title>(.*?)</title>", page.read_text(), re.S)
    if not match:
        sys.exit(f"{page}: no <title>")
    items.append(f'  <li><a href="{page.name}">{html.escape(match.group(1).strip())}</a></li>')
print("<!doctype html>\n<title>Index</title>\n<ul>")
print("\n".join(items))
print("</ul>")
