//! Node failures: retry policy (attempts, permanent errors, predicates,
//! backoff), timeouts, caught panics, and cancellation.

// Helpers outside #[test] functions unwrap too; clippy.toml only exempts test bodies.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rebound_graph::{
    CancellationToken, Event, GraphError, NodeContext, NodeError, NodeErrorKind, NodeOptions,
    RetryPolicy, RunConfig, State, StateGraph, END, START,
};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, Serialize, Deserialize, State)]
struct S {
    #[state(append)]
    log: Vec<String>,
}

fn ok(_: &S, ctx: &NodeContext) -> Result<SUpdate, NodeError> {
    Ok(SUpdate::default().log(vec![ctx.node().to_string()]))
}

/// START -> before -> target -> END, so that `target` runs at step 1.
fn with_target<F>(configure: F) -> StateGraph<S>
where
    F: FnOnce(&mut StateGraph<S>),
{
    let mut graph = StateGraph::<S>::new();
    graph
        .add_sync_node("before", ok)
        .add_edge(START, "before")
        .add_edge("before", "target")
        .add_edge("target", END);
    configure(&mut graph);
    graph
}

struct NodeFailure {
    node: String,
    step: u64,
    attempt: u32,
    kind: NodeErrorKind,
    message: String,
}

fn node_failure(result: Result<S, GraphError>) -> NodeFailure {
    match result {
        Err(GraphError::Node {
            node,
            step,
            attempt,
            kind,
            source,
        }) => NodeFailure {
            node,
            step,
            attempt,
            kind,
            message: source.to_string(),
        },
        other => panic!("expected a node failure, got {other:?}"),
    }
}

async fn collect(mut rx: tokio::sync::mpsc::UnboundedReceiver<Event>) -> Vec<Event> {
    let mut events = Vec::new();
    while let Some(event) = rx.recv().await {
        events.push(event);
    }
    events
}

// ---- Retry -----------------------------------------------------------------

