"""Settings shared by the client and the worker."""

# How long to wait for the server, in milliseconds.
TIMEOUT_MS = 2500

# How often the worker polls for jobs, in seconds.
POLL_INTERVAL = 5
