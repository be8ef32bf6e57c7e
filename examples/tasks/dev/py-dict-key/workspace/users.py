"""Phone lists built from users.json."""

import json


def load_users(path="users.json"):
    with open(path) as f:
        return json.load(f)


def contact_line(user):
    """Return "Name (phone)" for one user."""
    return f"{user['name']} ({user['phone_number']})"


def active_phones(users):
    """Return the phone numbers of the active users."""
    return [user["phone"] for user in users if user["active"]]
