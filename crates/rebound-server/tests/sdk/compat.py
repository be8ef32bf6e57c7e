"""Drives a rebound server with LangGraph's own Python client (`langgraph-sdk`).

The server must serve the `approval` test graph (tests/common/mod.rs):
plan -> approve -> act, where `approve` interrupts with
`{"question": "approve <topic>?"}` unless the input has `"auto_approve": true`,
and `plan` sleeps `sleep_ms` first.

Every expectation below was first checked against LangGraph's own server
(`langgraph dev`), so a pass means the SDK sees rebound as it sees LangGraph.
Each scenario runs on a fresh thread: LangGraph merges a run's input into the
thread's state, so `auto_approve` would carry over from an earlier run.

Usage: python compat.py BASE_URL   (or REBOUND_SERVER_URL=BASE_URL)
Prints one line per step passed; exits 1 with a message on the first failure.
"""

from __future__ import annotations

import os
import sys
import time
import traceback
from typing import Any

import httpx
from langgraph_sdk import get_sync_client
from langgraph_sdk.errors import NotFoundError

GRAPH = "approval"
# LangGraph's in-memory dev server (`langgraph dev`) numbers events by the
# millisecond ("<ms>-0"), so two events in the same millisecond share an id.
# Set REBOUND_COMPAT_ALLOW_REPEATED_IDS=1 only when checking this script
# against it; rebound's ids must be unique, or a reconnect can lose events.
ALLOW_REPEATED_IDS = os.environ.get("REBOUND_COMPAT_ALLOW_REPEATED_IDS") == "1"
MISSING_THREAD = "00000000-0000-0000-0000-000000000000"


def passed(step: str) -> None:
    print(f"ok: {step}", flush=True)


class RequestLog:
    """Every request the SDK sends, as (method, path), to catch reconnects.

    When a stream response names its run in a `Location` header and closes
    without an `end` event (LangGraph sends none), the SDK asks for the run
    and, if it is still pending or running, silently opens the stream again.
    A server must therefore finish the run before it closes the stream.
    """

    def __init__(self) -> None:
        self.requests: list[tuple[str, str]] = []

    def __call__(self, request: httpx.Request) -> None:
        self.requests.append((request.method, request.url.path))


LOG = RequestLog()


def parts_of(stream: Any) -> list[Any]:
    """Reads a whole SSE stream into a list of StreamParts, and checks that
    the SDK opened it once: no reconnect behind the caller's back."""
    start = len(LOG.requests)
    parts = list(stream)
    opened = [r for r in LOG.requests[start:] if r[1].endswith("/stream")]
    assert len(opened) == 1, (
        f"the SDK opened the stream {len(opened)} times {opened}: the stream closed "
        "while the run was still pending or running, so the SDK reconnected"
    )
    # A run's stream may close with an `end` part (the SDK knows it: it
    # tells a finished run from a cut connection without asking the server);
    # LangGraph's dev server just closes it. Only last, and without data.
    if parts and parts[-1].event == "end":
        assert parts[-1].data is None, f"the end part carries data: {parts[-1]!r}"
        parts = parts[:-1]
    assert all(p.event != "end" for p in parts), f"an end part before the last:\n{describe(parts)}"
    return parts


def describe(parts: list[Any]) -> str:
    return "\n".join(f"  {p.event} id={p.id} {p.data!r}" for p in parts)


def question(topic: str) -> dict[str, Any]:
    return {"question": f"approve {topic}?"}


def check_interrupt(interrupt: Any, topic: str, where: str) -> str:
    """Checks one interrupt object and returns its id."""
    assert isinstance(interrupt, dict), f"{where}: interrupt is not an object: {interrupt!r}"
    assert interrupt.get("value") == question(topic), (
        f"{where}: interrupt value {interrupt.get('value')!r}, expected {question(topic)!r}"
    )
    interrupt_id = interrupt.get("id")
    assert isinstance(interrupt_id, str) and interrupt_id, (
        f"{where}: interrupt has no id: {interrupt!r}"
    )
    return interrupt_id


def event_id_key(event_id: str) -> tuple[int, ...]:
    """Orders SSE ids: plain integers ("7") or LangGraph's "<ms>-<seq>"."""
    try:
        return tuple(int(piece) for piece in event_id.split("-"))
    except ValueError as err:
        raise AssertionError(f"event id {event_id!r} is not numeric") from err