#[tokio::test]
async fn fails_twice_then_succeeds_with_three_attempts() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = Arc::clone(&seen);
    let graph = with_target(move |g| {
        g.add_node("target", move |_, ctx: NodeContext| {
            let record = Arc::clone(&record);
            async move {
                record.lock().unwrap().push(ctx.attempt());
                if ctx.attempt() < 3 {
                    Err(NodeError::msg(format!("flaky {}", ctx.attempt())))
                } else {
                    Ok(SUpdate::default().log(vec![format!("target#{}", ctx.attempt())]))
                }
            }
        })
        .configure_node(
            "target",
            NodeOptions::new().retry(RetryPolicy::new(3).initial_backoff(Duration::from_millis(1))),
        );
    });
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let out = graph
        .compile()
        .unwrap()
        .invoke(S::default(), RunConfig::new().with_events(tx))
        .await
        .unwrap();
    assert_eq!(out.log, ["before", "target#3"]);
    assert_eq!(*seen.lock().unwrap(), [1, 2, 3]);

    let events = collect(rx).await;
    let started: Vec<u32> = events
        .iter()
        .filter_map(|e| match e {
            Event::NodeStarted { node, attempt, .. } if &**node == "target" => Some(*attempt),
            _ => None,
        })
        .collect();
    assert_eq!(started, [1, 2, 3]);
    let retries: Vec<(u32, u64, Duration, String)> = events
        .iter()
        .filter_map(|e| match e {
            Event::Retry {
                node,
                step,
                attempt,
                delay,
                error,
            } => {
                assert_eq!(&**node, "target");
                Some((*attempt, *step, *delay, error.clone()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(retries.len(), 2);
    assert_eq!((retries[0].0, retries[0].1), (1, 1));
    assert_eq!((retries[1].0, retries[1].1), (2, 1));
    assert_eq!(retries[0].3, "flaky 1");
    assert_eq!(retries[1].3, "flaky 2");
    // Default jitter: between half and all of 1 ms, then of 2 ms.
    assert!(retries[0].2 >= Duration::from_micros(500) && retries[0].2 <= Duration::from_millis(1));
    assert!(retries[1].2 >= Duration::from_millis(1) && retries[1].2 <= Duration::from_millis(2));
    let finished = events.iter().find_map(|e| match e {
        Event::NodeFinished { node, attempt, .. } if &**node == "target" => Some(*attempt),
        _ => None,
    });
    assert_eq!(finished, Some(3));
}

#[tokio::test]
async fn permanent_error_is_not_retried() {
    let calls = Arc::new(AtomicU32::new(0));
    let counter = Arc::clone(&calls);
    let graph = with_target(move |g| {
        g.add_sync_node("target", move |_, _| {
            counter.fetch_add(1, Ordering::SeqCst);
            Err::<SUpdate, _>(NodeError::msg("bad input").permanent())
        })
        .configure_node(
            "target",
            NodeOptions::new().retry(RetryPolicy::new(5).initial_backoff(Duration::ZERO)),
        );
    });
    let failure = node_failure(
        graph
            .compile()
            .unwrap()
            .invoke(S::default(), RunConfig::new())
            .await,
    );
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    assert_eq!(failure.node, "target");
    assert_eq!(failure.step, 1);
    assert_eq!(failure.attempt, 1);
    assert_eq!(failure.kind, NodeErrorKind::Failed);
    assert_eq!(failure.message, "bad input");
}

#[tokio::test]
async fn exhausted_retries_report_the_last_attempt() {
    let calls = Arc::new(AtomicU32::new(0));
    let counter = Arc::clone(&calls);
    let graph = with_target(move |g| {
        g.add_sync_node("target", move |_, ctx| {
            counter.fetch_add(1, Ordering::SeqCst);
            Err::<SUpdate, _>(NodeError::msg(format!("still broken on {}", ctx.attempt())))
        })
        .configure_node(
            "target",
            NodeOptions::new().retry(
                RetryPolicy::new(3)
                    .initial_backoff(Duration::from_millis(1))
                    .jitter(false),
            ),
        );
    });
    let result = graph
        .compile()
        .unwrap()
        .invoke(S::default(), RunConfig::new())
        .await;
    let message = result.as_ref().unwrap_err().to_string();
    assert_eq!(
        message,
        "node \"target\" failed at step 1 (attempt 3): still broken on 3"
    );
    let failure = node_failure(result);
    assert_eq!(calls.load(Ordering::SeqCst), 3);
    assert_eq!(
        (
            failure.node.as_str(),
            failure.step,
            failure.attempt,
            failure.kind
        ),
        ("target", 1, 3, NodeErrorKind::Failed)
    );
}

#[tokio::test]
async fn without_a_policy_nothing_is_retried() {
    let calls = Arc::new(AtomicU32::new(0));
    let counter = Arc::clone(&calls);
    let graph = with_target(move |g| {
        g.add_sync_node("target", move |_, _| {
            counter.fetch_add(1, Ordering::SeqCst);
            Err::<SUpdate, _>(NodeError::msg("once"))
        });
    });
    let failure = node_failure(
        graph
            .compile()
            .unwrap()
            .invoke(S::default(), RunConfig::new())
            .await,
    );
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    assert_eq!(failure.attempt, 1);
}

#[tokio::test]
async fn custom_retry_predicate_is_honored() {
    let calls = Arc::new(AtomicU32::new(0));
    let counter = Arc::clone(&calls);
    let graph = with_target(move |g| {
        g.add_sync_node("target", move |_, _| {
            let n = counter.fetch_add(1, Ordering::SeqCst) + 1;
            // 1: transient (retried), 2: fatal (not retried by the predicate)
            Err::<SUpdate, _>(NodeError::msg(if n == 1 {
                "transient glitch"
            } else {
                "fatal"
            }))
        })
        .configure_node(
            "target",
            NodeOptions::new().retry(
                RetryPolicy::new(10)
                    .initial_backoff(Duration::ZERO)
                    .retry_on(|e| e.to_string().contains("transient")),
            ),
        );
    });
    let failure = node_failure(
        graph
            .compile()
            .unwrap()
            .invoke(S::default(), RunConfig::new())
            .await,
    );
    assert_eq!(calls.load(Ordering::SeqCst), 2);
    assert_eq!(failure.attempt, 2);
    assert_eq!(failure.message, "fatal");
}

#[tokio::test]
async fn predicate_can_refuse_everything() {
    let calls = Arc::new(AtomicU32::new(0));
    let counter = Arc::clone(&calls);
    let graph = with_target(move |g| {
        g.add_sync_node("target", move |_, _| {
            counter.fetch_add(1, Ordering::SeqCst);
            Err::<SUpdate, _>(NodeError::msg("x"))
        })
        .configure_node(
            "target",
            NodeOptions::new().retry(RetryPolicy::new(4).retry_on(|_| false)),
        );
    });
    let failure = node_failure(
        graph
            .compile()
            .unwrap()
            .invoke(S::default(), RunConfig::new())
            .await,
    );
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    assert_eq!(failure.attempt, 1);
}

/// `NodeError::permanent` is documented as "An error that no retry policy
/// retries", but a custom `retry_on` predicate replaces the retryable check
/// entirely, so a permanent error is retried by such a policy.
#[tokio::test]
async fn permanent_error_is_not_retried_by_a_custom_predicate_either() {
    let calls = Arc::new(AtomicU32::new(0));
    let counter = Arc::clone(&calls);
    let graph = with_target(move |g| {
        g.add_sync_node("target", move |_, _| {
            counter.fetch_add(1, Ordering::SeqCst);
            Err::<SUpdate, _>(NodeError::msg("do not retry me").permanent())
        })
        .configure_node(
            "target",
            NodeOptions::new().retry(
                RetryPolicy::new(3)
                    .initial_backoff(Duration::ZERO)
                    .retry_on(|e| e.kind() == NodeErrorKind::Failed),
            ),
        );
    });
    let result = graph
        .compile()
        .unwrap()
        .invoke(S::default(), RunConfig::new())
        .await;
    assert!(result.is_err());
    assert_eq!(
        calls.load(Ordering::SeqCst),
        1,
        "a permanent error must not be retried, whatever the predicate"
    );
}

#[test]
fn node_error_properties() {
    let e = NodeError::msg("m");
    assert!(e.is_retryable());
    assert_eq!(e.kind(), NodeErrorKind::Failed);
    assert_eq!(e.to_string(), "m");
    assert_eq!(e.source_error().to_string(), "m");
    let p = NodeError::msg("p").permanent();
    assert!(!p.is_retryable());
    let io: NodeError = std::io::Error::other("disk").into();
    assert!(io.is_retryable());
    assert_eq!(io.to_string(), "disk");
    assert!(io.source_error().is::<std::io::Error>());
}

#[test]
fn should_retry_counts_attempts() {
    let policy = RetryPolicy::new(3);
    let e = NodeError::msg("x");
    assert_eq!(policy.max_attempts(), 3);
    assert!(policy.should_retry(1, &e));
    assert!(policy.should_retry(2, &e));
    assert!(!policy.should_retry(3, &e));
    assert!(!policy.should_retry(1, &NodeError::msg("x").permanent()));
    // Zero attempts means one attempt, no retry.
    let once = RetryPolicy::new(0);
    assert_eq!(once.max_attempts(), 1);
    assert!(!once.should_retry(1, &e));
    assert_eq!(RetryPolicy::default().max_attempts(), 3);
}

#[test]
fn backoff_grows_exponentially_and_is_capped() {
    let policy = RetryPolicy::new(10)
        .initial_backoff(Duration::from_millis(100))
        .max_backoff(Duration::from_millis(1000))
        .jitter(false);
    let delays: Vec<Duration> = (1..=6).map(|a| policy.backoff(a)).collect();
    assert_eq!(
        delays,
        [100, 200, 400, 800, 1000, 1000].map(Duration::from_millis)
    );

    // (Binary-exact durations, so that float rounding cannot matter.)
    let triple = RetryPolicy::new(10)
        .initial_backoff(Duration::from_millis(125))
        .multiplier(3.0)
        .max_backoff(Duration::from_secs(60))
        .jitter(false);
    assert_eq!(triple.backoff(1), Duration::from_millis(125));
    assert_eq!(triple.backoff(2), Duration::from_millis(375));
    assert_eq!(triple.backoff(4), Duration::from_millis(3375));

    // A multiplier below 1 is raised to 1: constant delays.
    let flat = RetryPolicy::new(10)
        .initial_backoff(Duration::from_millis(50))
        .multiplier(0.1)
        .jitter(false);
    assert_eq!(flat.backoff(1), Duration::from_millis(50));
    assert_eq!(flat.backoff(7), Duration::from_millis(50));

    // Defaults: 200 ms doubling up to 10 s.
    let default = RetryPolicy::default().jitter(false);
    assert_eq!(default.backoff(1), Duration::from_millis(200));
    assert_eq!(default.backoff(2), Duration::from_millis(400));
    assert_eq!(default.backoff(20), Duration::from_secs(10));
}

#[test]
fn backoff_jitter_stays_within_half_and_full() {
    let policy = RetryPolicy::new(10)
        .initial_backoff(Duration::from_millis(100))
        .max_backoff(Duration::from_millis(300));
    let mut distinct = std::collections::HashSet::new();
    for attempt in 1..=4 {
        let full = Duration::from_millis([100, 200, 300, 300][attempt as usize - 1]);
        for _ in 0..200 {
            let delay = policy.backoff(attempt);
            assert!(
                delay >= full / 2 && delay <= full,
                "attempt {attempt}: {delay:?} outside [{:?}, {full:?}]",
                full / 2
            );
            distinct.insert(delay);
        }
    }
    assert!(distinct.len() > 10, "jitter should vary the delay");
}

#[test]
fn backoff_of_late_attempts_with_an_unbounded_cap_does_not_panic() {
    // `max_backoff(Duration::MAX)` reads as "no cap"; the computed delay then
    // overflows `Duration::from_secs_f64` once it reaches 2^64 seconds.
    let policy = RetryPolicy::new(u32::MAX)
        .initial_backoff(Duration::from_secs(1))
        .max_backoff(Duration::MAX)
        .jitter(false);
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| policy.backoff(70)));
    let delay = outcome.expect("backoff() panicked instead of saturating");
    assert!(delay >= Duration::from_secs(1 << 62));
}

// ---- Timeout ---------------------------------------------------------------

#[tokio::test(start_paused = true)]
async fn slow_async_node_times_out() {
    let graph = with_target(|g| {
        g.add_node("target", |_, _| async {
            tokio::time::sleep(Duration::from_secs(60)).await;
            Ok::<_, NodeError>(SUpdate::default())
        })
        .configure_node(
            "target",
            NodeOptions::new().timeout(Duration::from_millis(50)),
        );
    });
    let started = tokio::time::Instant::now();
    let failure = node_failure(
        graph
            .compile()
            .unwrap()
            .invoke(S::default(), RunConfig::new())
            .await,
    );
    assert_eq!(failure.kind, NodeErrorKind::TimedOut);
    assert_eq!(failure.node, "target");
    assert_eq!(failure.step, 1);
    assert_eq!(failure.attempt, 1);
    assert!(
        failure.message.contains("timed out after 50ms"),
        "{}",
        failure.message
    );
    // Virtual time advanced to the timeout, not to the node's sleep.
    let elapsed = started.elapsed();
    assert!(elapsed >= Duration::from_millis(50) && elapsed < Duration::from_secs(1));
}

#[tokio::test(start_paused = true)]
async fn fast_node_within_its_timeout_succeeds() {
    let graph = with_target(|g| {
        g.add_node("target", |_, _| async {
            tokio::time::sleep(Duration::from_millis(10)).await;
            Ok::<_, NodeError>(SUpdate::default().log(vec!["target".into()]))
        })
        .configure_node(
            "target",
            NodeOptions::new().timeout(Duration::from_millis(50)),
        );
    });
    let out = graph
        .compile()
        .unwrap()
        .invoke(S::default(), RunConfig::new())
        .await
        .unwrap();
    assert_eq!(out.log, ["before", "target"]);
}

#[tokio::test(start_paused = true)]
async fn timeouts_are_retried() {
    let graph = with_target(|g| {
        g.add_node("target", |_, ctx: NodeContext| async move {
            if ctx.attempt() == 1 {
                tokio::time::sleep(Duration::from_secs(60)).await;
            }
            Ok::<_, NodeError>(SUpdate::default().log(vec![format!("target#{}", ctx.attempt())]))
        })
        .configure_node(
            "target",
            NodeOptions::new()
                .timeout(Duration::from_millis(20))
                .retry(RetryPolicy::new(2).initial_backoff(Duration::from_millis(1))),
        );
    });
    let out = graph
        .compile()
        .unwrap()
        .invoke(S::default(), RunConfig::new())
        .await
        .unwrap();
    assert_eq!(out.log, ["before", "target#2"]);
}

#[tokio::test(start_paused = true)]
async fn timeout_in_a_parallel_superstep() {
    let mut graph = StateGraph::<S>::new();
    graph
        .add_sync_node("quick", ok)
        .add_node("stuck", |_, _| async {
            std::future::pending::<()>().await;
            Ok::<_, NodeError>(SUpdate::default())
        })
        .configure_node(
            "stuck",
            NodeOptions::new().timeout(Duration::from_millis(5)),
        )
        .add_edge(START, "quick")
        .add_edge(START, "stuck")
        .add_edge("quick", END)
        .add_edge("stuck", END);
    let failure = node_failure(
        graph
            .compile()
            .unwrap()
            .invoke(S::default(), RunConfig::new())
            .await,
    );
    assert_eq!(failure.node, "stuck");
    assert_eq!(failure.kind, NodeErrorKind::TimedOut);
}

#[tokio::test]
async fn sync_nodes_are_not_interrupted_by_their_timeout() {
    let graph = with_target(|g| {
        g.add_sync_node("target", |_, _| {
            std::thread::sleep(Duration::from_millis(20));
            Ok(SUpdate::default().log(vec!["target".into()]))
        })
        .configure_node(
            "target",
            NodeOptions::new().timeout(Duration::from_millis(1)),
        );
    });
    let out = graph
        .compile()
        .unwrap()
        .invoke(S::default(), RunConfig::new())
        .await
        .unwrap();
    assert_eq!(out.log, ["before", "target"]);
}

// ---- Panics ----------------------------------------------------------------

#[tokio::test]
async fn panic_in_sync_node_is_a_node_error() {
    let graph = with_target(|g| {
        g.add_sync_node("target", |_, _| -> Result<SUpdate, NodeError> {
            panic!("sync kaboom")
        });
    });
    let failure = node_failure(
        graph
            .compile()
            .unwrap()
            .invoke(S::default(), RunConfig::new())
            .await,
    );
    assert_eq!(failure.kind, NodeErrorKind::Panicked);
    assert_eq!(failure.node, "target");
    assert_eq!(failure.step, 1);
    assert_eq!(failure.message, "panicked: sync kaboom");
}

#[tokio::test]
async fn panic_inside_async_node_future_is_a_node_error() {
    let graph = with_target(|g| {
        g.add_node("target", |_, _| async {
            tokio::task::yield_now().await;
            let n: u32 = "not a number".len() as u32;
            if n > 0 {
                panic!("async kaboom {n}");
            }
            Ok::<_, NodeError>(SUpdate::default())
        });
    });
    let failure = node_failure(
        graph
            .compile()
            .unwrap()
            .invoke(S::default(), RunConfig::new())
            .await,
    );
    assert_eq!(failure.kind, NodeErrorKind::Panicked);
    assert_eq!(failure.message, "panicked: async kaboom 12");
}

#[tokio::test]
async fn panic_while_creating_async_node_future_is_a_node_error() {
    let graph = with_target(|g| {
        g.add_node(
            "target",
            |_, _| -> std::future::Ready<Result<SUpdate, NodeError>> {
                panic!("before the future")
            },
        );
    });
    let failure = node_failure(
        graph
            .compile()
            .unwrap()
            .invoke(S::default(), RunConfig::new())
            .await,
    );
    assert_eq!(failure.kind, NodeErrorKind::Panicked);
    assert_eq!(failure.message, "panicked: before the future");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn panic_in_a_parallel_node_is_a_node_error() {
    let mut graph = StateGraph::<S>::new();
    graph
        .add_sync_node("fine", ok)
        .add_node("bomb", |_, _| async {
            tokio::task::yield_now().await;
            let payload = 42_u8;
            if payload == 42 {
                std::panic::panic_any(payload);
            }
            Ok::<_, NodeError>(SUpdate::default())
        })
        .add_edge(START, "fine")
        .add_edge(START, "bomb")
        .add_edge("fine", END)
        .add_edge("bomb", END);
    let failure = node_failure(
        graph
            .compile()
            .unwrap()
            .invoke(S::default(), RunConfig::new())
            .await,
    );
    assert_eq!(failure.node, "bomb");
    assert_eq!(failure.kind, NodeErrorKind::Panicked);
    assert_eq!(failure.message, "panicked: a non-string panic payload");
}

#[tokio::test]
async fn panics_are_not_retried_by_the_default_predicate() {
    let calls = Arc::new(AtomicU32::new(0));
    let counter = Arc::clone(&calls);
    let graph = with_target(move |g| {
        g.add_sync_node("target", move |_, _| -> Result<SUpdate, NodeError> {
            counter.fetch_add(1, Ordering::SeqCst);
            panic!("again")
        })
        .configure_node(
            "target",
            NodeOptions::new().retry(RetryPolicy::new(3).initial_backoff(Duration::ZERO)),
        );
    });
    let failure = node_failure(
        graph
            .compile()
            .unwrap()
            .invoke(S::default(), RunConfig::new())
            .await,
    );
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    assert_eq!(failure.kind, NodeErrorKind::Panicked);
    assert_eq!(failure.attempt, 1);
}

// ---- Cancellation ----------------------------------------------------------

#[tokio::test(start_paused = true)]
async fn cancelling_while_a_node_awaits() {
    let token = CancellationToken::new();
    let finished = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&finished);
    let graph = with_target(move |g| {
        g.add_node("target", move |_, _| {
            let flag = Arc::clone(&flag);
            async move {
                tokio::time::sleep(Duration::from_secs(3600)).await;
                flag.store(true, Ordering::SeqCst);
                Ok::<_, NodeError>(SUpdate::default())
            }
        });
    });
    let graph = graph.compile().unwrap();
    let canceller = token.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(20)).await;
        canceller.cancel();
    });
    let result = graph
        .invoke(S::default(), RunConfig::new().with_cancellation(token))
        .await;
    match result {
        Err(GraphError::Cancelled { step }) => assert_eq!(step, 1),
        other => panic!("expected Cancelled, got {other:?}"),
    }
    assert!(!finished.load(Ordering::SeqCst));
}

