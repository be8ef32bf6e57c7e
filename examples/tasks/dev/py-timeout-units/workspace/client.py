"""Options for requests to the server."""

import settings


def request_options(url):
    """Return the options for a request to url; "timeout" is in seconds."""
    return {"url": url, "timeout": settings.TIMEOUT_MS, "retries": 2}
