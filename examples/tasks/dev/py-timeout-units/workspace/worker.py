"""The background worker's schedule, in seconds since the epoch."""

import settings


def give_up_at(started):
    """Return when a job started at `started` times out."""
    return started + settings.TIMEOUT_MS


def next_poll(last_poll):
    """Return when to poll for jobs next."""
    return last_poll + settings.POLL_INTERVAL
