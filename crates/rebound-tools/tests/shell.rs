//! The shell tool, with real processes in real temp dirs.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rebound_tools::sandbox::SandboxPolicy;
use rebound_tools::shell::{run_command, CommandResult, ShellConfig, ShellTool};
use rebound_tools::{Tool, ToolContext, ToolError, ToolRegistry};
use serde_json::json;
use tempfile::TempDir;
use tokio_util::sync::CancellationToken;

fn workspace() -> (TempDir, ToolContext) {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolContext::new(dir.path()).unwrap();
    (dir, ctx)
}

async fn run(command: &str, ctx: &ToolContext) -> CommandResult {
    run_command(command, None, &ShellConfig::default(), ctx)
        .await
        .unwrap()
}

/// Whether `pid` no longer runs (gone, or a zombie nobody reaped yet).
fn is_gone(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z')),
    }
}

/// Waits up to 5 s for `pid` to be gone.
async fn gone_soon(pid: i32) -> bool {
    for _ in 0..50 {
        if is_gone(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    false
}

fn read_pid(dir: &Path, name: &str) -> i32 {
    std::fs::read_to_string(dir.join(name))
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

#[tokio::test]
async fn success_shows_output_of_both_streams_in_the_workspace() {
    let (dir, ctx) = workspace();
    let result = run("pwd; echo to-stderr >&2", &ctx).await;
    assert!(result.success());
    assert_eq!(result.exit_code, Some(0));
    assert_eq!(result.signal, None);
    assert!(!result.truncated && !result.timed_out && !result.cancelled);
    let pwd = std::fs::canonicalize(dir.path()).unwrap();
    assert_eq!(
        result.output,
        format!("{}\nto-stderr\n", pwd.display()),
        "stdout then stderr, in order"
    );
    assert_eq!(result.stderr_bytes, "to-stderr\n".len() as u64);
    assert_eq!(result.log_path, None, "no log when nothing was cut");

    let output = result.into_output();
    assert!(output.success);
    assert!(output.content.starts_with("exit code 0 (success)"));
    assert!(output.content.contains("to-stderr"));
    assert_eq!(output.details["exit_code"], 0);
    assert_eq!(output.details["truncated"], false);
}

#[tokio::test]
async fn a_non_zero_exit_fails_with_the_code_and_stderr() {
    let (_dir, ctx) = workspace();
    let result = run(
        "echo building; echo 'error: missing semicolon' >&2; exit 3",
        &ctx,
    )
    .await;
    assert!(!result.success());
    assert_eq!(result.exit_code, Some(3));
    let output = result.into_output();
    assert!(!output.success);
    assert!(
        output.content.starts_with("exit code 3 (failure)"),
        "{}",
        output.content
    );
    assert!(output
        .content
        .contains("building\nerror: missing semicolon\n"));
    assert!(output.content.contains("$ echo building;"));
    assert_eq!(output.details["exit_code"], 3);
}

#[tokio::test]
async fn a_missing_binary_is_exit_127_with_a_clear_message() {
    let (_dir, ctx) = workspace();
    let result = run("no-such-binary-rebound --version", &ctx).await;
    assert_eq!(result.exit_code, Some(127));
    let output = result.into_output();
    assert!(!output.success);
    assert!(
        output
            .content
            .contains("no-such-binary-rebound: command not found"),
        "{}",
        output.content
    );
    assert!(output
        .content
        .contains("exit code 127 means a command was not found"));
}

#[tokio::test]
async fn a_timeout_kills_the_whole_group() {
    let (dir, ctx) = workspace();
    let started = Instant::now();
    let result = run_command(
        "sleep 60 & echo $! > bg.pid; sleep 60",
        Some(Duration::from_secs(1)),
        &ShellConfig::default(),
        &ctx,
    )
    .await
    .unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert!(result.timed_out);
    assert!(!result.success());
    assert_eq!(result.exit_code, None);
    assert_eq!(result.signal, Some(libc::SIGTERM));
    let grandchild = read_pid(dir.path(), "bg.pid");
    assert!(
        gone_soon(grandchild).await,
        "grandchild {grandchild} survived"
    );
    let output = result.into_output();
    assert!(
        output.content.starts_with("timed out after 1."),
        "{}",
        output.content
    );
    assert_eq!(output.details["timed_out"], true);
}

#[tokio::test]
async fn a_command_ignoring_sigterm_is_killed_after_the_grace() {
    let (_dir, ctx) = workspace();
    let config = ShellConfig {
        kill_grace: Duration::from_millis(300),
        ..ShellConfig::default()
    };
    let started = Instant::now();
    let result = run_command(
        "trap '' TERM; while :; do sleep 0.1; done",
        Some(Duration::from_secs(1)),
        &config,
        &ctx,
    )
    .await
    .unwrap();
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(result.timed_out);
    assert_eq!(result.signal, Some(libc::SIGKILL));
}

#[tokio::test]
async fn a_grandchild_holding_the_pipes_does_not_hang_the_call() {
    let (dir, ctx) = workspace();
    let started = Instant::now();
    let result = run("(sleep 30 & echo $! > bg.pid); echo hi", &ctx).await;
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert!(result.success());
    assert_eq!(result.output, "hi\n");
    let grandchild = read_pid(dir.path(), "bg.pid");
    assert!(
        gone_soon(grandchild).await,
        "grandchild {grandchild} survived"
    );
}

#[tokio::test]
async fn cancellation_kills_the_group() {
    let (dir, ctx) = workspace();
    let token = CancellationToken::new();
    let ctx = ctx.with_cancellation(token.clone());
    let canceller = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(700)).await;
        token.cancel();
    });
    let started = Instant::now();
    let result = run("echo started; sleep 60 & echo $! > bg.pid; sleep 60", &ctx).await;
    canceller.await.unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert!(result.cancelled);
    assert!(!result.timed_out);
    assert!(!result.success());
    assert_eq!(
        result.output, "started\n",
        "output before the cancellation is kept"
    );
    let grandchild = read_pid(dir.path(), "bg.pid");
    assert!(
        gone_soon(grandchild).await,
        "grandchild {grandchild} survived"
    );
    assert!(result.into_output().content.starts_with("cancelled after"));
}

