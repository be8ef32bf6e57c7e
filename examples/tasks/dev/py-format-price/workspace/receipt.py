"""Receipt lines for the till."""


def format_price(amount):
    """Return an amount of dollars as printed on receipts."""
    return "$" + str(round(amount, 2))


def receipt_line(name, amount):
    """Return one line of a receipt: the product and its price."""
    return f"{name}: {format_price(amount)}"
