"""Password rules for the sign-up form."""

MIN_LENGTH = 8


def is_strong(password):
    """Return True if password has at least MIN_LENGTH characters and
    contains at least one letter and at least one digit."""
    has_letter = any(c.isalpha() for c in password)
    has_digit = any(c.isdigit() for c in password)
    return len(password) >= MIN_LENGTH and (has_letter or has_digit)


def problems(password):
    """Return a list of messages explaining why password is not strong."""
    messages = []
    if len(password) < MIN_LENGTH:
        messages.append(f"use at least {MIN_LENGTH} characters")
    if not any(c.isalpha() for c in password):
        messages.append("add a letter")
    if not any(c.isdigit() for c in password):
        messages.append("add a digit")
    return messages
