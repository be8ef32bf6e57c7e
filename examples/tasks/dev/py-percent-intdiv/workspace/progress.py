"""Progress display for long-running jobs."""


def percent_done(done, total):
    """Return the share of work done as a percentage rounded to one decimal.

    A job with nothing to do (total == 0) is 0.0 percent done.
    """
    if total == 0:
        return 0.0
    return round(done // total * 100, 1)


def progress_bar(done, total, width=20):
    """Return a text bar like `[#####-----]` that is `width` cells wide."""
    filled = int(percent_done(done, total) * width // 100)
    return "[" + "#" * filled + "-" * (width - filled) + "]"


def status_line(name, done, total):
    return f"{name} {progress_bar(done, total)} {percent_done(done, total)}%"
