//! The configuration: errors that name the file, the key and the line
//! (exit 2), the precedence of its sources, and `config show` with its
//! secrets masked.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{output_text, TestEnv, FAKE_KEY};

#[test]
fn an_unknown_key_names_the_file_the_table_and_the_line() {
    let env = TestEnv::new();
    env.workspace_config("model = \"openai:test\"\n\n[budget]\nmax_iters = 3\nmax_iterz = 4\n");
    let output = env.rebound(None).args(["run", "x"]).output().unwrap();
    let text = output_text(&output);
    assert_eq!(output.status.code(), Some(2), "{text}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    let file = env.ws().canonicalize().unwrap().join("rebound.toml");
    assert!(
        stderr.contains(&format!(
            "{}:5: unknown key `max_iterz` in [budget]",
            file.display()
        )),
        "{text}"
    );
}

#[test]
fn a_misspelt_key_in_a_rule_is_an_error_not_ignored() {
    let env = TestEnv::new();
    env.workspace_config(
        "model = \"openai:test\"\n\n[[rules]]\npattern = \"git push\"\naction = \"forbid\"\nreasn = \"no\"\n",
    );
    let output = env.rebound(None).args(["config", "show"]).output().unwrap();
    let text = output_text(&output);
    assert_eq!(output.status.code(), Some(2), "{text}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("rebound.toml:"), "{text}");
    assert!(stderr.contains("reasn"), "{text}");
}

#[test]
fn a_bad_value_in_the_user_config_names_its_key_and_line() {
    let env = TestEnv::new();
    env.write_user_config("# mine\napproval = \"sometimes\"\n");
    let output = env.rebound(None).args(["config", "show"]).output().unwrap();
    let text = output_text(&output);
    assert_eq!(output.status.code(), Some(2), "{text}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!(
            "{}:2: bad value for `approval`",
            env.user_config().display()
        )),
        "{text}"
    );
    env.write_user_config("[shell]\ndefault_timeout = \"soon\"\n");
    let output = env.rebound(None).args(["threads"]).output().unwrap();
    let text = output_text(&output);
    assert_eq!(output.status.code(), Some(2), "{text}");
    assert!(
        String::from_utf8_lossy(&output.stderr)
            .contains(":2: bad value for `shell.default_timeout`"),
        "{text}"
    );
}

#[test]
fn invalid_toml_and_bad_environment_values_are_config_errors() {
    let env = TestEnv::new();
    env.workspace_config("[budget\nmax_iters = 3\n");
    let output = env.rebound(None).args(["config", "show"]).output().unwrap();
    let text = output_text(&output);
    assert_eq!(output.status.code(), Some(2), "{text}");
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("rebound.toml:1:"),
        "{text}"
    );

    let env = TestEnv::new();
    let output = env
        .rebound(None)
        .args(["config", "show"])
        .env("REBOUND_APPROVAL", "never")
        .output()
        .unwrap();
    let text = output_text(&output);
    assert_eq!(output.status.code(), Some(2), "{text}");
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("REBOUND_APPROVAL"),
        "{text}"
    );

    let output = env
        .rebound(None)
        .args(["config", "show"])
        .env("REBOUND_CONFIG", env.home.path().join("missing.toml"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", output_text(&output));
}

#[test]
fn sources_apply_in_order_and_config_show_masks_secrets() {
    let env = TestEnv::new();
    env.workspace_config(
        "model = \"openai:from-workspace\"\nworkflow = \"reflect\"\napproval = \"auto\"\n\n[budget]\nmax_iters = 3\nmax_attempts = 2\n\n[[mcp]]\nname = \"files\"\ncommand = \"mcp-files\"\nenv = { GITHUB_TOKEN = \"ghp-secret-value-0123456789\" }\n",
    );
    env.write_user_config(
        "model = \"openai:from-user\"\napproval = \"always\"\n[budget]\nmax_iters = 5\n",
    );
    let trusted = env.rebound(None).args(["trust"]).output().unwrap();
    assert_eq!(trusted.status.code(), Some(0), "{}", output_text(&trusted));
    let output = env
        .rebound(None)
        .args(["config", "show"])
        .env("REBOUND_APPROVAL", "on-risk")
        .env("ANTHROPIC_API_KEY", "sk-ant-0123456789abcdef")
        .output()
        .unwrap();
    let text = output_text(&output);
    assert_eq!(output.status.code(), Some(0), "{text}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    // The user's file over the workspace's, the environment over both.
    assert!(stdout.contains("model = \"openai:from-user\""), "{text}");
    assert!(stdout.contains("workflow = \"reflect\""), "{text}");
    assert!(stdout.contains("approval = \"on-risk\""), "{text}");
    assert!(stdout.contains("max_iters = 5"), "{text}");
    assert!(stdout.contains("max_attempts = 2"), "{text}");
    // Where each came from.
    let source = |key: &str, origin: &str| {
        stdout.lines().any(|line| {
            line.strip_prefix("#   ")
                .and_then(|rest| rest.strip_prefix(key))
                .is_some_and(|rest| rest.trim() == origin)
        })
    };
    assert!(source("approval", "env REBOUND_APPROVAL"), "{text}");
    assert!(
        source("budget.max_attempts", "workspace rebound.toml"),
        "{text}"
    );
    assert!(source("model", "user config"), "{text}");
    // Secrets masked: provider keys and secret-looking MCP variables.
    assert!(stdout.contains("OPENAI_API_KEY     = sk-…cdef"), "{text}");
    assert!(stdout.contains("ANTHROPIC_API_KEY  = sk-…cdef"), "{text}");
    assert!(stdout.contains("OLLAMA_HOST        = (not set)"), "{text}");
    assert!(!stdout.contains(FAKE_KEY), "{text}");
    assert!(!stdout.contains("sk-ant-0123456789abcdef"), "{text}");
    assert!(!stdout.contains("ghp-secret-value-0123456789"), "{text}");
    assert!(stdout.contains("GITHUB_TOKEN = \"ghp…6789\""), "{text}");

    // Flags over everything; the JSON form carries the same.
    let output = env
        .rebound(None)
        .args(["config", "show", "--json"])
        .env("REBOUND_MODEL", "openai:from-env")
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["config"]["model"], "openai:from-env");
    assert_eq!(json["sources"]["model"][0], "env REBOUND_MODEL");
    assert_eq!(json["environment"]["OPENAI_API_KEY"], "sk-…cdef");
    let state_dir = env.ws().canonicalize().unwrap().join(".rebound");
    assert_eq!(json["config"]["state_dir"], state_dir.display().to_string());
}

#[test]
fn state_dir_can_be_moved_by_flag_or_environment() {
    let env = TestEnv::new();
    let elsewhere = tempfile::tempdir().unwrap();
    let output = env
        .rebound(None)
        .args(["config", "show", "--json"])
        .env("REBOUND_STATE_DIR", elsewhere.path())
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        json["config"]["state_dir"],
        elsewhere.path().display().to_string()
    );
    let output = env
        .rebound(None)
        .args(["config", "show", "--json", "--state-dir"])
        .arg(elsewhere.path().join("x"))
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        json["config"]["state_dir"],
        elsewhere.path().join("x").display().to_string()
    );
}
