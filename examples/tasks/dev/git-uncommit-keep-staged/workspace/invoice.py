"""Render a plain-text invoice from a JSON order."""

import json
import sys


def line_total(item):
    return item["qty"] * item["unit_price"]


def render(order):
    lines = [f"Invoice {order['number']} for {order['customer']}", ""]
    for item in order["items"]:
        lines.append(f"{item['qty']:>3} x {item['name']:<20} {line_total(item):>8.2f}")
    total = sum(line_total(item) for item in order["items"])
    lines += ["", f"{'Total':<26} {total:>8.2f}"]
    return "\n".join(lines)


if __name__ == "__main__":
    with open(sys.argv[1]) as f:
        print(render(json.load(f)))
