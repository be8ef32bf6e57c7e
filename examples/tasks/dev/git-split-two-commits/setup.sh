# Setup of git-split-two-commits: the user's identity, and two unrelated
# changes left uncommitted: a fix to parse_timeout in fetch.py and a new
# --dry-run option (in fetch.py, further down, and in README.md).
set -euo pipefail
git config user.name "Dev"
git config user.email "dev@localhost"
python3 - <<'PY'
path = "fetch.py"
src = open(path).read()
src = src.replace('''    if text.endswith("m"):
        return int(text[:-1]) * 60
    return int(text)
''', '''    if text.endswith("m"):
        return float(text[:-1]) * 60
    return float(text)
''')
src = src.replace('''    parser.add_argument("--timeout", type=parse_timeout, default=30)
''', '''    parser.add_argument("--timeout", type=parse_timeout, default=30)
    parser.add_argument("--dry-run", action="store_true",
                        help="only print what would be downloaded")
''')
src = src.replace('''        path = target(url, args.out_dir)
''', '''        path = target(url, args.out_dir)
        if args.dry_run:
            print(f"would fetch {url} -> {path}")
            continue
''')
open(path, "w").write(src)
PY
cat >>README.md <<'MD'

`--dry-run` only prints what would be downloaded, and where to.
MD
