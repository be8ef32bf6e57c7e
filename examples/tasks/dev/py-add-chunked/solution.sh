cat >>listutils.py <<'PY'


def chunked(items, size):
    """Split items into lists of `size` consecutive items (the last may be shorter)."""
    if size < 1:
        raise ValueError("size must be at least 1")
    return [list(items[i:i + size]) for i in range(0, len(items), size)]
PY
