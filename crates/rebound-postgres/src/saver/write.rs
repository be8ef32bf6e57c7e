//! Writing batches: one statement (multi-row inserts from arrays) in its
//! own implicit transaction, or, for a guarded thread, that statement in a
//! transaction that checks the guard first.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use rebound_graph::checkpoint::{CheckpointError, PendingWrite, StoredCheckpoint};
use sqlx::postgres::PgArguments;
use sqlx::query::Query;
use sqlx::{Postgres, Row};

use super::PostgresSaver;
use crate::error::{connection_lost, from_sqlx, id_to_sql, to_integer, PostgresError};
use crate::guard::WriteGuard;

/// The checkpoint columns, $1..$7 (from $first).
macro_rules! insert_checkpoints {
    ($a:literal, $b:literal, $c:literal, $d:literal, $e:literal, $f:literal, $g:literal) => {
        concat!(
            "INSERT INTO checkpoints (thread, id, parent, step, snapshot, state, meta)
             SELECT * FROM UNNEST($",
            $a,
            "::int4[], $",
            $b,
            "::int8[], $",
            $c,
            "::int8[], $",
            $d,
            "::int4[], $",
            $e,
            "::bool[], $",
            $f,
            "::bytea[], $",
            $g,
            "::bytea[])"
        )
    };
}
/// The pending-write columns; rows take their `seq` in array order.
macro_rules! insert_writes {
    ($a:literal, $b:literal, $c:literal, $d:literal, $e:literal, $f:literal) => {
        concat!(
            "INSERT INTO checkpoint_writes (thread, checkpoint, node, kind, key, value)
             SELECT w.thread, w.checkpoint, w.node, w.kind, w.key, w.value
             FROM UNNEST($",
            $a,
            "::int4[], $",
            $b,
            "::int8[], $",
            $c,
            "::text[], $",
            $d,
            "::text[], $",
            $e,
            "::text[], $",
            $f,
            "::bytea[]) WITH ORDINALITY AS w(thread, checkpoint, node, kind, key, value, ord)
             ORDER BY w.ord"
        )
    };
}
const INSERT_CHECKPOINTS: &str = insert_checkpoints!("1", "2", "3", "4", "5", "6", "7");
const INSERT_WRITES: &str = insert_writes!("1", "2", "3", "4", "5", "6");
/// Both in one statement: a data-modifying CTE runs to completion whether
/// or not its output is read.
const INSERT_BOTH: &str = concat!(
    "WITH c AS (",
    insert_checkpoints!("1", "2", "3", "4", "5", "6", "7"),
    ") ",
    insert_writes!("8", "9", "10", "11", "12", "13")
);
/// The keys of threads by name, added if missing ($1: distinct names). `DO
/// UPDATE` (not `DO NOTHING`) returns the row also when a concurrent
/// transaction added it first.
const UPSERT_THREADS: &str = "
    WITH found AS (SELECT id, name FROM checkpoint_threads WHERE name = ANY($1)),
         added AS (
             INSERT INTO checkpoint_threads (name)
             SELECT n FROM UNNEST($1::text[]) AS n WHERE n NOT IN (SELECT name FROM found)
             ON CONFLICT (name) DO UPDATE SET name = EXCLUDED.name
             RETURNING id, name)
    SELECT id, name FROM found UNION ALL SELECT id, name FROM added";
/// Which of the (thread, id) pairs are stored already.
const SELECT_EXISTING: &str = "
    SELECT t.name, c.id FROM checkpoints AS c JOIN checkpoint_threads AS t ON t.id = c.thread
    WHERE (c.thread, c.id) IN (SELECT * FROM UNNEST($1::int4[], $2::int8[])) LIMIT 1";

/// A batch as column arrays.
#[derive(Default)]
struct Columns<'a> {
    c_thread: Vec<i32>,
    c_id: Vec<i64>,
    c_parent: Vec<Option<i64>>,
    c_step: Vec<i32>,
    c_snapshot: Vec<bool>,
    c_state: Vec<&'a [u8]>,
    c_meta: Vec<&'a [u8]>,
    w_thread: Vec<i32>,
    w_checkpoint: Vec<i64>,
    w_node: Vec<&'a str>,
    w_kind: Vec<&'static str>,
    w_key: Vec<&'a str>,
    w_value: Vec<&'a [u8]>,
}

impl<'a> Columns<'a> {
    fn encode(
        checkpoints: &'a [StoredCheckpoint],
        writes: &'a [PendingWrite],
        keys: &HashMap<String, i32>,
    ) -> Result<Self, CheckpointError> {
        let key = |name: &str| {
            keys.get(name).copied().ok_or_else(|| {
                CheckpointError::Corrupt(format!("thread {name:?} has no key after it was added"))
            })
        };
        let mut columns = Columns::default();
        for checkpoint in checkpoints {
            columns.c_thread.push(key(&checkpoint.thread_id)?);
            columns.c_id.push(id_to_sql(checkpoint.id)?);
            columns
                .c_parent
                .push(checkpoint.parent.map(id_to_sql).transpose()?);
            columns.c_step.push(to_integer("step", checkpoint.step)?);
            columns.c_snapshot.push(checkpoint.state.is_snapshot());
            columns.c_state.push(checkpoint.state.bytes());
            columns.c_meta.push(&checkpoint.meta);
        }
        for write in writes {
            columns.w_thread.push(key(&write.thread_id)?);
            columns.w_checkpoint.push(id_to_sql(write.checkpoint)?);
            columns.w_node.push(&write.node);
            columns.w_kind.push(write.kind.as_str());
            columns.w_key.push(&write.key);
            columns.w_value.push(&write.value);
        }
        Ok(columns)
    }

    /// The one statement that inserts the batch.
    fn query(&self) -> Query<'_, Postgres, PgArguments> {
        match (self.c_id.is_empty(), self.w_thread.is_empty()) {
            (false, true) => self.bind_checkpoints(sqlx::query(INSERT_CHECKPOINTS)),
            (true, _) => self.bind_writes(sqlx::query(INSERT_WRITES)),
            (false, false) => self.bind_writes(self.bind_checkpoints(sqlx::query(INSERT_BOTH))),
        }
    }

    fn bind_checkpoints<'q>(
        &'q self,
        query: Query<'q, Postgres, PgArguments>,
    ) -> Query<'q, Postgres, PgArguments> {
        query
            .bind(&self.c_thread)
            .bind(&self.c_id)
            .bind(&self.c_parent)
            .bind(&self.c_step)
            .bind(&self.c_snapshot)
            .bind(&self.c_state)
            .bind(&self.c_meta)
    }

    fn bind_writes<'q>(
        &'q self,
        query: Query<'q, Postgres, PgArguments>,
    ) -> Query<'q, Postgres, PgArguments> {
        query
            .bind(&self.w_thread)
            .bind(&self.w_checkpoint)
            .bind(&self.w_node)
            .bind(&self.w_kind)
            .bind(&self.w_key)
            .bind(&self.w_value)
    }
}

