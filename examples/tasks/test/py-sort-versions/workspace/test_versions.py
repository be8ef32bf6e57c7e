from versions import latest, newer_than, sort_versions

RELEASES = ["1.2.0", "1.10.0", "1.9.3", "0.9.12", "1.9.10", "1.0.0"]


def test_sort_versions():
    assert sort_versions(RELEASES) == ["0.9.12", "1.0.0", "1.2.0", "1.9.3", "1.9.10", "1.10.0"]


def test_latest():
    assert latest(RELEASES) == "1.10.0"
    assert latest(["2.0.0", "10.0.0", "9.1.1"]) == "10.0.0"


def test_newer_than():
    assert newer_than(["1.2.0", "1.10.0", "1.9.3"], "1.9.0") == ["1.9.3", "1.10.0"]
