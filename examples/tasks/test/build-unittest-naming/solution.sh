git mv tests/slugify_test.py tests/test_slugify.py
git mv tests/wrap_test.py tests/test_wrap.py
