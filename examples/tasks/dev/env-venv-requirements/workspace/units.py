"""Convert lengths between units."""

TO_METRES = {"mm": 0.001, "cm": 0.01, "m": 1.0, "km": 1000.0, "in": 0.0254, "ft": 0.3048, "mi": 1609.344}


def convert(value, unit, to):
    """`value` in `unit`, expressed in `to`."""
    try:
        return value * TO_METRES[unit] / TO_METRES[to]
    except KeyError as e:
        raise ValueError(f"unknown unit: {e.args[0]}") from None