#[tokio::test(start_paused = true)]
async fn cancelling_during_parallel_nodes() {
    let token = CancellationToken::new();
    let mut graph = StateGraph::<S>::new();
    for name in ["a", "b"] {
        graph
            .add_node(name, |_, _| async {
                tokio::time::sleep(Duration::from_secs(3600)).await;
                Ok::<_, NodeError>(SUpdate::default())
            })
            .add_edge(START, name)
            .add_edge(name, END);
    }
    let graph = graph.compile().unwrap();
    let canceller = token.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(5)).await;
        canceller.cancel();
    });
    let result = graph
        .invoke(S::default(), RunConfig::new().with_cancellation(token))
        .await;
    assert!(
        matches!(result, Err(GraphError::Cancelled { step: 0 })),
        "{result:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn cancelling_during_retry_backoff() {
    let token = CancellationToken::new();
    let graph = with_target(|g| {
        g.add_sync_node("target", |_, _| Err::<SUpdate, _>(NodeError::msg("fail")))
            .configure_node(
                "target",
                NodeOptions::new().retry(
                    RetryPolicy::new(5)
                        .initial_backoff(Duration::from_secs(3600))
                        .max_backoff(Duration::from_secs(3600)),
                ),
            );
    });
    let graph = graph.compile().unwrap();
    let canceller = token.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(10)).await;
        canceller.cancel();
    });
    let started = tokio::time::Instant::now();
    let result = graph
        .invoke(S::default(), RunConfig::new().with_cancellation(token))
        .await;
    assert!(
        matches!(result, Err(GraphError::Cancelled { step: 1 })),
        "{result:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(60));
}