#[tokio::test]
async fn a_call_cancelled_before_it_starts_runs_nothing() {
    let (dir, ctx) = workspace();
    let token = CancellationToken::new();
    token.cancel();
    let ctx = ctx.with_cancellation(token);
    let error = run_command("touch ran", None, &ShellConfig::default(), &ctx)
        .await
        .unwrap_err();
    assert!(matches!(error, ToolError::Cancelled), "{error:?}");
    assert!(!dir.path().join("ran").exists());
}

#[tokio::test]
async fn a_hundred_megabytes_of_output_is_cut_with_bounded_memory() {
    let (dir, ctx) = workspace();
    let ctx = ctx.with_call_id("big-1");
    let started = Instant::now();
    let result = run("head -c 100000000 /dev/zero | tr '\\0' a", &ctx).await;
    let elapsed = started.elapsed();
    assert!(elapsed < Duration::from_secs(60), "took {elapsed:?}");
    assert!(result.success());
    assert_eq!(result.bytes, 100_000_000);
    assert!(result.truncated);
    let config = ShellConfig::default();
    // Head, marker and tail: nothing else.
    assert!(result.output.len() < config.head_bytes + config.tail_bytes + 400);
    assert!(result.output.starts_with(&"a".repeat(config.head_bytes)));
    assert!(result.output.ends_with(&"a".repeat(config.tail_bytes)));
    let cut = 100_000_000 - config.head_bytes - config.tail_bytes;
    assert!(
        result
            .output
            .contains(&format!("[... {cut} bytes cut (100000000 bytes in all)")),
        "{}",
        &result.output[config.head_bytes..config.head_bytes + 300]
    );
    // The log holds the first 64 MiB and says it was capped.
    let log = result.log_path.clone().unwrap();
    assert_eq!(
        log,
        dir.path()
            .join(".rebound/artifacts/shell-big-1.log")
            .canonicalize()
            .unwrap()
    );
    assert!(result.log_capped);
    let size = std::fs::metadata(&log).unwrap().len();
    assert!(
        size > config.log_cap && size < config.log_cap + 200,
        "{size}"
    );
    assert!(result.output.contains(&log.display().to_string()));
}

