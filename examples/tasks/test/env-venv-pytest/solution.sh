.venv/bin/pip install -q pytest
