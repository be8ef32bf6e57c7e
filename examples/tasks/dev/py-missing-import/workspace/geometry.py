"""Distances between points given as (x, y) pairs."""


def distance(a, b):
    """Return the straight-line distance between points a and b."""
    return math.hypot(b[0] - a[0], b[1] - a[1])


def perimeter(points):
    """Return the length of the closed path through points."""
    return sum(distance(points[i - 1], points[i]) for i in range(len(points)))
