printf 'tabulate\n' >>requirements.txt
.venv/bin/pip install -q -r requirements.txt