def step_assistants(client: Any) -> None:
    assistants = client.assistants.search()
    graph_ids = [a.get("graph_id") for a in assistants]
    assert GRAPH in graph_ids, (
        f"assistants.search(): no assistant with graph_id {GRAPH!r} in {assistants!r}"
    )
    ours = next(a for a in assistants if a.get("graph_id") == GRAPH)
    assert ours.get("assistant_id"), f"assistant without assistant_id: {ours!r}"
    passed(f"assistants.search() lists graph {GRAPH!r}")


def step_interrupt_resume_history(client: Any) -> None:
    thread = client.threads.create()
    thread_id = thread.get("thread_id")
    assert thread_id, f"threads.create() returned no thread_id: {thread!r}"
    assert thread.get("status") == "idle", (
        f"a new thread's status is {thread.get('status')!r}, expected 'idle'"
    )
    passed("threads.create() gives an idle thread")

    parts = parts_of(
        client.runs.stream(
            thread_id, GRAPH, input={"topic": "x"}, stream_mode=["values", "updates"]
        )
    )
    assert parts, "runs.stream() yielded nothing"
    assert parts[0].event == "metadata", (
        f"first part is {parts[0].event!r}, expected 'metadata':\n{describe(parts)}"
    )
    assert parts[0].data.get("run_id"), f"the metadata part has no run_id: {parts[0].data!r}"
    events = {p.event for p in parts}
    assert events <= {"metadata", "values", "updates"}, (
        f"unexpected events {events}:\n{describe(parts)}"
    )
    values = [p.data for p in parts if p.event == "values"]
    updates = [p.data for p in parts if p.event == "updates"]
    assert values, f"no values parts:\n{describe(parts)}"
    assert updates, f"no updates parts:\n{describe(parts)}"
    assert {"plan": {"log": ["plan"]}} in updates, f"no update from node plan:\n{describe(parts)}"
    assert not any("approve" in u or "act" in u for u in updates), (
        f"approve or act ran before the answer:\n{describe(parts)}"
    )
    assert values[0].get("topic") == "x", f"the first values part lacks the input: {values[0]!r}"
    assert values[-1].get("log") == ["plan"], (
        f"the last values part is {values[-1]!r}, expected log ['plan']"
    )
    interrupt_updates = [u for u in updates if "__interrupt__" in u]
    assert interrupt_updates, f"no updates part carries '__interrupt__':\n{describe(parts)}"
    [streamed] = interrupt_updates[-1]["__interrupt__"]
    streamed_id = check_interrupt(streamed, "x", "updates part __interrupt__")
    assert values[-1].get("__interrupt__") == interrupt_updates[-1]["__interrupt__"], (
        f"the last values part does not carry the same '__interrupt__': {values[-1]!r}"
    )
    passed("runs.stream() yields metadata, values and updates, and stops at the interrupt")

    state = client.threads.get_state(thread_id)
    assert state.get("next") == ["approve"], (
        f"get_state next is {state.get('next')!r}, expected ['approve']"
    )
    interrupts = state.get("interrupts")
    assert isinstance(interrupts, list) and len(interrupts) == 1, (
        f"get_state interrupts: {interrupts!r}"
    )
    state_id = check_interrupt(interrupts[0], "x", "get_state interrupts[0]")
    assert state_id == streamed_id, (
        f"interrupt id {state_id!r} in get_state, {streamed_id!r} in the stream"
    )
    tasks = state.get("tasks") or []
    approve_tasks = [t for t in tasks if t.get("name") == "approve"]
    assert len(approve_tasks) == 1, f"get_state tasks: {tasks!r}, expected one task named 'approve'"
    assert [i.get("id") for i in approve_tasks[0].get("interrupts", [])] == [state_id], (
        f"the approve task's interrupts: {approve_tasks[0]!r}"
    )
    assert state.get("values", {}).get("log") == ["plan"], (
        f"get_state values: {state.get('values')!r}"
    )
    assert (state.get("checkpoint") or {}).get("checkpoint_id"), (
        f"get_state checkpoint: {state.get('checkpoint')!r}"
    )
    passed("threads.get_state() shows next ['approve'] and the interrupt with its id")

    thread = client.threads.get(thread_id)
    assert thread.get("status") == "interrupted", (
        f"thread status {thread.get('status')!r}, expected 'interrupted'"
    )
    thread_interrupts = thread.get("interrupts")
    assert isinstance(thread_interrupts, dict), (
        f"threads.get interrupts is not a task-id map: {thread_interrupts!r}"
    )
    listed = [i.get("id") for found in thread_interrupts.values() for i in found]
    assert listed == [state_id], f"threads.get interrupts: {thread_interrupts!r}"
    passed("threads.get() shows status 'interrupted' and the interrupt")

    parts = parts_of(
        client.runs.stream(thread_id, GRAPH, command={"resume": "yes"}, stream_mode="values")
    )
    assert parts and parts[0].event == "metadata", (
        f"the resume stream does not start with metadata:\n{describe(parts)}"
    )
    values = [p.data for p in parts if p.event == "values"]
    assert values, f"the resume stream has no values:\n{describe(parts)}"
    final = values[-1]
    assert final.get("log") == ["plan", "approve", "act"], (
        f"final values {final!r}, expected log plan, approve, act"
    )
    assert final.get("answer") == "yes", f"final values {final!r}, expected answer 'yes'"
    assert "__interrupt__" not in final, f"final values still carry an interrupt: {final!r}"
    thread = client.threads.get(thread_id)
    assert thread.get("status") == "idle", (
        f"thread status after resume {thread.get('status')!r}, expected 'idle'"
    )
    assert thread.get("values", {}).get("log") == final["log"], (
        f"thread values after resume: {thread.get('values')!r}"
    )
    passed("runs.stream(command={'resume': 'yes'}) runs approve and act; the thread is idle")

    history = client.threads.get_history(thread_id)
    assert isinstance(history, list) and len(history) >= 3, (
        f"get_history returned {len(history)} states, expected >= 3"
    )
    for i, snapshot in enumerate(history):
        assert (snapshot.get("checkpoint") or {}).get("checkpoint_id"), (
            f"history[{i}] has no checkpoint id: {snapshot!r}"
        )
    checkpoint_ids = [s["checkpoint"]["checkpoint_id"] for s in history]
    assert len(set(checkpoint_ids)) == len(checkpoint_ids), (
        f"repeated checkpoint ids in history: {checkpoint_ids!r}"
    )
    assert history[0].get("values", {}).get("log") == ["plan", "approve", "act"], (
        f"history[0] is not the newest: {history[0]!r}"
    )
    assert history[0].get("next") == [], (
        f"history[0] next is {history[0].get('next')!r}, expected []"
    )
    lengths = [len(s.get("values", {}).get("log", [])) for s in history]
    assert lengths == sorted(lengths, reverse=True), (
        f"history is not newest first (log lengths {lengths})"
    )
    assert any(s.get("next") == ["approve"] for s in history), (
        f"no state before approve in history: {history!r}"
    )
    passed(f"threads.get_history() lists {len(history)} checkpoints, newest first")


