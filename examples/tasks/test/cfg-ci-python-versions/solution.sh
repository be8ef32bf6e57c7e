sed -i -e 's/python-version: \[3.9, 3.10, 3.11, 3.12\]/python-version: ["3.9", "3.10", "3.11", "3.12"]/' \
    -e 's/python-version: 3.12$/python-version: "3.12"/' .github/workflows/ci.yml
