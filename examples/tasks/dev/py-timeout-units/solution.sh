# TIMEOUT_MS is in milliseconds; both callers need seconds.
sed -i 's|settings\.TIMEOUT_MS|settings.TIMEOUT_MS / 1000|' client.py worker.py