def step_background_join(client: Any) -> None:
    thread_id = client.threads.create()["thread_id"]
    run = client.runs.create(thread_id, GRAPH, input={"topic": "bg", "auto_approve": True})
    run_id = run.get("run_id")
    assert run_id, f"runs.create() returned no run_id: {run!r}"
    assert run.get("status") in ("pending", "running"), (
        f"a new run's status is {run.get('status')!r}"
    )
    joined = client.runs.join(thread_id, run_id)
    assert joined.get("log") == ["plan", "approve", "act"], f"runs.join() returned {joined!r}"
    got = client.runs.get(thread_id, run_id)
    assert got.get("status") == "success", (
        f"runs.get() status {got.get('status')!r}, expected 'success'"
    )
    passed("runs.create() then runs.join() returns the final values; the run is 'success'")

    thread_id = client.threads.create()["thread_id"]
    run_id = client.runs.create(thread_id, GRAPH, input={"topic": "bg"})["run_id"]
    joined = client.runs.join(thread_id, run_id)
    assert joined.get("log") == ["plan"], f"runs.join() on an interrupting run returned {joined!r}"
    [interrupt] = joined.get("__interrupt__") or [None]
    check_interrupt(interrupt, "bg", "runs.join() __interrupt__")
    got = client.runs.get(thread_id, run_id)
    # LangGraph counts a run that stopped at an interrupt as a success; the
    # thread is what says it waits.
    assert got.get("status") == "success", (
        f"a run stopped at an interrupt has status {got.get('status')!r}, expected 'success'"
    )
    status = client.threads.get(thread_id).get("status")
    assert status == "interrupted", f"its thread's status is {status!r}, expected 'interrupted'"
    passed(
        "a background run stopped at the interrupt: join shows __interrupt__, "
        "the run is 'success', the thread 'interrupted'"
    )


