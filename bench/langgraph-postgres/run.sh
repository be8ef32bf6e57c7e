#!/usr/bin/env bash
# W3 on PostgreSQL for LangGraph's PostgresSaver: creates the venv from
# requirements.txt if missing, then runs w3_postgres.py with the given flags.
#
#   bench/langgraph-postgres/run.sh --url postgres://USER:PW@HOST:PORT/postgres \
#       --n 2000 --durability sync|async
#
# The URL's user must be allowed to create databases (the script makes two
# fresh ones, and drops them). Environment: VENV (default
# /tmp/langgraph-pg-venv). An existing venv is reused as it is: delete it to
# reinstall from requirements.txt.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venv="${VENV:-/tmp/langgraph-pg-venv}"

if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import langgraph.checkpoint.postgres' 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --upgrade pip
    "$venv/bin/pip" install --quiet -r "$here/requirements.txt"
fi

# No tracing: nothing may reach the internet.
export LANGSMITH_TRACING=false
export LANGCHAIN_TRACING_V2=false
export LANGSMITH_API_KEY=
unset LANGSMITH_ENDPOINT LANGCHAIN_ENDPOINT || true

exec "$venv/bin/python" "$here/w3_postgres.py" "$@"
