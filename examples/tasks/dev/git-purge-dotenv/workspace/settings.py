"""Settings from the environment."""

import os


def load():
    return dict(os.environ)
