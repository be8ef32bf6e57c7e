import pytest

from units import convert


def test_same_unit():
    assert convert(3.5, "m", "m") == 3.5


def test_km_to_m():
    assert convert(2, "km", "m") == 2000


def test_inches_to_cm():
    assert convert(10, "in", "cm") == pytest.approx(25.4)


def test_miles_to_km():
    assert convert(1, "mi", "km") == pytest.approx(1.609344)


def test_feet_to_inches():
    assert convert(1, "ft", "in") == pytest.approx(12)


def test_unknown_unit():
    with pytest.raises(ValueError, match="unknown unit: yd"):
        convert(1, "yd", "m")
