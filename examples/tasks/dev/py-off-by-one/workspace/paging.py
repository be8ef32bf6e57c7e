"""Splitting a listing into pages."""


def page(items, number, size):
    """Return page `number` of `items`, `size` items per page. The first page is 1."""
    start = number * size
    return items[start:start + size]


def page_count(total, size):
    """Return how many pages `total` items fill, `size` items per page."""
    return (total + size - 1) // size
