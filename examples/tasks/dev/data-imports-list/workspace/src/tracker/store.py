"""Entries kept in a SQLite file."""

import os.path
import sqlite3, logging
from contextlib import closing

from tracker.models import Entry, Project

log = logging.getLogger(__name__)

# import pickle  # the old store; gone since 0.4


def open_store(path):
    """Open (and create) the store at `path`."""
    new = not os.path.exists(path)
    db = sqlite3.connect(path)
    if new:
        with closing(db.cursor()) as cur:
            cur.execute("CREATE TABLE entries (project TEXT, start TEXT, end TEXT)")
        log.info("created %s", path)
    return db


def backup(db, target):
    import shutil
    import tempfile as tf

    with tf.NamedTemporaryFile(delete=False) as tmp:
        with sqlite3.connect(tmp.name) as copy:
            db.backup(copy)
    shutil.move(tmp.name, target)
