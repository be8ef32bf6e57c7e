git mv tests/parse_test.py tests/test_parse.py
git mv tests/report_test.py tests/test_report.py
