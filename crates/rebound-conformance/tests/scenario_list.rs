//! Every scenario function of `src/scenarios` is registered with
//! `checkpointer_tests!` (a scenario left out would run on no store).

// The helper reads files outside the #[test] function; clippy.toml only exempts test bodies.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;
use std::path::Path;

/// The `module::name` of each `pub async fn` in `src/scenarios/*.rs`.
fn scenario_functions() -> BTreeSet<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/scenarios");
    let mut found = BTreeSet::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let module = path.file_stem().unwrap().to_str().unwrap().to_string();
        if module == "mod" {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for line in text.lines() {
            if let Some(rest) = line.strip_prefix("pub async fn ") {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                found.insert(format!("{module}::{name}"));
            }
        }
    }
    found
}

#[test]
fn every_scenario_function_is_registered_once() {
    let registered: Vec<&str> = rebound_conformance::SCENARIOS.to_vec();
    let unique: BTreeSet<String> = registered.iter().map(|s| s.to_string()).collect();
    assert_eq!(unique.len(), registered.len(), "a scenario is listed twice");
    assert_eq!(unique, scenario_functions());
}
