python3 - <<'PY'
import csv

scores = {}
with open("grades.csv", newline="") as f:
    for row in csv.DictReader(f):
        if row["score"].strip():
            scores.setdefault(row["student"], []).append(int(row["score"]))
with open("averages.csv", "w") as out:
    out.write("student,average\n")
    for student in sorted(scores):
        out.write(f"{student},{sum(scores[student]) / len(scores[student]):.1f}\n")
PY
