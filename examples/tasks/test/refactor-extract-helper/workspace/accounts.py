"""User accounts, kept in memory."""

import hashlib

_users = {}


def _hash(password):
    return hashlib.sha256(password.encode()).hexdigest()


def register(email, password):
    """Create an account and return its normalized email address."""
    email = email.strip().lower()
    if email.count("@") != 1 or email.startswith("@") or email.endswith("@"):
        raise ValueError(f"invalid email address: {email!r}")
    if email in _users:
        raise ValueError(f"{email} is already registered")
    _users[email] = _hash(password)
    return email


def check_login(email, password):
    """Return True if the email and password match an account."""
    email = email.strip().lower()
    if email.count("@") != 1 or email.startswith("@") or email.endswith("@"):
        raise ValueError(f"invalid email address: {email!r}")
    return _users.get(email) == _hash(password)


def clear():
    _users.clear()
