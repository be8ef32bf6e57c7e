//! The `pev` graph of bench/WORKLOADS.md §1, built with rebound-graph's public
//! API, and its expected final states (§1.6).

use std::sync::{Arc, OnceLock};
use std::time::Instant;

use rebound_graph::{CompileError, CompiledGraph, NodeError, Route, State, StateGraph, END, START};
use serde::{Deserialize, Serialize};

/// The eight "last value wins" fields of §1.1.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, State)]
pub struct Pev {
    /// The current plan.
    pub plan: Vec<String>,
    /// The step being executed.
    pub step_index: i64,
    /// Completed iterations.
    pub iters: i64,
    /// The workload size N.
    pub max_iters: i64,
    /// The reviewer's verdict.
    pub verdict: String,
    /// The executor's last output.
    pub last_result: String,
    /// Whether the last executor attempt succeeded.
    pub executor_ok: bool,
    /// The number of node executions.
    pub log_len: i64,
}

impl Pev {
    /// The input of every run (§1.1).
    pub fn initial(max_iters: i64) -> Self {
        Pev {
            plan: Vec::new(),
            step_index: 0,
            iters: 0,
            max_iters,
            verdict: String::new(),
            last_result: String::new(),
            executor_ok: true,
            log_len: 0,
        }
    }
}

fn plan() -> Vec<String> {
    ["s0", "s1", "s2", "s3"].map(String::from).to_vec()
}

/// planner (§1.2).
pub fn planner(s: &Pev) -> PevUpdate {
    let update = PevUpdate::default().log_len(s.log_len + 1);
    if s.plan.is_empty() {
        update.plan(plan()).step_index(0)
    } else {
        update
    }
}

/// executor (§1.2): the first attempt of an iteration with `iters % 7 == 3` fails.
pub fn executor(s: &Pev) -> PevUpdate {
    let failing = s.iters % 7 == 3 && s.executor_ok;
    let step = usize::try_from(s.step_index)
        .ok()
        .and_then(|i| s.plan.get(i));
    let mut update = PevUpdate::default()
        .log_len(s.log_len + 1)
        .executor_ok(!failing)
        .last_result(format!("ran {}", step.map(String::as_str).unwrap_or("")));
    if failing {
        update = update.plan(Vec::new());
    }
    update
}

/// reviewer (§1.2).
pub fn reviewer(s: &Pev) -> PevUpdate {
    let verdict = if s.iters + 1 >= s.max_iters {
        "finish"
    } else {
        "continue"
    };
    PevUpdate::default()
        .log_len(s.log_len + 1)
        .verdict(verdict.to_string())
}

/// advance (§1.2).
pub fn advance(s: &Pev) -> PevUpdate {
    let mut update = PevUpdate::default()
        .log_len(s.log_len + 1)
        .iters(s.iters + 1);
    if s.verdict == "continue" {
        let step_index = s.step_index + 1;
        update = update.step_index(step_index);
        if step_index >= s.plan.len() as i64 {
            update = update.plan(Vec::new());
        }
    }
    update
}

/// executor -> reviewer if it succeeded, else planner (§1.3).
pub fn route_after_executor(s: &Pev) -> &'static str {
    if s.executor_ok {
        "reviewer"
    } else {
        "planner"
    }
}

/// advance -> END, executor or planner (§1.3).
pub fn route_after_advance(s: &Pev) -> Route {
    if s.verdict == "finish" || s.iters >= s.max_iters {
        Route::end()
    } else if !s.plan.is_empty() && 0 <= s.step_index && s.step_index < s.plan.len() as i64 {
        Route::to("executor")
    } else {
        Route::to("planner")
    }
}

/// Whether the nodes are sync functions (W1) or async ones (W4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeKind {
    /// Plain functions (`add_sync_node`).
    Sync,
    /// `async` closures (`add_node`).
    Async,
}

/// One node's logic: the state it reads to the update it returns.
type NodeLogic = fn(&Pev) -> PevUpdate;

