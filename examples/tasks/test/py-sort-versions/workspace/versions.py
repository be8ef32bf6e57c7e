"""Release version numbers like 1.10.2."""


def sort_versions(versions):
    """Return the version strings sorted from oldest to newest."""
    return sorted(versions, key=lambda v: v.split("."))


def latest(versions):
    """Return the newest version."""
    return sort_versions(versions)[-1]


def newer_than(versions, current):
    """Return the versions released after `current`, oldest first."""
    ordered = sort_versions(versions + [current])
    return ordered[ordered.index(current) + 1:]
