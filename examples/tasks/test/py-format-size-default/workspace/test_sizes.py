import pytest

from sizes import format_size


@pytest.mark.parametrize(
    "num_bytes, expected",
    [
        (0, "0 B"),
        (512, "512 B"),
        (1536, "1.5 KB"),
        (3 * 1024**2, "3.0 MB"),
        (5 * 1024**3 + 600 * 1024**2, "5.6 GB"),
    ],
)
def test_default_precision(num_bytes, expected):
    assert format_size(num_bytes) == expected


def test_explicit_precision():
    assert format_size(1536, precision=2) == "1.50 KB"
    assert format_size(1536, precision=0) == "2 KB"
