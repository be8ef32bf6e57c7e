"""Hidden check of git-squash-last-two: main ends with one commit, 'Add
--due option to todo add', on top of the untouched 'Add a README'; it holds
the end result of both old commits (recomputed here from the pristine
workspace with edits.py); the working tree is clean."""

import os
import shutil
import subprocess
import sys
import tempfile

TASK_DIR = os.environ["TASK_DIR"]


def git(*args):
    run = subprocess.run(["git", *args], capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"git {' '.join(args)} failed: {run.stderr.strip()}")
    return run.stdout


if git("symbolic-ref", "-q", "HEAD").strip() != "refs/heads/main":
    sys.exit("not on branch main")
count = int(git("rev-list", "--count", "HEAD"))
if count != 3:
    sys.exit(f"expected 3 commits on main (the first, 'Add a README' and the squashed one), found {count}")
message = git("log", "-1", "--format=%B", "HEAD").strip()
if message != "Add --due option to todo add":
    sys.exit(f"the last commit's message is {message!r}, expected only 'Add --due option to todo add'")
if len(git("log", "-1", "--format=%P", "HEAD").split()) != 1:
    sys.exit("the last commit is a merge")
if git("log", "-1", "--format=%s", "HEAD~1").strip() != "Add a README":
    sys.exit("the commit before the squashed one is not 'Add a README'")
if git("diff", "--name-only", "HEAD~2", "HEAD~1").split() != ["README.md"]:
    sys.exit("'Add a README' was changed")

with tempfile.TemporaryDirectory() as tmp:
    ws = os.path.join(tmp, "ws")
    shutil.copytree(os.path.join(TASK_DIR, "workspace"), ws)
    for step in ("readme", "due", "typo"):
        subprocess.run([sys.executable, os.path.join(TASK_DIR, "edits.py"), step], cwd=ws, check=True)
        if step == "readme":
            with open(os.path.join(ws, "README.md")) as f:
                if git("show", "HEAD~1:README.md") != f.read():
                    sys.exit("README.md of 'Add a README' was changed")
    for name in ("README.md", "todo.py"):
        with open(os.path.join(ws, name)) as f:
            want = f.read()
        if git("show", f"HEAD:{name}") != want:
            sys.exit(f"{name} in the squashed commit is not the end result of the two commits")
changed = sorted(git("diff", "--name-only", "HEAD~1", "HEAD").split())
if changed != ["README.md", "todo.py"]:
    sys.exit(f"the squashed commit should change README.md and todo.py, it changes {changed}")
status = [line for line in git("status", "--porcelain", "--untracked-files=all").splitlines()
          if not line.startswith("?? .rebound/")]
if status:
    sys.exit("the working tree is not clean:\n" + "\n".join(status))
