//! Real PostgreSQL databases for tests (feature `testing`).
//!
//! [`test_database`] gives each test a database of its own, created in:
//!
//! * the server at `REBOUND_POSTGRES_URL`, when it is set (a URL whose user
//!   may create databases); otherwise
//! * a throwaway cluster that `scripts/postgres` starts once per test
//!   process, in a temporary directory, and stops (deleting the directory)
//!   once the process has exited.
//!
//! Without PostgreSQL installed, it prints why and returns `None` (the test
//! then skips), unless `REBOUND_REQUIRE_POSTGRES=1`, as on CI, when it
//! returns an error that fails the test.

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use sqlx::{Connection, PgConnection};

/// A database made for one test.
#[derive(Debug, Clone)]
pub struct TestDatabase {
    /// Its connection URL.
    pub url: String,
    /// Its name.
    pub name: String,
    /// The URL of the server's `postgres` database (to create more).
    pub admin_url: String,
}

/// Why no test database could be made while one is required.
#[derive(Debug, thiserror::Error)]
#[error("REBOUND_REQUIRE_POSTGRES=1 but no PostgreSQL database is available: {0}")]
pub struct Unavailable(pub String);

/// The process's cluster: its admin URL, or why there is none.
static CLUSTER: OnceLock<Result<String, String>> = OnceLock::new();

/// The directory of the cluster this process started, if it did.
static CLUSTER_DIR: OnceLock<PathBuf> = OnceLock::new();

/// A new, empty database, or `None` (printed) when PostgreSQL is not
/// available and not required.
pub async fn test_database() -> Result<Option<TestDatabase>, Unavailable> {
    let admin_url = match admin_url() {
        Ok(url) => url,
        Err(reason) => return skip(reason),
    };
    let name = format!("rebound_test_{}", uuid_like());
    let created = async {
        let mut conn = PgConnection::connect(&admin_url).await?;
        // The name is ours: letters, digits and underscores only.
        sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
            .execute(&mut conn)
            .await?;
        conn.close().await
    }
    .await;
    if let Err(error) = created {
        return skip(format!("cannot create a database: {error}"));
    }
    Ok(Some(TestDatabase {
        url: with_database(&admin_url, &name),
        name,
        admin_url,
    }))
}

/// The admin URL of the cluster tests use, starting it if needed.
pub fn admin_url() -> Result<String, String> {
    if let Ok(url) = std::env::var("REBOUND_POSTGRES_URL") {
        if !url.is_empty() {
            return Ok(url);
        }
    }
    CLUSTER.get_or_init(start_cluster).clone()
}

fn skip(reason: String) -> Result<Option<TestDatabase>, Unavailable> {
    if std::env::var("REBOUND_REQUIRE_POSTGRES").is_ok_and(|v| v == "1") {
        return Err(Unavailable(reason));
    }
    eprintln!("skipped: no PostgreSQL ({reason}); run scripts/postgres install");
    Ok(None)
}

/// `scripts/postgres` of this workspace.
fn script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scripts/postgres")
}

fn start_cluster() -> Result<String, String> {
    let dir =
        std::env::temp_dir().join(format!("rebound-pg-{}-{}", std::process::id(), uuid_like()));
    let output = Command::new("bash")
        .arg(script())
        .arg("start")
        .arg(&dir)
        .arg("--watch")
        .arg(std::process::id().to_string())
        .output()
        .map_err(|e| format!("cannot run scripts/postgres: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "scripts/postgres start failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    let url = String::from_utf8_lossy(&output.stdout).trim().to_string();
    if url.is_empty() {
        return Err("scripts/postgres start printed no URL".to_string());
    }
    let _ = CLUSTER_DIR.set(dir);
    Ok(url)
}

/// Restarts the throwaway cluster this process started (`pg_ctl restart
/// -m fast`, waiting until it accepts connections again): every session
/// of every client ends, and connections are refused meanwhile, as in a
/// database's restart or failover. `Err` when this process started no
/// cluster (its databases are `REBOUND_POSTGRES_URL`'s) or the restart
/// failed.
pub fn restart_cluster() -> Result<(), String> {
    let dir = CLUSTER_DIR
        .get()
        .ok_or("this process started no cluster (REBOUND_POSTGRES_URL is set)")?;
    // `pg_ctl` as `scripts/postgres` finds it and runs it: as the
    // cluster's owner, `postgres`, when running as root.
    const RESTART: &str = r#"set -e
        bin=$(dirname "$(readlink -f "$(command -v pg_ctl || ls -d /usr/lib/postgresql/*/bin/pg_ctl | sort -V | tail -n 1)")")
        if [ "$(id -u)" = 0 ]; then run="runuser -u postgres --"; else run=""; fi
        $run "$bin/pg_ctl" -D "$1/data" -l "$1/server.log" -m fast -w -t 60 restart > /dev/null"#;
    let output = Command::new("bash")
        .arg("-c")
        .arg(RESTART)
        .arg("restart_cluster")
        .arg(dir)
        .output()
        .map_err(|e| format!("cannot run pg_ctl: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "pg_ctl restart failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    Ok(())
}

/// Opens `n` connections of `pool` at once, hands them back idle, and has
/// PostgreSQL end every session named `application` (`pg_terminate_backend`,
/// through a connection of its own to `url`): the pool keeps `n` dead
/// connections, as after a restart or a failover. How many sessions ended.
pub async fn end_idle_connections(
    pool: &sqlx::PgPool,
    url: &str,
    application: &str,
    n: usize,
) -> Result<i64, sqlx::Error> {
    let mut held = Vec::with_capacity(n);
    for _ in 0..n {
        held.push(pool.acquire().await?);
    }
    drop(held);
    // The connections go back to the pool in tasks of their own.
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    let mut admin = PgConnection::connect(url).await?;
    let ended: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity
         WHERE application_name = $1) ended",
    )
    .bind(application)
    .fetch_one(&mut admin)
    .await?;
    admin.close().await?;
    Ok(ended)
}

/// `url` with its database replaced by `name`.
pub fn with_database(url: &str, name: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((base, query)) => (base, Some(query)),
        None => (url, None),
    };
    // The database is the path after the authority: `scheme://auth/db`.
    let after_scheme = base.find("://").map_or(0, |i| i + 3);
    let base = match base[after_scheme..].find('/') {
        Some(slash) => &base[..after_scheme + slash],
        None => base,
    };
    match query {
        Some(query) => format!("{base}/{name}?{query}"),
        None => format!("{base}/{name}"),
    }
}

/// A unique lowercase name part: time and a counter, no dependency.
fn uuid_like() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!(
        "{nanos:x}_{}_{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    )
}

#[cfg(test)]
mod tests {
    use super::with_database;

    #[test]
    fn replaces_the_database_of_a_url() {
        assert_eq!(
            with_database("postgres://u:p@127.0.0.1:5432/postgres", "t1"),
            "postgres://u:p@127.0.0.1:5432/t1"
        );
        assert_eq!(
            with_database("postgres://u:p@h:1/postgres?sslmode=disable", "t2"),
            "postgres://u:p@h:1/t2?sslmode=disable"
        );
        assert_eq!(with_database("postgres://h", "t3"), "postgres://h/t3");
    }
}
