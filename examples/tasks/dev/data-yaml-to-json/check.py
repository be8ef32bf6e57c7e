"""Hidden check of data-yaml-to-json: config/app.json holds the same data as
the task's pristine config/app.yaml."""

import json
import os
import sys

import yaml

with open(os.path.join(os.environ["TASK_DIR"], "workspace", "config", "app.yaml")) as f:
    expected = yaml.safe_load(f)

try:
    with open("config/app.json") as f:
        actual = json.load(f)
except FileNotFoundError:
    sys.exit("config/app.json is missing")
except json.JSONDecodeError as e:
    sys.exit(f"config/app.json is not valid JSON: {e}")
if actual != expected:
    sys.exit(f"expected:\n{json.dumps(expected, indent=2)}\ngot:\n{json.dumps(actual, indent=2)}")
