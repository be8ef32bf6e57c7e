"""W3 on PostgreSQL for LangGraph: one run of the `pev` graph with
LangGraph's `PostgresSaver` (langgraph-checkpoint-postgres).

The same workload as rebound's `rebound-bench steps-postgres`
(/work/shared/bench/WORKLOADS.md §1 and §2 W3, with PostgreSQL in place of
SQLite). `--url` is an admin URL of a PostgreSQL server: the script creates
two fresh databases on it, one for the untimed warm-up run (N=20) and one
for the timed run (N=--n, thread "w3"), measures, and drops both. It prints
one JSON line: workload, node_steps, wall_s, us_per_step, peak_rss_mb,
db_bytes (pg_total_relation_size of LangGraph's checkpoint tables in the
timed run's database), checkpoints, verified, and the server's
synchronous_commit and fsync.

    python w3_postgres.py --url postgres://rebound:rebound@127.0.0.1:5432/postgres \
        --n 2000 --durability sync
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from typing import TypedDict

import psycopg
from langgraph.checkpoint.postgres import PostgresSaver
from langgraph.graph import END, START, StateGraph

# LangGraph's checkpoint tables (see PostgresSaver.setup()).
TABLES = ("checkpoints", "checkpoint_blobs", "checkpoint_writes", "checkpoint_migrations")

PLAN = ["s0", "s1", "s2", "s3"]


class PevState(TypedDict):
    """The eight "last value wins" fields of §1.1."""

    plan: list[str]
    step_index: int
    iters: int
    max_iters: int
    verdict: str
    last_result: str
    executor_ok: bool
    log_len: int


def initial_state(n: int) -> PevState:
    """The input of every run (§1.1)."""
    return {
        "plan": [],
        "step_index": 0,
        "iters": 0,
        "max_iters": n,
        "verdict": "",
        "last_result": "",
        "executor_ok": True,
        "log_len": 0,
    }


# --- The nodes (§1.2) --------------------------------------------------------


def planner(s: PevState) -> dict:
    if not s["plan"]:
        return {"plan": list(PLAN), "step_index": 0, "log_len": s["log_len"] + 1}
    return {"log_len": s["log_len"] + 1}


def executor(s: PevState) -> dict:
    failing = s["iters"] % 7 == 3 and s["executor_ok"]
    update = {
        "executor_ok": not failing,
        "last_result": f"ran {s['plan'][s['step_index']]}",
        "log_len": s["log_len"] + 1,
    }
    if failing:
        update["plan"] = []
    return update


def reviewer(s: PevState) -> dict:
    verdict = "finish" if s["iters"] + 1 >= s["max_iters"] else "continue"
    return {"verdict": verdict, "log_len": s["log_len"] + 1}


def advance(s: PevState) -> dict:
    update = {"iters": s["iters"] + 1, "log_len": s["log_len"] + 1}
    if s["verdict"] == "continue":
        step_index = s["step_index"] + 1
        update["step_index"] = step_index
        if step_index >= len(s["plan"]):
            update["plan"] = []
    return update


# --- Routing (§1.3) ----------------------------------------------------------


def route_after_executor(s: PevState) -> str:
    return "reviewer" if s["executor_ok"] else "planner"


def route_after_advance(s: PevState) -> str:
    if s["verdict"] == "finish" or s["iters"] >= s["max_iters"]:
        return END
    if s["plan"] and 0 <= s["step_index"] < len(s["plan"]):
        return "executor"
    return "planner"


def build_graph():
    """`pev` as a StateGraph with explicit path maps (§1.4)."""
    builder = StateGraph(PevState)
    builder.add_node("planner", planner)
    builder.add_node("executor", executor)
    builder.add_node("reviewer", reviewer)
    builder.add_node("advance", advance)
    builder.add_edge(START, "planner")
    builder.add_edge("planner", "executor")
    builder.add_conditional_edges(
        "executor", route_after_executor, {"reviewer": "reviewer", "planner": "planner"}
    )
    builder.add_edge("reviewer", "advance")
    builder.add_conditional_edges(
        "advance",
        route_after_advance,
        {END: END, "executor": "executor", "planner": "planner"},
    )
    return builder


# --- The expected final state (W0 `ref`, §1.6) --------------------------------

# §1.6: N -> (log_len, step_index).
TABLE = {
    1: (4, 0),
    12: (42, 1),
    20: (69, 2),
    50: (172, 0),
    400: (1372, 0),
    500: (1714, 2),
    1000: (3429, 2),
    2000: (6858, 1),
    5000: (17143, 1),
}


def reference(n: int) -> dict:
    """The node logic as a plain loop, no LangGraph."""
    s = dict(initial_state(n))
    node = "planner"
    while True:
        fn = {"planner": planner, "executor": executor, "reviewer": reviewer, "advance": advance}[node]
        s.update(fn(s))
        if node == "planner":
            node = "executor"
        elif node == "executor":
            node = route_after_executor(s)
        elif node == "reviewer":
            node = "advance"
        else:
            node = route_after_advance(s)
            if node == END:
                return s


def verify(n: int, state: dict) -> bool:
    """Whether `state` is the final state of §1.6 for N."""
    ref = reference(n)
    failures = sum(1 for i in range(n) if i % 7 == 3)
    replans = sum(1 for i in range(7, n) if i % 7 == 0)
    ok = ref["log_len"] == 1 + 3 * n + 2 * failures + replans
    ok &= ref["plan"] == PLAN and ref["iters"] == n and ref["verdict"] == "finish"
    ok &= ref["executor_ok"] is True and ref["last_result"] == f"ran s{ref['step_index']}"
    if n in TABLE:
        ok &= (ref["log_len"], ref["step_index"]) == TABLE[n]
    return ok and dict(state) == ref


# --- Databases ----------------------------------------------------------------


def with_database(url: str, name: str) -> str:
    """`url` with its database replaced by `name`."""
    base, sep, query = url.partition("?")
    scheme_end = base.find("://")
    start = scheme_end + 3 if scheme_end >= 0 else 0
    slash = base.find("/", start)
    if slash >= 0:
        base = base[:slash]
    return f"{base}/{name}{sep}{query}"


_counter = 0


def create_database(admin_url: str, suffix: str) -> str:
    """Creates an empty database; returns its name."""
    global _counter
    _counter += 1
    name = f"langgraph_bench_{time.time_ns():x}_{os.getpid()}_{_counter}_{suffix}"
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return name


def drop_database(admin_url: str, name: str) -> None:
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def config(thread: str, n: int) -> dict:
    return {"configurable": {"thread_id": thread}, "recursion_limit": 10 * n + 100}


def run(url: str, n: int, durability: str) -> dict:
    builder = build_graph()
    warm_name = create_database(url, "warm")
    timed_name = create_database(url, "w3")
    try:
        # Untimed warm-up, N=20, on a database and checkpointer of its own.
        with PostgresSaver.from_conn_string(with_database(url, warm_name)) as warm_saver:
            warm_saver.setup()
            warm_graph = builder.compile(checkpointer=warm_saver)
            warm = warm_graph.invoke(initial_state(20), config("warm", 20), durability=durability)
            if not verify(20, warm):
                raise SystemExit(f"the warm-up run ended in the wrong state: {warm}")

        with PostgresSaver.from_conn_string(with_database(url, timed_name)) as saver:
            saver.setup()
            graph = builder.compile(checkpointer=saver)
            with saver.conn.cursor() as cur:
                settings = {
                    name: cur.execute(f"SHOW {name}").fetchone()[name]
                    for name in ("synchronous_commit", "fsync", "server_version")
                }

            started = time.perf_counter()
            state = graph.invoke(initial_state(n), config("w3", n), durability=durability)
            wall = time.perf_counter() - started

            stored = graph.get_state(config("w3", n)).values
            verified = verify(n, state) and verify(n, stored)
            checkpoints = sum(1 for _ in saver.list({"configurable": {"thread_id": "w3"}}))
            with saver.conn.cursor() as cur:
                sizes = {
                    table: cur.execute(
                        "SELECT pg_total_relation_size(%s::regclass) AS size", (table,)
                    ).fetchone()["size"]
                    for table in TABLES
                }
    finally:
        drop_database(url, warm_name)
        drop_database(url, timed_name)

    node_steps = state["log_len"]
    return {
        "workload": f"langgraph-steps-postgres-{durability}",
        "node_steps": node_steps,
        "wall_s": round(wall, 6),
        "us_per_step": round(wall / max(node_steps, 1) * 1e6, 4),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 2),
        "db_bytes": sum(sizes.values()),
        "verified": verified,
        "n": n,
        "checkpoints": checkpoints,
        "durability": durability,
        "synchronous_commit": settings["synchronous_commit"],
        "fsync": settings["fsync"],
        "server_version": settings["server_version"],
        "db_tables": sizes,
        "langgraph": _version("langgraph"),
        "langgraph_checkpoint_postgres": _version("langgraph-checkpoint-postgres"),
        "psycopg": psycopg.__version__,
        "python": sys.version.split()[0],
    }


def _version(dist: str) -> str:
    from importlib.metadata import version

    return version(dist)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default=os.environ.get("REBOUND_POSTGRES_URL"),
                        help="admin URL of the PostgreSQL server (default: REBOUND_POSTGRES_URL)")
    parser.add_argument("--n", type=int, default=2000, help="max_iters (default 2000)")
    parser.add_argument("--durability", choices=("sync", "async"), default="sync",
                        help='LangGraph durability (default "sync"; LangGraph\'s own default is "async")')
    args = parser.parse_args()
    if not args.url:
        parser.error("--url (or REBOUND_POSTGRES_URL) is required")
    print(json.dumps(run(args.url, args.n, args.durability)), flush=True)


if __name__ == "__main__":
    main()
