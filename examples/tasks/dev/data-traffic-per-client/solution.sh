python3 - <<'PY'
import re
from collections import Counter

line_re = re.compile(r'^(\S+) \S+ \S+ \[[^\]]+\] "[^"]*" (\d{3}) (\d+|-) "[^"]*" "[^"]*"$')
totals = Counter()
with open("access.log") as f:
    for line in f:
        m = line_re.match(line.rstrip("\n"))
        if not m or not m.group(2).startswith("2"):
            continue
        totals[m.group(1)] += 0 if m.group(3) == "-" else int(m.group(3))
with open("traffic.csv", "w") as out:
    out.write("ip,bytes\n")
    for ip, n in sorted(totals.items(), key=lambda kv: (-kv[1], kv[0])):
        out.write(f"{ip},{n}\n")
PY
