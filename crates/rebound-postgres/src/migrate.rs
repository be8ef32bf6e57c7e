//! The schema: embedded, numbered migrations applied in order.
//!
//! Written here rather than with sqlx's `migrate!`: sqlx's `migrate` and
//! `macros` features pull in sqlx-sqlite, whose libsqlite3-sys cannot share
//! a build with rusqlite's (one `links = "sqlite3"` per build).
//!
//! `rebound_schema` records each applied migration. Migrating takes a
//! transaction-scoped advisory lock, so that many processes starting at
//! once apply each migration exactly once; a database whose schema is newer
//! than this build's is refused, named, before anything is changed.

use sqlx::{PgPool, Row};

/// One step of the schema.
#[derive(Debug, Clone, Copy)]
pub struct Migration {
    /// Its version: 1, 2, 3... in order.
    pub version: i64,
    /// What it creates.
    pub name: &'static str,
    /// Its SQL (several statements).
    pub sql: &'static str,
}

/// Every migration of this build, in order. Add a migration by appending
/// it here (never edit one that has shipped).
pub const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 1,
        name: "checkpoints",
        sql: include_str!("../migrations/0001_checkpoints.sql"),
    },
    Migration {
        version: 2,
        name: "queue",
        sql: include_str!("../migrations/0002_queue.sql"),
    },
];

/// The schema version of this build.
pub fn latest_version() -> i64 {
    MIGRATIONS.last().map_or(0, |m| m.version)
}

/// An arbitrary constant: the advisory lock key that serializes migrations.
const MIGRATION_LOCK: i64 = 0x7265_626f_756e_6401;

/// Why the schema could not be brought up to date.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MigrateError {
    /// The database was migrated by a newer rebound.
    #[error(
        "the database's rebound schema is version {found}, newer than this build's {supported}: upgrade rebound"
    )]
    Newer {
        /// The version found.
        found: i64,
        /// The newest this build knows.
        supported: i64,
    },
    /// A migration failed (for example, a table of the same name that is
    /// not rebound's already exists).
    #[error("migration {version} ({name}) failed: {source}")]
    Failed {
        /// Its version.
        version: i64,
        /// Its name.
        name: &'static str,
        /// The database's error.
        #[source]
        source: sqlx::Error,
    },
    /// The database could not be read or locked.
    #[error("cannot read the rebound schema version: {0}")]
    Database(#[from] sqlx::Error),
}

/// Applies the migrations `pool`'s database lacks; the schema version it
/// ends at.
pub async fn migrate(pool: &PgPool) -> Result<i64, MigrateError> {
    let mut tx = pool.begin().await?;
    sqlx::query("SELECT pg_advisory_xact_lock($1)")
        .bind(MIGRATION_LOCK)
        .execute(&mut *tx)
        .await?;
    sqlx::query(
        "CREATE TABLE IF NOT EXISTS rebound_schema (
            version    BIGINT PRIMARY KEY,
            name       TEXT NOT NULL,
            applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
        )",
    )
    .execute(&mut *tx)
    .await?;
    let found: i64 = sqlx::query("SELECT COALESCE(MAX(version), 0) FROM rebound_schema")
        .fetch_one(&mut *tx)
        .await?
        .try_get(0)?;
    let supported = latest_version();
    if found > supported {
        return Err(MigrateError::Newer { found, supported });
    }
    for migration in MIGRATIONS.iter().filter(|m| m.version > found) {
        let failed = |source| MigrateError::Failed {
            version: migration.version,
            name: migration.name,
            source,
        };
        sqlx::raw_sql(migration.sql)
            .execute(&mut *tx)
            .await
            .map_err(failed)?;
        sqlx::query("INSERT INTO rebound_schema (version, name) VALUES ($1, $2)")
            .bind(migration.version)
            .bind(migration.name)
            .execute(&mut *tx)
            .await
            .map_err(failed)?;
    }
    tx.commit().await?;
    Ok(supported)
}
