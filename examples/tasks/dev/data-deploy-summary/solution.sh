python3 - <<'PY'
import re

latest = {}
counts = {}
for line in open("deploy.log"):
    m = re.match(r"(\S+) \S+ deploy service=(\S+) version=(\S+) result=success$", line.strip())
    if not m:
        continue
    when, service, version = m.group(1), m.group(2).lower(), m.group(3)
    counts[service] = counts.get(service, 0) + 1
    if service not in latest or when > latest[service][0]:
        latest[service] = (when, version)
with open("deploys.txt", "w") as out:
    for service in sorted(counts):
        out.write(f"{service} {counts[service]} {latest[service][1]}\n")
PY
