python3 - <<'PY'
import json

per_path = {}
for line in open("requests.jsonl"):
    request = json.loads(line)
    if request["path"] != "/healthz":
        per_path.setdefault(request["path"], []).append(request["ms"])
report = {
    path: {"count": len(times), "avg_ms": round(sum(times) / len(times)), "max_ms": max(times)}
    for path, times in sorted(per_path.items())
}
with open("latency.json", "w") as out:
    json.dump(report, out, indent=2)
    out.write("\n")
PY
