"""Member records for the club's sign-up desk."""

from datetime import date

ADULT_AGE = 18


def age(birthday, today=None):
    """Return how many whole years old someone born on `birthday` is on
    `today` (default: the current date)."""
    today = today or date.today()
    return today.year - birthday.year


def is_adult(birthday, today=None):
    return age(birthday, today) >= ADULT_AGE


def badge(name, birthday, today=None):
    kind = "adult" if is_adult(birthday, today) else "junior"
    return f"{name} ({age(birthday, today)}, {kind})"
