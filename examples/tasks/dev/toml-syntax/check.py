"""Hidden check of toml-syntax: settings.toml parses and keeps its values."""

import sys
import tomllib

EXPECTED = {
    "name": "mail-relay",
    "version": "1.4.0",
    "server": {"host": "127.0.0.1", "port": 2525, "workers": 4},
    "limits": {"max_message_kb": 10240, "recipients": ["ops", "billing"]},
}

with open("settings.toml", "rb") as f:
    settings = tomllib.load(f)
if settings != EXPECTED:
    sys.exit(f"settings.toml has other values: {settings!r}")
