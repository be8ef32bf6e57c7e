python3 - <<'PY'
src = open("pyproject.toml").read()
src = src.replace('target-version = "py310"\nline-length = 100\n', 'target-version = "py310"\n')
second = '\n[tool.pytest.ini_options]\nmarkers = ["slow: tests that hit the network"]\nfilterwarnings = ["error"]\n'
src = src.replace(second, "")
src = src.replace('addopts = "-ra"\n', 'addopts = "-ra"\nmarkers = ["slow: tests that hit the network"]\nfilterwarnings = ["error"]\n')
open("pyproject.toml", "w").write(src)
PY