#[tokio::test]
async fn cancelled_before_the_run_runs_nothing() {
    let token = CancellationToken::new();
    token.cancel();
    let ran = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&ran);
    let mut graph = StateGraph::<S>::new();
    graph
        .add_sync_node("a", move |_, _| {
            flag.store(true, Ordering::SeqCst);
            Ok(SUpdate::default())
        })
        .add_edge(START, "a")
        .add_edge("a", END);
    let result = graph
        .compile()
        .unwrap()
        .invoke(S::default(), RunConfig::new().with_cancellation(token))
        .await;
    assert!(
        matches!(result, Err(GraphError::Cancelled { step: 0 })),
        "{result:?}"
    );
    assert!(!ran.load(Ordering::SeqCst));
    assert_eq!(
        GraphError::Cancelled { step: 0 }.to_string(),
        "run cancelled at step 0"
    );
}

#[tokio::test]
async fn node_context_reports_cancellation() {
    let token = CancellationToken::new();
    let observed = Arc::new(Mutex::new(Vec::new()));
    let record = Arc::clone(&observed);
    let run_token = token.clone();
    let mut graph = StateGraph::<S>::new();
    graph
        .add_sync_node("a", move |_, ctx| {
            let before = ctx.is_cancelled();
            run_token.cancel();
            record.lock().unwrap().push((
                before,
                ctx.is_cancelled(),
                ctx.cancellation().is_cancelled(),
            ));
            Ok(SUpdate::default())
        })
        .add_sync_node("b", ok)
        .add_edge(START, "a")
        .add_edge("a", "b")
        .add_edge("b", END);
    let result = graph
        .compile()
        .unwrap()
        .invoke(S::default(), RunConfig::new().with_cancellation(token))
        .await;
    assert_eq!(*observed.lock().unwrap(), [(false, true, true)]);
    // "b" never runs: the run stops before step 1.
    assert!(
        matches!(result, Err(GraphError::Cancelled { step: 1 })),
        "{result:?}"
    );
}

