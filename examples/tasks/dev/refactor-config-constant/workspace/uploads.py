"""Checks on files users upload."""

MAX_UPLOAD_MB = 25

ALLOWED_EXTENSIONS = {".jpg", ".png", ".pdf"}


def check_upload(filename, size_bytes):
    """Raise ValueError if the file may not be uploaded."""
    dot = filename.rfind(".")
    extension = filename[dot:].lower() if dot != -1 else ""
    if extension not in ALLOWED_EXTENSIONS:
        raise ValueError(f"{filename}: type not allowed")
    if size_bytes > MAX_UPLOAD_MB * 1024 * 1024:
        raise ValueError(f"{filename}: larger than {MAX_UPLOAD_MB} MB")
