//! A run killed with SIGKILL in the middle resumes in another process from
//! its last completed superstep, with nothing lost and no journaled side
//! effect repeated.
//!
//! The test runs itself as the child: with `REBOUND_KILL_CHILD_DB` set, it
//! runs the graph (slowly) instead of testing; the parent kills it once a
//! few supersteps are committed, then resumes the thread itself.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rebound_graph::{
    CompiledGraph, NodeError, RunConfig, RunOutcome, State, StateGraph, END, START,
};
use rebound_sqlite::SqliteSaver;
use serde::{Deserialize, Serialize};

const STEPS: u32 = 40;
const TEST_NAME: &str = "killed_run_resumes_from_its_last_superstep";

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, State)]
struct Work {
    count: u32,
    #[state(append)]
    done: Vec<u32>,
}

fn graph(db: &Path, log: PathBuf) -> CompiledGraph<Work> {
    let mut graph = StateGraph::<Work>::new();
    graph
        .add_node("work", move |s: Arc<Work>, ctx| {
            let log = log.clone();
            async move {
                let n = s.count;
                // The side effect: one line per step, through the journal.
                ctx.journal("append", async {
                    common::append_line(&log, n).sync_all().unwrap();
                })
                .await?;
                // Long enough that the kill lands here, after the journal entry.
                tokio::time::sleep(Duration::from_millis(25)).await;
                Ok::<_, NodeError>(WorkUpdate::default().count(n + 1).done(vec![n]))
            }
        })
        .add_edge(START, "work")
        .add_conditional_edges(
            "work",
            |s: &Work| if s.count < STEPS { "work" } else { END },
            ["work", END],
        );
    let saver = Arc::new(SqliteSaver::open_default(db).unwrap());
    graph.compile().unwrap().with_checkpointer(saver)
}

fn config() -> RunConfig {
    RunConfig::new().with_thread_id("killed")
}

#[test]
fn killed_run_resumes_from_its_last_superstep() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    if let Ok(db) = std::env::var("REBOUND_KILL_CHILD_DB") {
        // The child: run until killed.
        let log = PathBuf::from(std::env::var("REBOUND_KILL_CHILD_LOG").unwrap());
        let graph = graph(Path::new(&db), log);
        let _ = runtime.block_on(graph.invoke(Work::default(), config()));
        return;
    }

    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("kill.db");
    let log = dir.path().join("side-effects.log");
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", TEST_NAME, "--nocapture", "--test-threads=1"])
        .env("REBOUND_KILL_CHILD_DB", &db)
        .env("REBOUND_KILL_CHILD_LOG", &log)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();

    // Kill it (SIGKILL) once several supersteps have run.
    let deadline = Instant::now() + Duration::from_secs(30);
    while common::log_lines(&log).len() < 8 {
        assert!(Instant::now() < deadline, "the child made no progress");
        assert!(
            child.try_wait().unwrap().is_none(),
            "the child ended before it was killed"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    // The line is written inside the journaled call, just before its entry
    // is committed; a crash in that window would repeat it (the journal is
    // at-least-once at that boundary). Let the commit land: the node then
    // sleeps 25 ms, and that is where the kill hits.
    std::thread::sleep(Duration::from_millis(8));
    child.kill().unwrap();
    child.wait().unwrap();
    let before_resume = common::log_lines(&log);
    assert!(
        before_resume.len() < STEPS as usize,
        "killed before the end"
    );

    // Resume in this process: the lock of the dead child is taken over, the
    // state is the last committed superstep's, and the step that was running
    // does not append its line again.
    let graph = graph(&db, log.clone());
    let stopped = runtime.block_on(graph.get_state(&config())).unwrap();
    assert_eq!(stopped.metadata.next, ["work"]);
    assert!(stopped.values.count >= 7, "{:?}", stopped.values);
    let outcome = runtime.block_on(graph.resume(config())).unwrap();
    let RunOutcome::Completed(done) = outcome else {
        panic!("expected completion, got {outcome:?}");
    };
    let expected: Vec<u32> = (0..STEPS).collect();
    assert_eq!(done.done, expected, "every step's update, once, in order");
    assert_eq!(done.count, STEPS);
    assert_eq!(
        common::log_lines(&log),
        expected,
        "each side effect ran exactly once"
    );
}
