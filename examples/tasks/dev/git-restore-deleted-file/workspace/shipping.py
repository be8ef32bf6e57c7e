"""Shipping cost of a parcel: a zone's base price plus a price per kg."""

import json
import os
import sys

RATES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "config", "rates.json")


def load_rates(path=RATES):
    with open(path) as f:
        return json.load(f)


def cost(zone, kg, rates=None):
    """The cost in euros of sending `kg` kilograms to `zone`, rounded to cents."""
    rates = load_rates() if rates is None else rates
    if zone not in rates:
        raise ValueError(f"unknown zone {zone!r}")
    rate = rates[zone]
    return round(rate["base"] + rate["per_kg"] * kg, 2)


if __name__ == "__main__":
    print(f"{cost(sys.argv[1], float(sys.argv[2])):.2f}")
