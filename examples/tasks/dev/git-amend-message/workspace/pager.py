"""Split a list of results into pages."""


def page(items, number, size=10):
    """The items on page `number` (counted from 1)."""
    start = number * size
    return items[start:start + size]


def page_count(items, size=10):
    """How many pages `items` fill."""
    return (len(items) + size - 1) // size
