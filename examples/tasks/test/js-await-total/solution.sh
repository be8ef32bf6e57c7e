# forEach does not wait for the async callbacks: await each count in a loop.
python3 - <<'PY'
path = "count.js"
src = open(path).read()
src = src.replace("""  files.forEach(async (name) => {
    total += await countLines(path.join(dir, name));
  });
""", """  for (const name of files) {
    total += await countLines(path.join(dir, name));
  }
""")
open(path, "w").write(src)
PY
