"""The inventory service's entry point."""

import json


def load_config(path="config.json"):
    with open(path) as f:
        return json.load(f)


if __name__ == "__main__":
    config = load_config()
    print(f"{config['name']} listening on port {config['port']}")