def step_cancel(client: Any) -> None:
    thread_id = client.threads.create()["thread_id"]
    run_id = client.runs.create(
        thread_id, GRAPH, input={"topic": "slow", "auto_approve": True, "sleep_ms": 5000}
    )["run_id"]
    time.sleep(0.3)
    started = time.monotonic()
    client.runs.cancel(thread_id, run_id, wait=True)
    took = time.monotonic() - started
    assert took < 4.0, f"runs.cancel(wait=True) took {took:.1f}s: the node did not stop early"
    got = client.runs.get(thread_id, run_id)
    assert got.get("status") == "interrupted", (
        f"a cancelled run has status {got.get('status')!r}, expected 'interrupted'"
    )
    passed(
        f"runs.cancel(wait=True) stops a sleeping run in {took:.1f}s; its status is 'interrupted'"
    )


def step_reconnect(client: Any) -> None:
    thread_id = client.threads.create()["thread_id"]
    run_id = client.runs.create(
        thread_id,
        GRAPH,
        input={"topic": "resume", "auto_approve": True, "sleep_ms": 300},
        stream_mode=["values", "updates"],
        stream_resumable=True,
    )["run_id"]
    # Without stream_mode the SDK sends `?stream_mode=` (empty): LangGraph then
    # streams every mode the run was created with, metadata included.
    first = parts_of(client.runs.join_stream(thread_id, run_id))
    assert len(first) >= 4, (
        f"join_stream() gave {len(first)} parts, expected the run's events:\n{describe(first)}"
    )
    ids = [p.id for p in first]
    assert all(ids), f"a resumable run's events must carry ids:\n{describe(first)}"
    keys = [event_id_key(i) for i in ids]
    assert keys == sorted(keys), f"event ids do not increase:\n{describe(first)}"
    if not ALLOW_REPEATED_IDS:
        assert len(set(ids)) == len(ids), f"repeated event ids:\n{describe(first)}"
    values = [p.data for p in first if p.event == "values"]
    assert values, f"join_stream() gave no values parts:\n{describe(first)}"
    final = values[-1]
    assert final.get("log") == ["plan", "approve", "act"], f"join_stream() ended at {final!r}"
    passed(f"runs.join_stream() streams a resumable run: {len(first)} parts with increasing ids")

    # Resume after an event in the middle whose id no other event shares.
    cut = next(
        (i for i in range(len(first) // 2 - 1, len(first) - 1) if ids.count(ids[i]) == 1), None
    )
    assert cut is not None, f"no event in the second half has an id of its own:\n{describe(first)}"
    second = parts_of(client.runs.join_stream(thread_id, run_id, last_event_id=first[cut].id))
    expected = [(p.event, p.id, p.data) for p in first[cut + 1 :]]
    got = [(p.event, p.id, p.data) for p in second]
    assert got == expected, (
        f"join_stream(last_event_id={first[cut].id!r}) should give exactly the events after it:\n"
        f"expected:\n{describe(first[cut + 1 :])}\ngot:\n{describe(second)}"
    )
    passed(f"runs.join_stream(last_event_id=...) replays exactly the {len(second)} events after it")


def step_not_found(client: Any) -> None:
    try:
        thread = client.threads.get(MISSING_THREAD)
    except NotFoundError as err:
        assert err.response.status_code == 404, (
            f"NotFoundError with status {err.response.status_code}"
        )
    else:
        raise AssertionError(f"threads.get() of a missing thread returned {thread!r}")
    passed("threads.get() of a missing thread raises NotFoundError (404)")


STEPS = [
    step_assistants,
    step_interrupt_resume_history,
    step_background_join,
    step_cancel,
    step_reconnect,
    step_not_found,
]


def main() -> int:
    url = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("REBOUND_SERVER_URL")
    if not url:
        print("usage: compat.py BASE_URL (or set REBOUND_SERVER_URL)", file=sys.stderr)
        return 2
    # api_key=None: never pick up a LangSmith key from the environment.
    client = get_sync_client(url=url, api_key=None, timeout=30)
    client.http.client.event_hooks["request"].append(LOG)
    for step in STEPS:
        try:
            step(client)
        except Exception as err:  # noqa: BLE001 - every failure is reported the same way
            traceback.print_exc()
            print(
                f"FAILED in {step.__name__}: {type(err).__name__}: {err}",
                file=sys.stderr,
                flush=True,
            )
            return 1
    print(f"all {len(STEPS)} steps passed against {url}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