#[tokio::test]
async fn without_a_token_the_context_is_never_cancelled() {
    let observed = Arc::new(AtomicBool::new(true));
    let flag = Arc::clone(&observed);
    let mut graph = StateGraph::<S>::new();
    graph
        .add_sync_node("a", move |_, ctx| {
            flag.store(ctx.is_cancelled(), Ordering::SeqCst);
            Ok(SUpdate::default())
        })
        .add_edge(START, "a")
        .add_edge("a", END);
    graph
        .compile()
        .unwrap()
        .invoke(S::default(), RunConfig::new())
        .await
        .unwrap();
    assert!(!observed.load(Ordering::SeqCst));
}

#[tokio::test(start_paused = true)]
async fn node_can_watch_its_cancellation_token() {
    let token = CancellationToken::new();
    let saw = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&saw);
    let mut graph = StateGraph::<S>::new();
    graph
        .add_node("a", move |_, ctx: NodeContext| {
            let flag = Arc::clone(&flag);
            async move {
                // A helper task outliving the node's future sees the cancel.
                let watcher = ctx.clone();
                tokio::spawn(async move {
                    watcher.cancellation().cancelled().await;
                    flag.store(watcher.is_cancelled(), Ordering::SeqCst);
                });
                std::future::pending::<()>().await;
                Ok::<_, NodeError>(SUpdate::default())
            }
        })
        .add_edge(START, "a")
        .add_edge("a", END);
    let graph = graph.compile().unwrap();
    let canceller = token.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(5)).await;
        canceller.cancel();
    });
    let result = graph
        .invoke(S::default(), RunConfig::new().with_cancellation(token))
        .await;
    assert!(matches!(result, Err(GraphError::Cancelled { step: 0 })));
    tokio::time::sleep(Duration::from_millis(1)).await;
    assert!(saw.load(Ordering::SeqCst));
}

