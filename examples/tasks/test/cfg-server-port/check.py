"""Hidden check of cfg-server-port: in config.yaml only server.port changed,
to 8080; every other line (comments included) is as in the task's pristine
copy."""

import os
import sys

import yaml

with open(os.path.join(os.environ["TASK_DIR"], "workspace", "config.yaml")) as f:
    pristine_text = f.read()
with open("config.yaml") as f:
    text = f.read()

expected = yaml.safe_load(pristine_text)
expected["server"]["port"] = 8080
try:
    config = yaml.safe_load(text)
except yaml.YAMLError as e:
    sys.exit(f"config.yaml does not load: {e}")
if config != expected:
    sys.exit(f"expected values:\n{expected}\ngot:\n{config}")

before, after = pristine_text.splitlines(), text.splitlines()
if len(before) != len(after):
    sys.exit("lines were added or removed")
changed = [(a, b) for a, b in zip(before, after) if a != b]
if len(changed) != 1 or changed[0][1].split() != changed[0][0].replace("8000", "8080").split():
    sys.exit(f"other text changed: {changed}")
