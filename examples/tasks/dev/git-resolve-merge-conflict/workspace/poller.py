"""Poll the quote API and print the latest prices."""

import json
import time
import urllib.request

import settings


def fetch(symbol):
    url = f"{settings.API_URL}/quote/{symbol}"
    with urllib.request.urlopen(url, timeout=settings.TIMEOUT_SECONDS) as response:
        return json.load(response)["price"]


def main():
    while True:
        for symbol in settings.SYMBOLS:
            print(symbol, fetch(symbol))
        time.sleep(settings.POLL_EVERY_SECONDS)


if __name__ == "__main__":
    main()
