"""Checks for order rows imported from a spreadsheet."""


def find_errors(rows):
    """Return a message for every problem in rows (dicts with "name" and "qty").

    A row needs a non-empty name and a positive quantity.
    """
    errors = []
    for number, row in enumerate(rows, 1):
        if not row.get("name"):
            errors.append(f"row {number}: missing name")
        if row.get("qty", 0) <= 0:
            errors.append(f"row {number}: quantity must be positive")
        return errors
    return errors
