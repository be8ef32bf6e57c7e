"""Helpers for working with lists."""


def flatten(lists):
    """Join a list of lists into one list."""
    return [item for sub in lists for item in sub]


def unique(items):
    """Return items without duplicates, keeping the first occurrence of each."""
    seen = set()
    result = []
    for item in items:
        if item not in seen:
            seen.add(item)
            result.append(item)
    return result
