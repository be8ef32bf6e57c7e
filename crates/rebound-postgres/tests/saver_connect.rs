//! Connecting: a database that is down is retried a bounded number of
//! times, then a typed error; a wrong password fails at once without the
//! password in any text; a newer schema is refused by version.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod saver_common;

use std::time::{Duration, Instant};

use rebound_graph::checkpoint::{CheckpointError, Checkpointer};
use rebound_postgres::migrate::latest_version;
use rebound_postgres::testing::test_database;
use rebound_postgres::{PostgresError, PostgresOptions, PostgresSaver};

fn quick_retries(retries: u32) -> PostgresOptions {
    PostgresOptions::default()
        .with_connect_retries(retries)
        .with_retry_backoff(Duration::from_millis(20))
        .with_connect_timeout(Duration::from_secs(2))
}

/// The connect failure inside `error`: (attempts, location, whole text).
fn connect_failure(error: &CheckpointError) -> (u32, String, String) {
    match PostgresError::of(error) {
        Some(PostgresError::Connect {
            attempts, location, ..
        }) => {
            eprintln!("{error}");
            (*attempts, location.clone(), format!("{error} / {error:?}"))
        }
        _ => panic!("expected a connect failure, got {error:?}"),
    }
}

#[tokio::test]
async fn a_database_that_is_down_fails_after_the_bounded_retries() {
    // A port nothing listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("postgres://rebound:Down-S3cret@127.0.0.1:{port}/rebound");
    let start = Instant::now();
    let error = PostgresSaver::connect(&url, quick_retries(3))
        .await
        .unwrap_err();
    let elapsed = start.elapsed();
    let (attempts, location, text) = connect_failure(&error);
    assert_eq!(attempts, 4);
    assert_eq!(
        location,
        format!("postgres://rebound:***@127.0.0.1:{port}/rebound")
    );
    assert!(!text.contains("Down-S3cret"), "{text}");
    // Waited 20 + 40 + 80 ms between the attempts, and not much more.
    assert!(elapsed >= Duration::from_millis(140), "{elapsed:?}");
    assert!(elapsed < Duration::from_secs(5), "{elapsed:?}");
}

#[tokio::test]
async fn a_wrong_password_fails_at_once_without_showing_it() {
    let Some(db) = test_database().await.unwrap() else {
        return;
    };
    let password = "Wr0ng-S3cret-pw";
    let url = db
        .url
        .replacen("rebound:rebound@", &format!("rebound:{password}@"), 1);
    assert!(
        url.contains(password),
        "the test URL has the expected shape: {}",
        db.url
    );
    let start = Instant::now();
    let error = PostgresSaver::connect(&url, quick_retries(5))
        .await
        .unwrap_err();
    let (attempts, location, text) = connect_failure(&error);
    assert_eq!(attempts, 1, "an authentication failure is not retried");
    assert!(start.elapsed() < Duration::from_secs(5));
    assert!(location.contains("rebound:***@"), "{location}");
    assert!(!text.contains(password), "{text}");
    assert!(text.contains("password authentication failed"), "{text}");

    // A database that does not exist is not retried either.
    let missing = rebound_postgres::testing::with_database(&db.url, "no_such_database");
    let error = PostgresSaver::connect(&missing, quick_retries(5))
        .await
        .unwrap_err();
    let (attempts, _, text) = connect_failure(&error);
    assert_eq!(attempts, 1);
    assert!(!text.contains("rebound:rebound@"), "{text}");
}

#[tokio::test]
async fn a_newer_schema_is_refused_by_version() {
    let Some((db, saver)) = saver_common::fresh().await else {
        return;
    };
    // A pool shared with the application works too.
    PostgresSaver::from_pool(saver.pool().clone())
        .await
        .unwrap();
    sqlx::query("INSERT INTO rebound_schema (version, name) VALUES ($1, 'from the future')")
        .bind(latest_version() + 1)
        .execute(saver.pool())
        .await
        .unwrap();
    let error = PostgresSaver::connect(&db.url, PostgresOptions::default())
        .await
        .unwrap_err();
    eprintln!("{error}");
    match error {
        CheckpointError::Unusable { location, reason } => {
            let expected = format!(
                "version {}, newer than this build's {}",
                latest_version() + 1,
                latest_version()
            );
            assert!(reason.contains(&expected), "{reason}");
            assert!(!location.contains("rebound:rebound"), "{location}");
        }
        other => panic!("expected Unusable, got {other:?}"),
    }
}

/// A saver whose pooled connections PostgreSQL ended (a restart, a
/// failover) reads as ever: every read is tried again on another
/// connection, so an API server's first requests after a restart do not
/// fail, one per dead connection.
#[tokio::test]
async fn every_read_works_after_the_end_of_every_pooled_connection() {
    let Some(db) = test_database().await.unwrap() else {
        return;
    };
    let saver = PostgresSaver::connect(
        &format!("{}?application_name=cut%20saver", db.url),
        PostgresOptions::default().with_max_connections(3),
    )
    .await
    .unwrap();
    let ids = saver_common::ids(2);
    let first = saver_common::snapshot("t", ids[0], None, 0);
    let second = saver_common::delta("t", ids[1], Some(ids[0]), 1);
    let write = saver_common::write(
        "t",
        ids[1],
        "n",
        rebound_graph::checkpoint::WriteKind::Update,
        "",
        b"{}",
    );
    saver
        .put(vec![first.clone(), second.clone()], vec![write.clone()])
        .await
        .unwrap();
    let cut = || async {
        let ended =
            rebound_postgres::testing::end_idle_connections(saver.pool(), &db.url, "cut saver", 3)
                .await
                .unwrap();
        assert_eq!(ended, 3);
    };
    cut().await;
    assert_eq!(saver.get("t", None).await.unwrap(), Some(second.clone()));
    cut().await;
    assert_eq!(
        saver.get("t", Some(ids[0])).await.unwrap(),
        Some(first.clone())
    );
    cut().await;
    assert_eq!(
        saver.get_chain("t", ids[1]).await.unwrap(),
        [second.clone(), first.clone()]
    );
    cut().await;
    assert_eq!(saver.list("t", None, None).await.unwrap().len(), 2);
    cut().await;
    assert_eq!(saver.pending_writes("t", ids[1]).await.unwrap(), [write]);
    cut().await;
    assert_eq!(saver.threads().await.unwrap().len(), 1);
}
