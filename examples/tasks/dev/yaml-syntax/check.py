"""Hidden check of yaml-syntax: deploy.yml loads and keeps its values."""

import sys

import yaml

EXPECTED = {
    "app": "shop",
    "replicas": 3,
    "env": {"LOG_LEVEL": "info", "FEATURES": "search,export"},
    "steps": [
        {"name": "build", "run": "make build"},
        {"name": "test", "run": "make test"},
        {"name": "deploy", "run": "make deploy", "when": 'branch == "main"'},
    ],
}

with open("deploy.yml") as f:
    config = yaml.safe_load(f)
if config != EXPECTED:
    sys.exit(f"deploy.yml has other values: {config!r}")
