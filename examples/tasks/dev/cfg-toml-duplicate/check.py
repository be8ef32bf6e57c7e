"""Hidden check of cfg-toml-duplicate: pyproject.toml parses and holds every
setting of the broken file."""

import sys
import tomllib

EXPECTED = {
    "build-system": {"requires": ["setuptools>=68"], "build-backend": "setuptools.build_meta"},
    "project": {
        "name": "stockwatch",
        "version": "0.4.1",
        "description": "Alerts when warehouse stock runs low",
        "requires-python": ">=3.10",
        "dependencies": ["requests>=2.31", "click>=8.1"],
        "scripts": {"stockwatch": "stockwatch.cli:main"},
    },
    "tool": {
        "pytest": {
            "ini_options": {
                "testpaths": ["tests"],
                "addopts": "-ra",
                "markers": ["slow: tests that hit the network"],
                "filterwarnings": ["error"],
            }
        },
        "ruff": {"line-length": 100, "target-version": "py310", "lint": {"select": ["E", "F", "I", "B"]}},
    },
}

try:
    with open("pyproject.toml", "rb") as f:
        config = tomllib.load(f)
except tomllib.TOMLDecodeError as e:
    sys.exit(f"pyproject.toml is still invalid: {e}")
if config != EXPECTED:
    sys.exit(f"pyproject.toml has other values: {config!r}")
