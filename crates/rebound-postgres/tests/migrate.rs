//! The schema on a real PostgreSQL: migrations apply once, also when many
//! processes start at once, and a newer schema is refused by name.

use rebound_postgres::migrate::{latest_version, migrate, MigrateError};
use rebound_postgres::testing::test_database;
use sqlx::PgPool;

#[tokio::test]
async fn migrations_apply_once_and_a_newer_schema_is_refused(
) -> Result<(), Box<dyn std::error::Error>> {
    let Some(db) = test_database().await? else {
        return Ok(());
    };
    let pool = PgPool::connect(&db.url).await?;
    // Concurrent migrators (servers and workers starting together).
    let (a, b, c) = tokio::join!(migrate(&pool), migrate(&pool), migrate(&pool));
    assert_eq!(
        (a?, b?, c?),
        (latest_version(), latest_version(), latest_version())
    );
    let applied: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM rebound_schema")
        .fetch_one(&pool)
        .await?;
    assert_eq!(applied, latest_version());

    sqlx::query("INSERT INTO rebound_schema (version, name) VALUES ($1, 'from the future')")
        .bind(latest_version() + 1)
        .execute(&pool)
        .await?;
    match migrate(&pool).await {
        Err(MigrateError::Newer { found, supported }) => {
            assert_eq!((found, supported), (latest_version() + 1, latest_version()));
        }
        other => panic!("expected a refusal of the newer schema, got {other:?}"),
    }
    Ok(())
}
