#!/usr/bin/env python3
"""Write dist/index.html linking every rendered page, by title."""

import html
import pathlib
import re

links = []
for page in sorted(pathlib.Path("dist").glob("*.html")):
    if page.name == "index.html":
        continue
    title = re.search(r"<title>(.*)</title>", page.read_text()).group(1)
    links.append(f'<li><a href="{page.name}">{html.escape(title)}</a></li>')
pathlib.Path("dist/index.html").write_text(
    "<!doctype html>\n<title>Index</title>\n<ul>\n" + "\n".join(links) + "\n</ul>\n"
)
