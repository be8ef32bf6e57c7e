"""Hidden check of sh-failed-logins: failed_logins.sh prints one `user
count` line per user name with failed SSH password logins (attempts on
unknown users, `for invalid user NAME`, count for NAME), most first and by
name on equal counts, for the task's pristine auth.log and for another log
made here."""

import os
import re
import subprocess
import sys
import tempfile

FAILED = re.compile(r"sshd\[\d+\]: Failed password for (?:invalid user )?(\S+) from ")


def expected(path):
    counts = {}
    with open(path) as f:
        for line in f:
            m = FAILED.search(line)
            if m:
                counts[m.group(1)] = counts.get(m.group(1), 0) + 1
    rows = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return "".join(f"{user} {n}\n" for user, n in rows)


def compare(path, what):
    want = expected(path)
    run = subprocess.run(["bash", "failed_logins.sh", path], capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"failed_logins.sh failed on {what}:\n{run.stderr}")
    if run.stdout != want:
        sys.exit(f"for {what} expected:\n{want}got:\n{run.stdout}")


compare(os.path.join(os.environ["TASK_DIR"], "workspace", "auth.log"), "the task's auth.log")

events = ["user", "zabbix", "guest", "zabbix", "root", "guest", "user", "zabbix",
          "nagios", "root", "guest", "zabbix", "user", "admin1", "admin1", "guest"]
lines = []
for i, user in enumerate(events):
    ts = f"Jun  2 03:{i:02d}:17"
    pid = 800 + 3 * i
    if i % 3 == 0:
        lines.append(f"{ts} db-2 sshd[{pid}]: Failed password for {user} from 192.0.2.{i + 1} port 4{i:04d} ssh2")
    else:
        lines.append(f"{ts} db-2 sshd[{pid}]: Invalid user {user} from 192.0.2.{i + 1} port 4{i:04d}")
        lines.append(f"{ts} db-2 sshd[{pid}]: Failed password for invalid user {user} from 192.0.2.{i + 1} port 4{i:04d} ssh2")
    if i % 5 == 0:
        lines.append(f"{ts} db-2 sshd[{pid + 1}]: Connection closed by 198.51.100.{i} port 5{i:04d} [preauth]")
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "auth.log")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    compare(path, "another auth.log")
