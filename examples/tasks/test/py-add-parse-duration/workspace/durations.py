"""Durations written like 1h30m or 45s."""


def format_duration(seconds):
    """Format a whole number of seconds: 5400 -> '1h30m', 3605 -> '1h5s'."""
    if seconds < 0:
        raise ValueError("negative duration")
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    parts = []
    if hours:
        parts.append(f"{hours}h")
    if minutes:
        parts.append(f"{minutes}m")
    if secs or not parts:
        parts.append(f"{secs}s")
    return "".join(parts)
