-- The checkpointer's tables (see crates/rebound-postgres/src/saver.rs).
--
-- checkpoint_threads: thread names mapped to small integers, so that the
-- key of every checkpoint and write row is 4 + 8 bytes, not the name.
CREATE TABLE checkpoint_threads (
    id   INTEGER GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name TEXT NOT NULL UNIQUE
);

-- checkpoints: one row per checkpoint, keyed by (thread, id). `id` and
-- `parent` are CheckpointId::as_u64 (below 2^63); `snapshot` tells a full
-- state from a delta over the parent. 8-byte columns first, then the two
-- 4-byte ones (no padding): a step beyond 2^31 is refused.
CREATE TABLE checkpoints (
    id       BIGINT  NOT NULL,
    parent   BIGINT,
    thread   INTEGER NOT NULL,
    step     INTEGER NOT NULL,
    snapshot BOOLEAN NOT NULL,
    state    BYTEA   NOT NULL,
    meta     BYTEA   NOT NULL,
    PRIMARY KEY (thread, id)
);

-- checkpoint_writes: pending writes, in write order per checkpoint: `seq`
-- comes from one sequence, assigned in the order of each batch's rows, so
-- concurrent writers never collide and a reader sorts by it.
CREATE TABLE checkpoint_writes (
    checkpoint BIGINT  NOT NULL,
    seq        BIGINT  GENERATED ALWAYS AS IDENTITY,
    thread     INTEGER NOT NULL,
    node       TEXT    NOT NULL,
    kind       TEXT    NOT NULL,
    key        TEXT    NOT NULL,
    value      BYTEA   NOT NULL,
    PRIMARY KEY (thread, checkpoint, seq)
);
