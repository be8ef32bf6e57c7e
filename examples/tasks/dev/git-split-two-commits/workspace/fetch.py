"""Download a list of URLs into a folder.

Usage: python3 fetch.py [--timeout SECONDS] URLS_FILE OUT_DIR
"""

import argparse
import os
import urllib.request


def parse_timeout(text):
    """Seconds from a value like `30`, `1.5` or `2m`."""
    if text.endswith("m"):
        return int(text[:-1]) * 60
    return int(text)


def target(url, out_dir):
    """Where the download of `url` is saved."""
    name = url.rstrip("/").rsplit("/", 1)[-1] or "index.html"
    return os.path.join(out_dir, name)


def main():
    parser = argparse.ArgumentParser(description="Download a list of URLs.")
    parser.add_argument("--timeout", type=parse_timeout, default=30)
    parser.add_argument("urls_file")
    parser.add_argument("out_dir")
    args = parser.parse_args()

    os.makedirs(args.out_dir, exist_ok=True)
    with open(args.urls_file) as f:
        urls = [line.strip() for line in f if line.strip()]
    for url in urls:
        path = target(url, args.out_dir)
        with urllib.request.urlopen(url, timeout=args.timeout) as response:
            data = response.read()
        with open(path, "wb") as out:
            out.write(data)
        print(f"{url} -> {path}")


if __name__ == "__main__":
    main()
