# Hidden check of sh-validate-exit: validate.sh reports the real counts and
# its exit status tells whether any config is broken.
set -uo pipefail
script="$PWD/validate.sh"
root="$(mktemp -d)"
trap 'rm -rf "$root"' EXIT
fail() { printf '%s\n' "$*"; exit 1; }

# The pristine conf.d: two broken ports out of four files.
cp -a "$TASK_DIR/workspace/conf.d" "$root/conf.d"
out="$(cd "$root" && bash "$script" conf.d)"
status=$?
printf '%s\n' "$out"
[ "$status" -eq 1 ] || fail "conf.d: expected exit status 1, got $status"
[ "$(tail -n 1 <<<"$out")" = "4 files checked, 2 errors" ] || fail "conf.d: wrong summary line"
grep -qx 'ERROR conf.d/web.conf: missing or bad port' <<<"$out" || fail "conf.d: web.conf not reported"
grep -qx 'ERROR conf.d/worker.conf: missing or bad port' <<<"$out" || fail "conf.d: worker.conf not reported"

# Without an argument, in the workspace itself.
bash validate.sh >/dev/null
status=$?
[ "$status" -eq 1 ] || fail "no argument: expected exit status 1, got $status"

# A directory of good configs.
mkdir "$root/good"
printf 'name=a\nport=1\n' >"$root/good/a.conf"
printf 'name=b\nport=2\n' >"$root/good/b.conf"
out="$(cd "$root" && bash "$script" good)"
status=$?
printf '%s\n' "$out"
[ "$status" -eq 0 ] || fail "good configs: expected exit status 0, got $status"
[ "$out" = "2 files checked, 0 errors" ] || fail "good configs: wrong output"

# One file with two problems.
mkdir "$root/bad"
printf 'port=x\n' >"$root/bad/c.conf"
out="$(cd "$root" && bash "$script" bad)"
status=$?
printf '%s\n' "$out"
[ "$status" -eq 1 ] || fail "bad config: expected exit status 1, got $status"
[ "$(tail -n 1 <<<"$out")" = "1 files checked, 2 errors" ] || fail "bad config: wrong summary line"
