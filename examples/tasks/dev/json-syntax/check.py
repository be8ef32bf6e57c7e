"""Hidden check of json-syntax: config.json parses and keeps its settings."""

import json
import sys

EXPECTED = {
    "name": "inventory",
    "port": 8080,
    "debug": False,
    "database": {"path": "data/inventory.db", "pool_size": 4},
    "features": ["search", "export", "reports"],
    "admins": ["ada", "grace"],
}

with open("config.json") as f:
    config = json.load(f)
if config != EXPECTED:
    sys.exit(f"config.json has other values: {config!r}")