#[tokio::test]
async fn the_log_holds_the_full_output_when_it_outgrows_memory() {
    let (_dir, ctx) = workspace();
    // About 1.3 MB: more than the 1 MiB kept in memory.
    let result = run("seq 1 200000; echo done >&2", &ctx).await;
    assert!(result.truncated);
    assert!(!result.log_capped);
    let log = std::fs::read_to_string(result.log_path.as_ref().unwrap()).unwrap();
    let mut expected: String = (1..=200_000).map(|n| format!("{n}\n")).collect();
    expected.push_str("done\n");
    assert_eq!(log.len() as u64, result.bytes);
    assert_eq!(log, expected);
    assert!(result.output.starts_with("1\n2\n3\n"));
    assert!(result.output.ends_with("199999\n200000\ndone\n"));
}

#[tokio::test]
async fn output_too_long_to_show_but_small_is_logged_from_memory() {
    let (_dir, ctx) = workspace();
    let config = ShellConfig {
        head_bytes: 10,
        tail_bytes: 10,
        ..ShellConfig::default()
    };
    let result = run_command("seq 1 100", None, &config, &ctx).await.unwrap();
    assert!(result.truncated);
    let log = std::fs::read_to_string(result.log_path.as_ref().unwrap()).unwrap();
    let expected: String = (1..=100).map(|n| format!("{n}\n")).collect();
    assert_eq!(log, expected);
    let cut = expected.len() - 20;
    assert!(result.output.starts_with("1\n2\n3\n4\n5\n"));
    assert!(result.output.contains(&format!("[... {cut} bytes cut")));
    assert!(
        result.output.ends_with(" ...]\n98\n99\n100\n"),
        "{}",
        result.output
    );
}

#[tokio::test]
async fn binary_output_is_made_printable() {
    let (_dir, ctx) = workspace();
    let command = "head -c 4096 /dev/urandom; printf '\\n\\033[31mred\\033[0m\\n'";
    let result = run(command, &ctx).await;
    assert!(result.success());
    assert_eq!(result.bytes, 4096 + "\n\x1b[31mred\x1b[0m\n".len() as u64);
    assert!(!result.output.is_empty());
    let bad: Vec<char> = result
        .output
        .chars()
        .filter(|c| c.is_control() && *c != '\n' && *c != '\t')
        .collect();
    assert!(bad.is_empty(), "control characters left: {bad:?}");
    assert!(result.output.ends_with("red\n"), "colour codes dropped");
    serde_json::to_string(&result.into_output()).unwrap();
}

#[tokio::test]
async fn secrets_are_scrubbed_from_the_environment() {
    // Names no other test reads; set once, in this test only.
    std::env::set_var("REBOUND_SHELL_TEST_TOKEN", "hunter2");
    std::env::set_var("REBOUND_SHELL_TEST_DB_PASSWORD", "pa55");
    std::env::set_var("OPENAI_API_KEY", "sk-not-for-commands");
    std::env::set_var("REBOUND_SHELL_TEST_ALLOWED_KEY", "allowed-value");
    std::env::set_var("REBOUND_SHELL_TEST_PLAIN", "plain-value");
    let (_dir, ctx) = workspace();
    let config = ShellConfig {
        env_allow: vec!["REBOUND_SHELL_TEST_ALLOWED_KEY".to_string()],
        ..ShellConfig::default()
    };
    let result = run_command("env", None, &config, &ctx).await.unwrap();
    assert!(result.success());
    let env = result.output;
    assert!(!env.contains("hunter2"), "{env}");
    assert!(!env.contains("pa55"));
    assert!(!env.contains("OPENAI_API_KEY"));
    assert!(env.contains("REBOUND_SHELL_TEST_ALLOWED_KEY=allowed-value\n"));
    assert!(env.contains("REBOUND_SHELL_TEST_PLAIN=plain-value\n"));
    assert!(env.contains("GIT_TERMINAL_PROMPT=0\n"));
    assert!(env.contains("PYTHONDONTWRITEBYTECODE=1\n"));
}

