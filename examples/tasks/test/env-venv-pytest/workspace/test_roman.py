import pytest

from roman import from_roman, to_roman

CASES = [(1, "I"), (4, "IV"), (9, "IX"), (14, "XIV"), (40, "XL"), (1994, "MCMXCIV"), (3999, "MMMCMXCIX")]


@pytest.mark.parametrize("number,text", CASES)
def test_to_roman(number, text):
    assert to_roman(number) == text


@pytest.mark.parametrize("number,text", CASES)
def test_from_roman(number, text):
    assert from_roman(text) == number


@pytest.mark.parametrize("number", [0, -3, 4000])
def test_out_of_range(number):
    with pytest.raises(ValueError):
        to_roman(number)
