.venv/bin/pip install -q -r requirements-dev.txt