/// How one try of a guarded batch ended, short of a guard refusing it.
enum GuardedTry {
    /// Committed.
    Done,
    /// Failed before its commit was sent: nothing was written.
    Failed(sqlx::Error),
    /// Its commit failed: it may have been written.
    CommitFailed(sqlx::Error),
}

impl PostgresSaver {
    /// Stores a batch atomically (see [`PostgresSaver`]).
    pub(super) async fn write(
        &self,
        checkpoints: Vec<StoredCheckpoint>,
        writes: Vec<PendingWrite>,
    ) -> Result<(), CheckpointError> {
        if checkpoints.is_empty() && writes.is_empty() {
            return Ok(());
        }
        let mut names: Vec<&str> = Vec::new();
        for name in checkpoints
            .iter()
            .map(|c| c.thread_id.as_str())
            .chain(writes.iter().map(|w| w.thread_id.as_str()))
        {
            if !names.contains(&name) {
                names.push(name);
            }
        }
        let keys = self.thread_keys(&names).await?;
        let columns = Columns::encode(&checkpoints, &writes, &keys)?;
        let guards = self.guards_of(&names);
        let held = match names.as_slice() {
            [name] if guards.is_empty() => self.held_connection(name),
            _ => None,
        };
        let inserted = if let Some(conn) = held {
            // The held thread's own connection: no pool round trip (sqlx
            // pings a pooled connection each time it comes back), and a
            // write after the session lost its lock fails instead of
            // landing unexcluded.
            let mut conn = conn.lock().await;
            match columns.query().execute(&mut **conn).await {
                Err(error) if connection_lost(&error) => {
                    return Err(PostgresError::LockLost {
                        thread_id: names[0].to_string(),
                        reason: error.to_string(),
                    }
                    .into());
                }
                result => result.map(|_| ()),
            }
        } else if guards.is_empty() {
            columns.query().execute(&self.pool).await.map(|_| ())
        } else {
            self.write_guarded(&columns, &guards).await?
        };
        match inserted {
            Ok(()) => Ok(()),
            Err(error) if is_duplicate_checkpoint(&error) => {
                Err(self.duplicate(&checkpoints, &columns, error).await)
            }
            Err(error) => Err(from_sqlx(error)),
        }
    }

    /// The batch in a transaction that checks every guard first. The outer
    /// result is the guard's verdict (or a failure to check it); the inner
    /// one the insert's. A try whose connection turns out lost before its
    /// commit (PostgreSQL ended the session, the network cut it: nothing
    /// was written) is made again on another connection, as many times as
    /// the pool may hold dead ones; one whose commit was lost is not (it
    /// may have been written).
    async fn write_guarded(
        &self,
        columns: &Columns<'_>,
        guards: &[(String, Arc<dyn WriteGuard>)],
    ) -> Result<Result<(), sqlx::Error>, CheckpointError> {
        let tries = self.pool.options().get_max_connections().saturating_add(1);
        let mut tried = 0;
        loop {
            tried += 1;
            match self.try_guarded(columns, guards).await? {
                GuardedTry::Failed(error) if tried < tries && connection_lost(&error) => {}
                GuardedTry::Failed(error) | GuardedTry::CommitFailed(error) => {
                    return Ok(Err(error))
                }
                GuardedTry::Done => return Ok(Ok(())),
            }
        }
    }