/// A node of a parallel superstep fails: its slow sibling is stopped at
/// its next await point and the error comes at once; a sibling that had
/// finished is kept as a pending write, so the resume does not run it
/// again, while the stopped one runs again.
#[tokio::test(start_paused = true)]
async fn a_failing_node_stops_its_siblings_and_the_finished_one_is_kept() {
    let fast_calls = Arc::new(AtomicU32::new(0));
    let slow_done = Arc::new(AtomicU32::new(0));
    let fail_calls = Arc::new(AtomicU32::new(0));
    let mut graph = StateGraph::<S>::new();
    let (fast, slow, fail) = (
        Arc::clone(&fast_calls),
        Arc::clone(&slow_done),
        Arc::clone(&fail_calls),
    );
    graph
        .add_sync_node("fast", move |_, _| {
            fast.fetch_add(1, Ordering::SeqCst);
            Ok(SUpdate::default().log(vec!["fast".into()]))
        })
        .add_node("slow", move |_, _| {
            let slow = Arc::clone(&slow);
            async move {
                tokio::time::sleep(Duration::from_secs(2)).await;
                slow.fetch_add(1, Ordering::SeqCst);
                Ok::<_, NodeError>(SUpdate::default().log(vec!["slow".into()]))
            }
        })
        .add_node("fails", move |_, _| {
            let first = fail.fetch_add(1, Ordering::SeqCst) == 0;
            async move {
                tokio::time::sleep(Duration::from_millis(50)).await;
                if first {
                    return Err(NodeError::msg("boom").permanent());
                }
                Ok(SUpdate::default().log(vec!["fails".into()]))
            }
        })
        .add_edge(START, "fast")
        .add_edge(START, "slow")
        .add_edge(START, "fails")
        .add_edge("fast", END)
        .add_edge("slow", END)
        .add_edge("fails", END);
    let graph = graph
        .compile()
        .unwrap()
        .with_checkpointer(Arc::new(rebound_graph::checkpoint::MemorySaver::new()));
    let config = || RunConfig::new().with_thread_id("t");

    let started = tokio::time::Instant::now();
    let error = graph.run(S::default(), config()).await.unwrap_err();
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "the error did not wait for the slow sibling: {:?}",
        started.elapsed()
    );
    match &error {
        GraphError::Node { node, .. } => assert_eq!(node, "fails"),
        other => panic!("expected the node's error, got {other:?}"),
    }
    assert_eq!(
        slow_done.load(Ordering::SeqCst),
        0,
        "the slow sibling stopped"
    );

    let done = graph.resume(config()).await.unwrap().into_state();
    let mut log = done.log.clone();
    log.sort();
    assert_eq!(log, ["fails", "fast", "slow"]);
    assert_eq!(fast_calls.load(Ordering::SeqCst), 1, "kept, not run again");
    assert_eq!(slow_done.load(Ordering::SeqCst), 1);
    assert_eq!(fail_calls.load(Ordering::SeqCst), 2);
}

