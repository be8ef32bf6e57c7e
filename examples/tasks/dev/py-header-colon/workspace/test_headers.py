from headers import content_type, parse_headers


def test_simple_headers():
    text = "Content-Type: text/html\nContent-Length: 120\n"
    assert parse_headers(text) == {"content-type": "text/html", "content-length": "120"}


def test_blank_lines_and_spaces():
    text = "\nAccept: */*\n\nConnection:close\n  X-Debug :  1  \n"
    assert parse_headers(text) == {"accept": "*/*", "connection": "close", "x-debug": "1"}


def test_value_with_a_colon():
    text = "Host: localhost:8080\nReferer: http://example.com/a\n"
    assert parse_headers(text) == {
        "host": "localhost:8080",
        "referer": "http://example.com/a",
    }


def test_content_type():
    headers = parse_headers("Content-Type: text/plain; charset=utf-8\n")
    assert content_type(headers) == "text/plain"
