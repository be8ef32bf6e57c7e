# A team shares the place of the team above it when their points are equal.
python3 - <<'PY'
path = "leaderboard.py"
src = open(path).read()
src = src.replace('''    return [(i + 1, team, points) for i, (team, points) in enumerate(ordered)]
''', '''    result = []
    for i, (team, points) in enumerate(ordered):
        if i > 0 and points == ordered[i - 1][1]:
            rank = result[-1][0]
        else:
            rank = i + 1
        result.append((rank, team, points))
    return result
''')
open(path, "w").write(src)
PY
