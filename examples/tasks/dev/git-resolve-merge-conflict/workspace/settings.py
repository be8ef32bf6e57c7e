"""Settings of the stock price poller."""

API_URL = "https://quotes.example.com/v2"
SYMBOLS = ["ACME", "GLOBEX", "INITECH"]

# Network
TIMEOUT_SECONDS = 10
RETRIES = 0

POLL_EVERY_SECONDS = 60