/// Instrumentation for the resume workload (W5), through the public node
/// context only; the node logic is unchanged.
#[derive(Debug, Clone, Default)]
pub struct Hooks {
    /// Cancel the run (through the node's context) once `advance` has set
    /// `iters` to this value: the run stops after that superstep's
    /// checkpoint, like breaking out of LangGraph's stream there.
    pub stop_at_iters: Option<i64>,
    /// Record when the first node is entered (resume latency).
    pub first_entry: Option<Arc<OnceLock<Instant>>>,
}

/// Builds and compiles `pev`.
pub fn build(kind: NodeKind) -> Result<CompiledGraph<Pev>, CompileError> {
    build_with(kind, Hooks::default())
}

/// Builds and compiles `pev` with instrumentation hooks.
pub fn build_with(kind: NodeKind, hooks: Hooks) -> Result<CompiledGraph<Pev>, CompileError> {
    let mut graph = StateGraph::<Pev>::new();
    let nodes: [(&str, NodeLogic); 4] = [
        ("planner", planner),
        ("executor", executor),
        ("reviewer", reviewer),
        ("advance", advance),
    ];
    let hooked = hooks.stop_at_iters.is_some() || hooks.first_entry.is_some();
    for (name, logic) in nodes {
        if hooked {
            let hooks = hooks.clone();
            let is_advance = name == "advance";
            graph.add_sync_node(name, move |s, ctx| {
                if let Some(first) = &hooks.first_entry {
                    first.get_or_init(Instant::now);
                }
                let update = logic(s);
                if is_advance && hooks.stop_at_iters == update.iters {
                    ctx.cancellation().cancel();
                }
                Ok::<_, NodeError>(update)
            });
            continue;
        }
        match kind {
            NodeKind::Sync => {
                graph.add_sync_node(name, move |s, _ctx| Ok::<_, NodeError>(logic(s)))
            }
            NodeKind::Async => {
                graph.add_node(
                    name,
                    move |s, _ctx| async move { Ok::<_, NodeError>(logic(&s)) },
                )
            }
        };
    }
    graph
        .add_edge(START, "planner")
        .add_edge("planner", "executor")
        .add_conditional_edges("executor", route_after_executor, ["reviewer", "planner"])
        .add_edge("reviewer", "advance")
        .add_conditional_edges("advance", route_after_advance, [END, "executor", "planner"]);
    graph.compile()
}

/// The recursion limit the reference passes: `10 * N + 100` (§1.4).
pub fn recursion_limit(max_iters: i64) -> u64 {
    u64::try_from(10 * max_iters + 100).unwrap_or(u64::MAX)
}

/// W0 `ref`: the same node logic as a plain loop, no engine. Returns the
/// final state, which is the expected final state of every workload.
pub fn reference(max_iters: i64) -> Pev {
    run_reference(max_iters, None)
}

/// The reference state right after the `advance` that set `iters` to
/// `stop_at` (W5's stop point), and its node count.
pub fn reference_until(max_iters: i64, stop_at: i64) -> Pev {
    run_reference(max_iters, Some(stop_at))
}

/// The plain loop, stopping at the end or after the `advance` that set
/// `iters` to `stop_at`.
fn run_reference(max_iters: i64, stop_at: Option<i64>) -> Pev {
    let mut s = Pev::initial(max_iters);
    let mut node = Node::Planner;
    loop {
        let update = match node {
            Node::Planner => planner(&s),
            Node::Executor => executor(&s),
            Node::Reviewer => reviewer(&s),
            Node::Advance => advance(&s),
        };
        s.apply(update);
        node = match node {
            Node::Planner => Node::Executor,
            Node::Executor if s.executor_ok => Node::Reviewer,
            Node::Executor => Node::Planner,
            Node::Reviewer => Node::Advance,
            Node::Advance if Some(s.iters) == stop_at => return s,
            Node::Advance => match route_after_advance(&s).targets().next() {
                Some("executor") => Node::Executor,
                Some("planner") => Node::Planner,
                _ => return s,
            },
        };
    }
}

#[derive(Clone, Copy)]
enum Node {
    Planner,
    Executor,
    Reviewer,
    Advance,
}

