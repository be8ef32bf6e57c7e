-- The run queue's tables: thread records, runs (the queue, with their
-- leases) and each run's event log. See src/queue/mod.rs.

CREATE TABLE rebound_threads (
    thread_id  TEXT PRIMARY KEY,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    status     TEXT NOT NULL DEFAULT 'idle'
               CHECK (status IN ('idle', 'busy', 'interrupted', 'error')),
    metadata   JSONB NOT NULL DEFAULT '{}'::jsonb
);
-- `search_threads`: metadata containment (`@>`), newest first.
CREATE INDEX rebound_threads_metadata ON rebound_threads USING gin (metadata jsonb_path_ops);
CREATE INDEX rebound_threads_by_updated ON rebound_threads (updated_at DESC);

CREATE TABLE rebound_runs (
    -- The queue's order: FIFO overall and per thread. A requeued run keeps
    -- its seq, so it stays ahead of the later runs of its thread.
    seq                BIGSERIAL PRIMARY KEY,
    run_id             TEXT NOT NULL UNIQUE,
    thread_id          TEXT NOT NULL,
    assistant_id       TEXT NOT NULL,
    status             TEXT NOT NULL DEFAULT 'pending'
                       CHECK (status IN ('pending', 'running', 'success', 'error', 'timeout', 'interrupted')),
    created_at         TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at         TIMESTAMPTZ NOT NULL DEFAULT now(),
    -- Claims so far (each claim counts one).
    attempt            INTEGER NOT NULL DEFAULT 0,
    multitask_strategy TEXT NOT NULL DEFAULT 'enqueue',
    metadata           JSONB NOT NULL DEFAULT '{}'::jsonb,
    kwargs             JSONB NOT NULL DEFAULT '{}'::jsonb,
    base_checkpoint    TEXT,
    error              TEXT,
    -- The lease: the worker holding a running run, the epoch that fences
    -- its writes (incremented by every claim), and when it lapses unless
    -- renewed (the database's clock).
    owner              TEXT,
    epoch              BIGINT NOT NULL DEFAULT 0,
    lease_expires_at   TIMESTAMPTZ,
    -- Not claimable before (the backoff after an expired lease).
    available_at       TIMESTAMPTZ NOT NULL DEFAULT now(),
    -- Leases that lapsed and were reaped.
    expirations        INTEGER NOT NULL DEFAULT 0,
    -- A cancel an API server asked for, delivered by the next heartbeat.
    cancel_requested   TEXT CHECK (cancel_requested IN ('interrupt', 'rollback'))
);
-- The hard backstop of the claim: at most one running run per thread, even
-- if the claim's own conditions were ever wrong.
CREATE UNIQUE INDEX rebound_runs_one_running_per_thread
    ON rebound_runs (thread_id) WHERE status = 'running';
-- The claim's scan (oldest pending first) and its per-thread FIFO check.
CREATE INDEX rebound_runs_pending ON rebound_runs (seq) WHERE status = 'pending';
CREATE INDEX rebound_runs_pending_by_thread
    ON rebound_runs (thread_id, seq) WHERE status = 'pending';
-- The reaper's scan.
CREATE INDEX rebound_runs_leases ON rebound_runs (lease_expires_at) WHERE status = 'running';
-- `list_runs`, `active_runs`, `delete_thread`.
CREATE INDEX rebound_runs_by_thread ON rebound_runs (thread_id, seq);

CREATE TABLE rebound_run_events (
    run_id TEXT NOT NULL REFERENCES rebound_runs (run_id) ON DELETE CASCADE,
    seq    BIGINT NOT NULL,
    event  TEXT NOT NULL,
    data   TEXT NOT NULL,
    PRIMARY KEY (run_id, seq)
);