    /// One try of [`PostgresSaver::write_guarded`].
    async fn try_guarded(
        &self,
        columns: &Columns<'_>,
        guards: &[(String, Arc<dyn WriteGuard>)],
    ) -> Result<GuardedTry, CheckpointError> {
        let mut tx = match self.pool.begin().await {
            Ok(tx) => tx,
            Err(error) => return Ok(GuardedTry::Failed(error)),
        };
        for (thread_id, guard) in guards {
            match guard.holds(&mut tx).await {
                Ok(true) => {}
                Ok(false) => {
                    // Dropping `tx` rolls it back; say so explicitly all the same.
                    let _ = tx.rollback().await;
                    return Err(PostgresError::Fenced {
                        thread_id: thread_id.clone(),
                        guard: guard.describe(),
                    }
                    .into());
                }
                Err(error) => return Ok(GuardedTry::Failed(error)),
            }
        }
        if let Err(error) = columns.query().execute(&mut *tx).await {
            return Ok(GuardedTry::Failed(error));
        }
        Ok(match tx.commit().await {
            Ok(()) => GuardedTry::Done,
            Err(error) => GuardedTry::CommitFailed(error),
        })
    }

    /// The guards of the threads among `names`.
    fn guards_of(&self, names: &[&str]) -> Vec<(String, Arc<dyn WriteGuard>)> {
        let guards = super::read_lock(&self.guards);
        if guards.is_empty() {
            return Vec::new();
        }
        names
            .iter()
            .filter_map(|name| Some((name.to_string(), Arc::clone(guards.get(*name)?))))
            .collect()
    }

    /// The keys of the threads `names` (distinct), added if missing: from
    /// the saver's cache, else in one statement.
    async fn thread_keys(&self, names: &[&str]) -> Result<HashMap<String, i32>, CheckpointError> {
        let mut keys = HashMap::with_capacity(names.len());
        let mut missing = Vec::new();
        {
            let cache = super::read_lock(&self.thread_keys);
            for name in names {
                match cache.get(*name) {
                    Some(key) => {
                        keys.insert(name.to_string(), *key);
                    }
                    None => missing.push(*name),
                }
            }
        }
        if missing.is_empty() {
            return Ok(keys);
        }
        // An upsert: safe to run twice.
        let rows = self
            .reading(|| {
                sqlx::query(UPSERT_THREADS)
                    .bind(&missing)
                    .fetch_all(&self.pool)
            })
            .await?;
        let mut cache = super::write_lock(&self.thread_keys);
        for row in rows {
            let key: i32 = row.try_get(0).map_err(from_sqlx)?;
            let name: String = row.try_get(1).map_err(from_sqlx)?;
            cache.insert(name.clone(), key);
            keys.insert(name, key);
        }
        Ok(keys)
    }

    /// The error for a batch that hit the checkpoints' primary key: which
    /// checkpoint was already stored (in the batch itself or before).
    async fn duplicate(
        &self,
        checkpoints: &[StoredCheckpoint],
        columns: &Columns<'_>,
        error: sqlx::Error,
    ) -> CheckpointError {
        let mut seen = HashSet::new();
        for checkpoint in checkpoints {
            if !seen.insert((checkpoint.thread_id.as_str(), checkpoint.id)) {
                return PostgresError::DuplicateCheckpoint {
                    thread_id: checkpoint.thread_id.clone(),
                    id: checkpoint.id,
                }
                .into();
            }
        }
        let found = sqlx::query(SELECT_EXISTING)
            .bind(&columns.c_thread)
            .bind(&columns.c_id)
            .fetch_optional(&self.pool)
            .await;
        let Ok(Some(row)) = found else {
            return from_sqlx(error);
        };
        match (row.try_get::<String, _>(0), row.try_get::<i64, _>(1)) {
            (Ok(thread_id), Ok(id)) => PostgresError::DuplicateCheckpoint {
                thread_id,
                id: rebound_graph::checkpoint::CheckpointId::from_u64(id.unsigned_abs()),
            }
            .into(),
            _ => from_sqlx(error),
        }
    }
}

/// Whether `error` is a violation of the checkpoints' primary key.
fn is_duplicate_checkpoint(error: &sqlx::Error) -> bool {
    match error {
        sqlx::Error::Database(db) => {
            db.is_unique_violation() && db.constraint() == Some("checkpoints_pkey")
        }
        _ => false,
    }
}
