#!/usr/bin/env bash
# Starts LangGraph's in-memory Agent Server (`langgraph dev`) on the 3-node
# benchmark graph of graph.py, for the side-by-side comparison with rebound's
# server. Usage: bench/langgraph-server/run.sh   (Ctrl-C stops the server)
#
# Environment: PORT (default 2024), VENV (default /tmp/langgraph-bench-venv),
# JOBS = --n-jobs-per-worker (default 64, one per load client; LangGraph's own
# default is 10; on 2 cores both gave ~30 runs/s). An existing venv is reused
# as it is: delete it to reinstall from requirements.txt.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
port="${PORT:-2024}"
venv="${VENV:-/tmp/langgraph-bench-venv}"
jobs="${JOBS:-64}"

if [ ! -x "$venv/bin/langgraph" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --upgrade pip
    "$venv/bin/pip" install --quiet -r "$here/requirements.txt"
fi

# No tracing, no analytics, no studio: nothing may reach the internet.
export LANGSMITH_TRACING=false
export LANGCHAIN_TRACING_V2=false
export LANGSMITH_API_KEY=
export LANGGRAPH_CLI_NO_ANALYTICS=1
unset LANGSMITH_ENDPOINT LANGCHAIN_ENDPOINT || true

# langgraph dev quietly moves to another port when its own is taken; refuse instead.
if ! python3 -c "import socket,sys; s=socket.socket(); s.bind(('127.0.0.1', int(sys.argv[1])))" "$port" 2>/dev/null; then
    echo "port $port is already in use; pick another with PORT=..." >&2
    exit 1
fi

cd "$here"
"$venv/bin/langgraph" dev \
    --config "$here/langgraph.json" \
    --host 127.0.0.1 \
    --port "$port" \
    --no-browser \
    --no-reload \
    --n-jobs-per-worker "$jobs" \
    --server-log-level WARNING &
server=$!
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true' EXIT INT TERM

for _ in $(seq 1 120); do
    if curl -fsS "http://127.0.0.1:$port/ok" >/dev/null 2>&1; then
        break
    fi
    if ! kill -0 "$server" 2>/dev/null; then
        echo "langgraph dev exited before answering /ok" >&2
        exit 1
    fi
    sleep 0.5
done
curl -fsS "http://127.0.0.1:$port/ok" >/dev/null || { echo "no answer on /ok after 60 s" >&2; exit 1; }

cat <<USAGE
LangGraph's Agent Server is up on http://127.0.0.1:$port (pid $server), graph id "bench".
Measure it (from the repo root):
  cargo build --release -p rebound-bench
  target/release/rebound-bench server-load --url http://127.0.0.1:$port --assistant bench --clients 64 --seconds 20 --mode wait
  target/release/rebound-bench server-load --url http://127.0.0.1:$port --assistant bench --clients 100 --mode stream
Add --server-pid $server to sample the server's memory.
USAGE
wait "$server"
