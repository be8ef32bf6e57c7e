"""Settings from the environment, with the values of .env as defaults."""

import os
from pathlib import Path


def load_env(path=Path(__file__).parent / ".env"):
    values = {}
    if path.exists():
        for line in path.read_text().splitlines():
            if line.strip() and not line.startswith("#"):
                key, _, value = line.partition("=")
                values[key.strip()] = value.strip()
    values.update({k: v for k, v in os.environ.items() if k in values})
    return values