/// Whether `state` is the correct final state for N: equal to the reference
/// loop's, and to §1.6's row for N when the table has one.
pub fn verify(max_iters: i64, state: &Pev) -> bool {
    let reference = reference(max_iters);
    let table_ok =
        TABLE
            .iter()
            .find(|(n, _, _)| *n == max_iters)
            .is_none_or(|(_, log_len, step_index)| {
                reference.log_len == *log_len
                    && reference.step_index == *step_index
                    && reference.last_result == format!("ran s{step_index}")
            });
    let closed_form = {
        let n = max_iters;
        let failures = (0..n).filter(|i| i % 7 == 3).count() as i64;
        let replans = (7..n).filter(|i| i % 7 == 0).count() as i64;
        reference.log_len == 1 + 3 * n + 2 * failures + replans
    };
    let finished = reference.plan == plan()
        && reference.iters == max_iters
        && reference.verdict == "finish"
        && reference.executor_ok;
    table_ok && closed_form && finished && *state == reference
}

/// §1.6's table: (N, log_len = node_steps, step_index).
pub const TABLE: [(i64, i64, i64); 9] = [
    (1, 4, 0),
    (12, 42, 1),
    (20, 69, 2),
    (50, 172, 0),
    (400, 1372, 0),
    (500, 1714, 2),
    (1000, 3429, 2),
    (2000, 6858, 1),
    (5000, 17143, 1),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_matches_the_spec_table() {
        for (n, log_len, step_index) in TABLE {
            let r = reference(n);
            assert_eq!((r.log_len, r.step_index), (log_len, step_index), "N={n}");
            assert!(verify(n, &r));
        }
        // W5's stop points (WORKLOADS.md §2, W5 step 1).
        let stop = reference_until(400, 200);
        assert_eq!(
            (stop.log_len, stop.step_index, stop.last_result.as_str()),
            (687, 1, "ran s0")
        );
        assert_eq!(stop.verdict, "continue");
        let stop = reference_until(2000, 1000);
        assert_eq!(
            (stop.log_len, stop.step_index, stop.last_result.as_str()),
            (3429, 3, "ran s2")
        );
        let mut wrong = reference(20);
        wrong.log_len += 1;
        assert!(!verify(20, &wrong));
    }

    #[tokio::test]
    async fn graph_reaches_the_expected_state_for_every_table_row() {
        for kind in [NodeKind::Sync, NodeKind::Async] {
            let graph = build(kind).unwrap();
            for (n, _, _) in TABLE {
                let config =
                    rebound_graph::RunConfig::new().with_recursion_limit(recursion_limit(n));
                let done = graph.invoke(Pev::initial(n), config).await.unwrap();
                assert_eq!(done, reference(n), "N={n} {kind:?}");
                assert!(verify(n, &done));
            }
        }
    }

    #[test]
    fn node_sequence_for_twelve_matches_the_spec() {
        // P E R A0 E R A1 E R A2 E! P E R A3 ... (§1.5), by running the node
        // functions and routers by hand.
        let mut s = Pev::initial(12);
        let mut seq = Vec::new();
        let mut node = "planner";
        loop {
            let update = match node {
                "planner" => planner(&s),
                "executor" => executor(&s),
                "reviewer" => reviewer(&s),
                _ => advance(&s),
            };
            let iters = s.iters;
            s.apply(update);
            seq.push(match node {
                "planner" => "P".to_string(),
                "executor" if !s.executor_ok => "E!".to_string(),
                "executor" => "E".to_string(),
                "reviewer" => "R".to_string(),
                _ => format!("A{iters}"),
            });
            node = match node {
                "planner" => "executor",
                "executor" => route_after_executor(&s),
                "reviewer" => "advance",
                _ => match route_after_advance(&s).targets().next() {
                    Some(END) | None => break,
                    Some("executor") => "executor",
                    Some(_) => "planner",
                },
            };
        }
        assert_eq!(
            seq.join(" "),
            "P E R A0 E R A1 E R A2 E! P E R A3 E R A4 E R A5 E R A6 P E R A7 E R A8 E R A9 E! P E R A10 E R A11"
        );
    }
}
