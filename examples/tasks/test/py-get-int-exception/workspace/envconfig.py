"""Settings read from environment variables."""

import os


def get_int(name, default, env=None):
    """Return the variable `name` as an int, or `default` when it is not set
    or is not a valid integer."""
    env = os.environ if env is None else env
    try:
        return int(env[name])
    except (KeyError, TypeError):
        return default


def get_bool(name, default, env=None):
    """Return True for 1/true/yes, False for 0/false/no, else `default`."""
    env = os.environ if env is None else env
    value = env.get(name, "").strip().lower()
    if value in ("1", "true", "yes"):
        return True
    if value in ("0", "false", "no"):
        return False
    return default


def load(env=None):
    return {
        "workers": get_int("WORKERS", 4, env),
        "port": get_int("PORT", 8000, env),
        "debug": get_bool("DEBUG", False, env),
    }
