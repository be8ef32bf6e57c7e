//! The approval policy held to the oracle on the fuzz target's seed corpus
//! (`fuzz/corpus/approval`: commands the agent really ran, and boundary
//! lines): every line the policy allows under `on-risk` is plainly safe by
//! the oracle. The fuzzer searches beyond these; this keeps them (and its
//! past findings, added to the corpus) checked on every test run.

use std::path::Path;

use rebound_oracle::plainly_safe;
use rebound_tools::approval::{ApprovalMode, ApprovalPolicy, Verdict};

#[test]
fn every_seed_command_the_policy_allows_is_plainly_safe() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/approval");
    let policy = ApprovalPolicy::new(ApprovalMode::OnRisk).with_workspace("/work/ws");
    let mut allowed = 0;
    let mut refused = 0;
    let mut entries: Vec<_> = std::fs::read_dir(&corpus)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    assert!(
        entries.len() >= 50,
        "the corpus has {} lines",
        entries.len()
    );
    for path in entries {
        let bytes = std::fs::read(&path).unwrap();
        let Ok(line) = std::str::from_utf8(&bytes) else {
            continue;
        };
        match policy.assess(line) {
            Verdict::Allow => {
                allowed += 1;
                if let Err(why) = plainly_safe(line) {
                    panic!("{}: the policy allows {line:?}, but {why}", path.display());
                }
            }
            _ => refused += 1,
        }
    }
    // Both verdicts are exercised: a corpus the policy refused whole (or
    // allowed whole) would check nothing of the agreement.
    assert!(allowed >= 10, "allowed {allowed}, refused {refused}");
    assert!(refused >= 10, "allowed {allowed}, refused {refused}");
}
