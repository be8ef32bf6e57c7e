"""Text shown on the upload form."""

MAX_UPLOAD_MB = 25


def upload_hint():
    return f"JPG, PNG or PDF, up to {MAX_UPLOAD_MB} MB"


def size_error(size_bytes):
    """Return the form's error message for a file of size_bytes, or None."""
    megabytes = size_bytes / (1024 * 1024)
    if megabytes > MAX_UPLOAD_MB:
        return f"This file is {megabytes:.1f} MB; the limit is {MAX_UPLOAD_MB} MB."
    return None
