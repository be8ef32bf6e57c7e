# Setup of git-purge-dotenv: the last commit, "Read mail settings from
# .env", changes settings.py and README.md and also adds .env, with a
# password, by mistake.
set -euo pipefail
git config user.name "Dev"
git config user.email "dev@localhost"
cat >settings.py <<'PY'
"""Settings from .env (KEY=value lines), overridden by the environment."""

import os


def load(path=".env"):
    config = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line and not line.startswith("#") and "=" in line:
                    key, value = line.split("=", 1)
                    config[key.strip()] = value.strip()
    config.update(os.environ)
    return config
PY
cat >>README.md <<'MD'

Put the SMTP settings (SMTP_HOST, SMTP_PORT, SMTP_USER, SMTP_PASSWORD,
MAIL_FROM, MAIL_TO) in a `.env` file next to notify.py; it is never
committed.
MD
cat >.env <<'ENV'
SMTP_HOST=mail.harbour-cafe.example
SMTP_PORT=587
SMTP_USER=reports@harbour-cafe.example
SMTP_PASSWORD=Tr0ub4dor&3-nightly
MAIL_FROM=reports@harbour-cafe.example
MAIL_TO=owner@harbour-cafe.example
ENV
git add settings.py README.md .env
git commit -q -m 'Read mail settings from .env'
