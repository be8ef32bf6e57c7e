cat >>durations.py <<'PY'


def parse_duration(text):
    """Parse '1h30m', '45s' or '1h2m3s' into a number of seconds."""
    import re

    match = re.fullmatch(r"(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?", text)
    if not text or not match:
        raise ValueError(f"not a duration: {text!r}")
    hours, minutes, seconds = (int(g) if g else 0 for g in match.groups())
    return hours * 3600 + minutes * 60 + seconds
PY
