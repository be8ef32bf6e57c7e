# Setup of git-branch-stay: the branch is called main; the user's identity;
# an uncommitted fix in avg.py and a new test for it.
set -euo pipefail
git branch -M main
git config user.name "Dev"
git config user.email "dev@localhost"
python3 - <<'PY'
path = "avg.py"
src = open(path).read()
src = src.replace(
    "def average(numbers):\n    return",
    "def average(numbers):\n    if not numbers:\n        return 0.0\n    return",
)
open(path, "w").write(src)
path = "test_avg.py"
src = open(path).read()
src = src.replace(
    "\n\nif __name__",
    "\n\n    def test_empty_input(self):\n        self.assertEqual(average([]), 0.0)\n\n\nif __name__",
)
open(path, "w").write(src)
PY
grep -q 'def test_empty_input' test_avg.py
