from invoice import invoice_lines
from moneyfmt import format_amount


def test_default_symbol():
    assert format_amount(123450) == "$1,234.50"
    assert format_amount(7) == "$0.07"
    assert format_amount(-500) == "-$5.00"


def test_other_symbol():
    assert format_amount(1999, symbol="€") == "€19.99"
    assert format_amount(-500, symbol="£") == "-£5.00"
    assert format_amount(100000, symbol="") == "1,000.00"


def test_invoice_unchanged():
    assert invoice_lines([("Design", 150000), ("Hosting", -2500)]) == [
        "Design      $1,500.00",
        "Hosting       -$25.00",
        "Total       $1,475.00",
    ]
