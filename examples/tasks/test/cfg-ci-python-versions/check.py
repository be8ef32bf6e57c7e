"""Hidden check of cfg-ci-python-versions: in ci.yml every Python version is
a string ("3.10" no longer reads as 3.1), and nothing else changed compared
with the task's pristine copy."""

import copy
import os
import sys

import yaml

PATH = os.path.join(".github", "workflows", "ci.yml")


def load(path):
    with open(path) as f:
        data = yaml.safe_load(f)
    if True in data:  # YAML 1.1 reads the `on` key as a boolean
        data["on"] = data.pop(True)
    return data


pristine = load(os.path.join(os.environ["TASK_DIR"], "workspace", PATH))
expected = copy.deepcopy(pristine)
expected["jobs"]["test"]["strategy"]["matrix"]["python-version"] = ["3.9", "3.10", "3.11", "3.12"]
expected["jobs"]["lint"]["steps"][1]["with"]["python-version"] = "3.12"

try:
    actual = load(PATH)
except (OSError, yaml.YAMLError) as e:
    sys.exit(f"cannot load {PATH}: {e}")
if actual != expected:
    sys.exit(f"expected:\n{expected}\ngot:\n{actual}")
