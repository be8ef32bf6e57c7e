"""Plain-text invoices for the shop."""

import datetime

DATE_FORMAT = "%Y-%m-%d"
SHOP = "Harbour Books, 3 Quay Street, Bristol"


def header(number, date):
    """The invoice's first lines: the shop, the number and the date."""
    return [
        SHOP,
        f"Invoice {number}",
        f"Date: {date.strftime(DATE_FORMAT)}",
    ]


def lines(items):
    """One line per (title, quantity, unit price in cents) item."""
    out = []
    for title, qty, cents in items:
        out.append(f"{title:30} {qty:>3} x {cents / 100:>7.2f} = {qty * cents / 100:>8.2f}")
    return out


def total(items):
    """The sum of the items, in cents."""
    return sum(qty * cents for _, qty, cents in items)


def render(number, date, items):
    body = header(number, date) + [""] + lines(items)
    body.append(f"{'Total':>47} {total(items) / 100:>8.2f}")
    return "\n".join(body) + "\n"


if __name__ == "__main__":
    print(render("2024-0042", datetime.date(2024, 5, 3),
                 [("The Sea, The Sea", 1, 1299), ("Moby-Dick", 2, 899)]), end="")
