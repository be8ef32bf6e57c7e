# Helpers for the build scripts.

log() {
    printf '[package] %s\n' "$*"
}

read_version() {
    local v
    v="$(tr -d '[:space:]' <VERSION)"
    if ! [[ "$v" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
        echo "bad VERSION: $v" >&2
        return 1
    fi
    printf '%s' "$v"
}
