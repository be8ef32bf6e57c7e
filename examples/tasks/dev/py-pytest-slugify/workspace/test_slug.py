import pytest

from slug import slugify


@pytest.mark.parametrize(
    "title, expected",
    [
        ("hello world", "hello-world"),
        ("Hello World", "hello-world"),
        ("  Rust & Python: 2 Languages ", "rust-python-2-languages"),
        ("already-a-slug", "already-a-slug"),
    ],
)
def test_slugify(title, expected):
    assert slugify(title) == expected


def test_empty_title():
    assert slugify("") == ""