#[tokio::test]
async fn a_timeout_above_the_maximum_is_cut_to_it() {
    let (_dir, ctx) = workspace();
    let config = ShellConfig {
        max_timeout: Duration::from_secs(1),
        ..ShellConfig::default()
    };
    let started = Instant::now();
    let result = run_command("sleep 30", Some(Duration::from_secs(100)), &config, &ctx)
        .await
        .unwrap();
    assert!(result.timed_out);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn the_tool_takes_a_per_call_timeout_from_json() {
    let (_dir, ctx) = workspace();
    let mut registry = ToolRegistry::new();
    registry.register(ShellTool::new(ShellConfig::default()));
    let started = Instant::now();
    let output = registry
        .call(
            "shell",
            json!({"command": "echo waiting; sleep 30", "timeout_secs": 1}),
            &ctx,
        )
        .await;
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert!(!output.success);
    assert_eq!(output.details["timed_out"], true);
    assert!(
        output.content.starts_with("timed out after 1."),
        "{}",
        output.content
    );
    assert!(output.content.contains("waiting"));

    let output = registry
        .call("shell", json!({"command": "echo fine"}), &ctx)
        .await;
    assert!(output.success, "{}", output.content);
    assert!(output.content.contains("\nfine\n"));
}

#[tokio::test]
async fn bad_arguments_come_back_as_a_failed_output_naming_the_field() {
    let (_dir, ctx) = workspace();
    let mut registry = ToolRegistry::new();
    registry.register(ShellTool::default());
    let output = registry.call("shell", json!({"command": 5}), &ctx).await;
    assert!(!output.success);
    assert!(output.content.contains("`command`"), "{}", output.content);
    assert_eq!(output.details["error"], "bad_arguments");

    let output = registry.call("shell", json!({"cmd": "ls"}), &ctx).await;
    assert!(!output.success);
    assert!(output.content.contains("cmd"), "{}", output.content);

    let output = registry
        .call("shell", json!({"command": "ls", "timeout_secs": -1}), &ctx)
        .await;
    assert!(!output.success);
    assert!(
        output.content.contains("timeout_secs"),
        "{}",
        output.content
    );

    let output = registry.call("shell", json!({"command": "  "}), &ctx).await;
    assert!(!output.success);
    assert!(output.content.contains("empty"), "{}", output.content);
}

#[tokio::test]
async fn the_tool_describes_itself_and_names_its_command() {
    let tool = ShellTool::default();
    assert_eq!(tool.name(), "shell");
    let schema = tool.parameters();
    assert_eq!(schema["required"], json!(["command"]));
    assert_eq!(schema["additionalProperties"], false);
    let description = schema["properties"]["command"]["description"]
        .as_str()
        .unwrap();
    assert!(description.contains("bash -c"), "{description}");
    assert!(schema["properties"]["timeout_secs"]["description"].is_string());
    assert_eq!(
        tool.command_line(&json!({"command": "cargo test"})),
        Some("cargo test".to_string())
    );
    assert!(tool.description().contains("120 s"));
}

#[tokio::test]
async fn lines_stream_to_the_sink() {
    let (_dir, ctx) = workspace();
    let lines: Arc<Mutex<Vec<(String, String)>>> = Arc::default();
    let seen = Arc::clone(&lines);
    let ctx = ctx.with_output(Arc::new(
        move |stream: rebound_protocol::Stream, line: &str| {
            seen.lock()
                .unwrap()
                .push((stream.as_str().to_string(), line.to_string()));
        },
    ));
    let result = run(
        "echo one; sleep 0.1; echo two >&2; sleep 0.1; printf three",
        &ctx,
    )
    .await;
    assert!(result.success());
    let lines = lines.lock().unwrap().clone();
    let expected = [("stdout", "one"), ("stderr", "two"), ("stdout", "three")]
        .map(|(stream, line)| (stream.to_string(), line.to_string()));
    assert_eq!(lines, expected);
}

#[tokio::test]
async fn failing_to_start_bash_is_a_tool_error() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().join("gone");
    std::fs::create_dir(&workspace).unwrap();
    let ctx = ToolContext::new(&workspace).unwrap();
    std::fs::remove_dir(&workspace).unwrap();
    let unsandboxed = ShellConfig {
        sandbox: SandboxPolicy::off(),
        ..ShellConfig::default()
    };
    let error = run_command("true", None, &unsandboxed, &ctx)
        .await
        .unwrap_err();
    assert!(matches!(error, ToolError::Io { .. }), "{error:?}");
    assert!(error.to_string().contains("bash"), "{error}");
    // Sandboxed, the missing workspace is already an error setting up.
    let error = run_command("true", None, &ShellConfig::default(), &ctx).await;
    assert!(error.is_err(), "{error:?}");
}
