"""Daily sales report: `python3 report.py`."""

import orders

TODAY = [
    [("coffee", 350, 2), ("bagel", 275, 1)],
    [("tea", 300, 1)],
    [("coffee", 350, 1), ("muffin", 325, 3)],
]


def daily_sales(all_orders):
    """Return the number of orders and their summed totals in cents."""
    return len(all_orders), sum(orders.calc_total(items) for items in all_orders)


if __name__ == "__main__":
    count, total = daily_sales(TODAY)
    print(f"{count} orders, {total / 100:.2f} in sales")
