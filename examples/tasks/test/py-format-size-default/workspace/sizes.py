"""Human-readable file sizes."""

UNITS = ["KB", "MB", "GB", "TB"]


def format_size(num_bytes, precision=0):
    """Format a byte count for people: 512 -> '512 B', 1536 -> '1.5 KB'.

    Sizes under 1024 bytes are shown as whole bytes. Larger sizes are shown
    in the biggest unit that keeps the number at 1 or more, with one decimal
    place unless `precision` asks for another number of decimals.
    """
    if num_bytes < 1024:
        return f"{num_bytes} B"
    size = num_bytes / 1024
    unit = UNITS[0]
    for unit in UNITS:
        if size < 1024 or unit == UNITS[-1]:
            break
        size /= 1024
    return f"{size:.{precision}f} {unit}"
