//! Statements tried again when the pooled connection they were given turns
//! out to be gone.
//!
//! A connection that PostgreSQL ended (`pg_terminate_backend`, a restart, a
//! failover) or that the network cut stays in the pool, idle, until it is
//! next used: the pool pings only connections idle for a while (a ping per
//! statement would double the round trips of a put), so the next statement
//! on it fails, before PostgreSQL ran it, and the pool drops it. After a
//! restart every pooled connection fails that way, one statement each.
//! Statements that may run twice (every read, the fenced queue statements)
//! are tried again on another connection instead of failing their caller:
//! an API server's reads, a worker's heartbeat.

use std::future::Future;

use sqlx::PgPool;

/// Runs `statement`, again while it fails with an error that `lost` says
/// is a lost connection: at most once more than `pool` may hold
/// connections (each failed try drops one dead connection from the pool).
/// Only for statements that may run twice: a lost connection may have run
/// the statement before it was lost.
pub(crate) async fn when_lost<T, E, F, Fut>(
    pool: &PgPool,
    lost: impl Fn(&E) -> bool,
    mut statement: F,
) -> Result<T, E>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, E>>,
{
    let tries = pool.options().get_max_connections().saturating_add(1);
    let mut tried = 0;
    loop {
        tried += 1;
        match statement().await {
            Err(error) if tried < tries && lost(&error) => continue,
            done => return done,
        }
    }
}