/// Several retry policies: the first whose predicate takes the error
/// decides. Rate limits get many attempts, anything else two.
#[tokio::test]
async fn the_first_matching_retry_policy_decides() {
    let calls = Arc::new(AtomicU32::new(0));
    let counter = Arc::clone(&calls);
    let graph = with_target(move |g| {
        g.add_sync_node("target", move |_, _| {
            let n = counter.fetch_add(1, Ordering::SeqCst) + 1;
            // Eight rate limits, then another error.
            Err::<SUpdate, _>(NodeError::msg(if n <= 8 {
                "rate limited"
            } else {
                "server error"
            }))
        })
        .configure_node(
            "target",
            NodeOptions::new()
                .retry(
                    RetryPolicy::new(20)
                        .initial_backoff(Duration::ZERO)
                        .retry_on(|e| e.to_string().contains("rate limited")),
                )
                .retry(RetryPolicy::new(2).initial_backoff(Duration::ZERO)),
        );
    });
    let failure = node_failure(
        graph
            .compile()
            .unwrap()
            .invoke(S::default(), RunConfig::new())
            .await,
    );
    // Attempts 1-8 are rate limited: the first policy (20 attempts)
    // retries them; attempt 9 fails otherwise: the second policy decides,
    // and its 2 attempts (of the node's, in all) are spent.
    assert_eq!(calls.load(Ordering::SeqCst), 9);
    assert_eq!(failure.attempt, 9);
    assert_eq!(failure.message, "server error");
}
