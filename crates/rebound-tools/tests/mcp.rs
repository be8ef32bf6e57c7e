//! The MCP client against a real MCP server: `tests/fixtures/mcp_server.py`,
//! a Python 3 (standard library only) stdio server. Every test is skipped,
//! with a printed reason, when `python3` is not available, unless
//! `REBOUND_REQUIRE_PYTHON` is set (as on CI): then its absence fails.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::future::Future;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rebound_tools::mcp::{start_all, start_each, McpClient, McpServerConfig};
use rebound_tools::{Tool, ToolContext, ToolError, ToolRegistry};
use serde_json::json;
use tokio_util::sync::CancellationToken;

/// Whether `python3` runs; prints why a test is skipped when it does not.
fn have_python() -> bool {
    let ok = std::process::Command::new("python3")
        .arg("--version")
        .output()
        .map(|output| output.status.success())
        .unwrap_or(false);
    if !ok {
        assert!(
            std::env::var_os("REBOUND_REQUIRE_PYTHON").is_none(),
            "REBOUND_REQUIRE_PYTHON is set, but python3 does not run"
        );
        eprintln!("skipped: python3 is not available to run the test MCP server");
    }
    ok
}

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mcp_server.py")
}

/// The test server, named `name`.
fn server(name: &str) -> McpServerConfig {
    McpServerConfig::new(name, "python3").with_args([fixture().to_string_lossy().to_string()])
}

/// The test server, with extra `args` for it.
fn server_with(name: &str, args: &[&str]) -> McpServerConfig {
    let mut config = server(name);
    config.args.extend(args.iter().map(|arg| arg.to_string()));
    config
}

/// A context in a fresh workspace (kept alive by the returned guard).
fn context() -> (ToolContext, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    (ToolContext::new(dir.path()).unwrap(), dir)
}

/// `future`, which must finish within `secs` seconds: nothing here may hang.
async fn within<F: Future>(secs: u64, future: F) -> F::Output {
    tokio::time::timeout(Duration::from_secs(secs), future)
        .await
        .unwrap_or_else(|_| panic!("did not finish within {secs} s"))
}

async fn start(config: McpServerConfig) -> McpClient {
    within(30, McpClient::start(config)).await.unwrap()
}

fn tool(client: &McpClient, name: &str) -> std::sync::Arc<dyn Tool> {
    client
        .tools()
        .into_iter()
        .find(|tool| tool.name() == name)
        .unwrap_or_else(|| panic!("no tool {name}"))
}

/// The server's message of a [`ToolError::Mcp`], checking it names `server`.
fn mcp_message(error: ToolError, server: &str) -> String {
    match error {
        ToolError::Mcp {
            server: named,
            message,
        } => {
            assert_eq!(named, server);
            message
        }
        other => panic!("expected ToolError::Mcp, got {other:?}"),
    }
}

/// Whether process `pid` still exists (a zombie counts when `zombie_is_alive`).
fn process_exists(pid: u32, zombie_is_alive: bool) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => false,
        Ok(stat) => {
            let state = stat
                .rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().next())
                .unwrap_or("?");
            zombie_is_alive || state != "Z"
        }
    }
}

/// Waits (up to 5 s) until process `pid` is gone.
async fn assert_gone(pid: u32, zombie_is_alive: bool) {
    let deadline = Instant::now() + Duration::from_secs(5);
    while process_exists(pid, zombie_is_alive) {
        assert!(Instant::now() < deadline, "process {pid} is still there");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn lists_the_tools_with_prefixed_names_and_their_schemas() {
    if !have_python() {
        return;
    }
    let client = start(server("test")).await;
    assert_eq!(client.name(), "test");
    let mut names: Vec<String> = client
        .tools()
        .iter()
        .map(|tool| tool.name().to_string())
        .collect();
    names.sort();
    // Ten tools over two pages of `tools/list`.
    assert_eq!(
        names,
        [
            "test__add",
            "test__crash",
            "test__cwd",
            "test__dotted_name_x",
            "test__echo",
            "test__env",
            "test__fail",
            "test__image",
            "test__slow",
            "test__spawn_sleeper",
        ]
    );
    let echo = tool(&client, "test__echo");
    assert_eq!(echo.description(), "Echoes the text back.");
    assert_eq!(
        echo.parameters(),
        json!({
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
        })
    );
    let dotted = tool(&client, "test__dotted_name_x");
    assert_eq!(
        dotted.description(),
        "Tool \"dotted.name/x\" of the MCP server \"test\"."
    );
    assert_eq!(dotted.parameters(), json!({"type": "object"}));
    client.shutdown().await;
}

#[tokio::test]
async fn echo_and_add_return_the_right_content() {
    if !have_python() {
        return;
    }
    let client = start(server("calc")).await;
    let (ctx, _dir) = context();

    let echoed = within(
        10,
        tool(&client, "calc__echo").call(json!({"text": "hello"}), &ctx),
    )
    .await
    .unwrap();
    assert!(echoed.success);
    assert_eq!(echoed.content, "hello");
    assert_eq!(echoed.details, json!({"server": "calc", "tool": "echo"}));

    let sum = within(
        10,
        tool(&client, "calc__add").call(json!({"a": 2, "b": 3.5}), &ctx),
    )
    .await
    .unwrap();
    assert!(sum.success);
    assert_eq!(sum.content, "5.5");
    assert_eq!(
        sum.details,
        json!({"server": "calc", "tool": "add", "structured_content": {"sum": 5.5}})
    );

    // The remote name is what is called, not the sanitized one.
    let dotted = within(
        10,
        tool(&client, "calc__dotted_name_x").call(json!({}), &ctx),
    )
    .await
    .unwrap();
    assert_eq!(dotted.content, "dotted");
    client.shutdown().await;
}

#[tokio::test]
async fn a_result_with_is_error_is_a_failed_output() {
    if !have_python() {
        return;
    }
    let client = start(server("test")).await;
    let (ctx, _dir) = context();
    let output = within(10, tool(&client, "test__fail").call(json!({}), &ctx))
        .await
        .unwrap();
    assert!(!output.success);
    assert_eq!(output.content, "this tool always fails");
    assert_eq!(output.details["is_error"], json!(true));
    client.shutdown().await;
}

#[tokio::test]
async fn non_text_content_is_summarised() {
    if !have_python() {
        return;
    }
    let client = start(server("test")).await;
    let (ctx, _dir) = context();
    let output = within(10, tool(&client, "test__image").call(json!({}), &ctx))
        .await
        .unwrap();
    assert!(output.success);
    assert_eq!(
        output.content,
        "[image content: image/png, 8 bytes of base64]\n\
         [resource file:///notes.txt]\nembedded notes\n\
         caption"
    );
    client.shutdown().await;
}

#[tokio::test]
async fn tools_work_through_a_registry_and_bad_arguments_are_a_failed_output() {
    if !have_python() {
        return;
    }
    let client = start(server("test")).await;
    let (ctx, _dir) = context();
    let mut registry = ToolRegistry::new();
    for tool in client.tools() {
        registry.register_arc(tool);
    }
    assert_eq!(registry.len(), 10);
    let add = registry
        .definitions()
        .into_iter()
        .find(|definition| definition.name == "test__add")
        .unwrap();
    assert_eq!(add.description, "Adds two numbers.");
    assert_eq!(add.parameters["required"], json!(["a", "b"]));

    let output = within(
        10,
        registry.call("test__echo", json!({"text": "via the registry"}), &ctx),
    )
    .await;
    assert!(output.success, "{output:?}");
    assert_eq!(output.content, "via the registry");

    for bad in [json!("text"), json!([1, 2]), json!(7)] {
        let output = within(10, registry.call("test__echo", bad.clone(), &ctx)).await;
        assert!(!output.success, "{bad} was accepted");
        assert_eq!(output.details, json!({"error": "bad_arguments"}));
        assert!(
            output.content.contains("must be a JSON object"),
            "{}",
            output.content
        );
    }
    let error = within(10, tool(&client, "test__echo").call(json!([]), &ctx))
        .await
        .unwrap_err();
    assert!(
        matches!(&error, ToolError::BadArguments { tool, .. } if tool == "test__echo"),
        "{error:?}"
    );
    // The server's own check of the arguments comes back as a failed output.
    let output = within(10, registry.call("test__add", json!({"a": 1}), &ctx)).await;
    assert!(!output.success);
    assert!(
        output.content.contains("bad arguments"),
        "{}",
        output.content
    );
    client.shutdown().await;
}

#[tokio::test]
async fn a_server_that_crashes_mid_call_is_a_clear_error_not_a_hang() {
    if !have_python() {
        return;
    }
    let client = start(server("crashy")).await;
    let pid = client.pid().unwrap();
    let (ctx, _dir) = context();
    let error = within(15, tool(&client, "crashy__crash").call(json!({}), &ctx))
        .await
        .unwrap_err();
    let message = mcp_message(error, "crashy");
    assert!(
        message.contains("the server exited during the call to tool \"crash\""),
        "{message}"
    );
    assert!(message.contains("exit code 3"), "{message}");
    assert!(
        message.contains("crash: exiting with code 3 on purpose"),
        "{message}"
    );
    // The dead server's process is reaped, not left a zombie.
    assert_gone(pid, true).await;

    // Later calls fail at once, through a registry as a failed output.
    let started = Instant::now();
    let mut registry = ToolRegistry::new();
    registry.register_arc(tool(&client, "crashy__echo"));
    let output = within(
        10,
        registry.call("crashy__echo", json!({"text": "hi"}), &ctx),
    )
    .await;
    assert!(!output.success);
    assert_eq!(output.details, json!({"error": "mcp"}));
    assert!(output.content.contains("exit code 3"), "{}", output.content);
    assert!(started.elapsed() < Duration::from_secs(3));
    within(15, client.shutdown()).await;
}

#[tokio::test]
async fn a_call_that_takes_too_long_times_out() {
    if !have_python() {
        return;
    }
    let client = start(server("slowpoke").with_call_timeout_secs(1)).await;
    let (ctx, _dir) = context();
    let started = Instant::now();
    let error = within(
        10,
        tool(&client, "slowpoke__slow").call(json!({"seconds": 20}), &ctx),
    )
    .await
    .unwrap_err();
    let elapsed = started.elapsed();
    let message = mcp_message(error, "slowpoke");
    assert!(
        message.contains("tool \"slow\" did not answer within 1 s"),
        "{message}"
    );
    assert!(elapsed >= Duration::from_millis(900), "{elapsed:?}");
    assert!(elapsed < Duration::from_secs(4), "{elapsed:?}");
    within(15, client.shutdown()).await;
}

#[tokio::test]
async fn cancellation_aborts_the_wait() {
    if !have_python() {
        return;
    }
    let client = start(server("test")).await;
    let (ctx, _dir) = context();
    let token = CancellationToken::new();
    let ctx = ctx.with_cancellation(token.clone());
    let canceller = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        token.cancel();
    });
    let started = Instant::now();
    let result = within(
        10,
        tool(&client, "test__slow").call(json!({"seconds": 20}), &ctx),
    )
    .await;
    assert!(matches!(result, Err(ToolError::Cancelled)), "{result:?}");
    assert!(started.elapsed() < Duration::from_secs(3));
    canceller.await.unwrap();
    within(15, client.shutdown()).await;
}

#[tokio::test]
async fn a_missing_binary_is_a_clear_error_naming_the_server_and_command() {
    let config = McpServerConfig::new("ghost", "rebound-no-such-mcp-server").with_args(["--stdio"]);
    let error = within(10, McpClient::start(config)).await.unwrap_err();
    let message = mcp_message(error, "ghost");
    assert!(
        message.contains("cannot start `rebound-no-such-mcp-server --stdio`"),
        "{message}"
    );
    assert!(
        message.contains("is it installed and on PATH?"),
        "{message}"
    );
    assert!(
        ToolError::Mcp {
            server: "ghost".into(),
            message: String::new()
        }
        .to_string()
        .contains("MCP server \"ghost\""),
        "the error's display names the server"
    );
}

#[tokio::test]
async fn a_missing_working_directory_is_a_clear_error() {
    let config = McpServerConfig::new("nowhere", "python3").with_cwd("/rebound/no/such/directory");
    let error = within(10, McpClient::start(config)).await.unwrap_err();
    let message = mcp_message(error, "nowhere");
    assert!(message.contains("is not a directory"), "{message}");
}

#[tokio::test]
async fn a_server_that_exits_at_once_is_a_clear_error_with_its_stderr() {
    if !have_python() {
        return;
    }
    let config = server_with(
        "quitter",
        &[
            "--stderr",
            "fatal: no configuration found",
            "--exit-at-start",
            "1",
        ],
    );
    let error = within(15, McpClient::start(config)).await.unwrap_err();
    let message = mcp_message(error, "quitter");
    assert!(message.contains("cannot start `python3 "), "{message}");
    assert!(
        message.contains("the server stopped before it could answer `initialize`"),
        "{message}"
    );
    assert!(message.contains("exit code 1"), "{message}");
    assert!(
        message.contains("fatal: no configuration found"),
        "{message}"
    );

    // The example of the issue: nothing on stderr at all.
    let config =
        McpServerConfig::new("silent", "python3").with_args(["-c", "import sys; sys.exit(1)"]);
    let error = within(15, McpClient::start(config)).await.unwrap_err();
    let message = mcp_message(error, "silent");
    assert!(message.contains("exit code 1"), "{message}");
    assert!(message.contains("it wrote nothing to stderr"), "{message}");
}

#[tokio::test]
async fn a_server_without_tools_starts_and_a_failed_listing_is_an_error() {
    if !have_python() {
        return;
    }
    let client = start(server_with("prompts_only", &["--no-tools"])).await;
    assert!(client.tools().is_empty());
    client.shutdown().await;

    let error = within(
        15,
        McpClient::start(server_with("locked", &["--broken-list"])),
    )
    .await
    .unwrap_err();
    let message = mcp_message(error, "locked");
    assert!(
        message.contains("the server failed to list its tools (`tools/list`)"),
        "{message}"
    );
    assert!(message.contains("the tool database is locked"), "{message}");
}

#[tokio::test]
async fn a_server_that_never_answers_times_out_at_startup() {
    let config = McpServerConfig::new("mute", "sleep")
        .with_args(["30"])
        .with_startup_timeout_secs(1);
    let started = Instant::now();
    let error = within(10, McpClient::start(config)).await.unwrap_err();
    let elapsed = started.elapsed();
    let message = mcp_message(error, "mute");
    assert!(
        message
            .contains("cannot start `sleep 30`: the server did not answer `initialize` within 1 s"),
        "{message}"
    );
    // It was killed by rebound, which is not news to report.
    assert!(!message.contains("signal"), "{message}");
    assert!(elapsed >= Duration::from_millis(900), "{elapsed:?}");
    assert!(elapsed < Duration::from_secs(4), "{elapsed:?}");
}

#[tokio::test]
async fn shutdown_stops_the_server_and_everything_it_started() {
    if !have_python() {
        return;
    }
    let client = start(server("test")).await;
    let pid = client.pid().unwrap();
    assert!(process_exists(pid, false));
    let (ctx, _dir) = context();
    let sleeper = within(
        10,
        tool(&client, "test__spawn_sleeper").call(json!({}), &ctx),
    )
    .await
    .unwrap();
    let sleeper: u32 = sleeper.content.parse().unwrap();
    assert!(process_exists(sleeper, false));
    let echo = tool(&client, "test__echo");

    within(15, client.shutdown()).await;
    // The server is gone and reaped (no zombie)...
    assert_gone(pid, true).await;
    // ...and so is what it left running in its process group (reaped by
    // whoever adopted it, so a zombie counts as gone).
    assert_gone(sleeper, false).await;

    // Its tools now say so, at once.
    let error = within(5, echo.call(json!({"text": "hi"}), &ctx))
        .await
        .unwrap_err();
    let message = mcp_message(error, "test");
    assert!(message.contains("was shut down"), "{message}");
}

#[tokio::test]
async fn dropping_the_client_kills_the_server() {
    if !have_python() {
        return;
    }
    let client = start(server("test")).await;
    let pid = client.pid().unwrap();
    assert!(process_exists(pid, false));
    drop(client);
    assert_gone(pid, true).await;
}

#[tokio::test]
async fn the_server_gets_its_env_and_cwd_but_not_rebound_s_environment() {
    if !have_python() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let config = server("test")
        .with_env("REBOUND_MCP_TEST_VALUE", "from config")
        .with_cwd(dir.path());
    let client = start(config).await;
    let (ctx, _guard) = context();
    let env = tool(&client, "test__env");

    let output = within(
        10,
        env.call(json!({"name": "REBOUND_MCP_TEST_VALUE"}), &ctx),
    )
    .await
    .unwrap();
    assert_eq!(output.content, "from config");
    let output = within(10, env.call(json!({"name": "PATH"}), &ctx))
        .await
        .unwrap();
    assert_ne!(output.content, "<unset>");
    // Cargo sets CARGO_MANIFEST_DIR for the test run: it is not passed on.
    if std::env::var_os("CARGO_MANIFEST_DIR").is_some() {
        let output = within(10, env.call(json!({"name": "CARGO_MANIFEST_DIR"}), &ctx))
            .await
            .unwrap();
        assert_eq!(output.content, "<unset>");
    }

    let output = within(10, tool(&client, "test__cwd").call(json!({}), &ctx))
        .await
        .unwrap();
    assert_eq!(
        std::fs::canonicalize(output.content).unwrap(),
        std::fs::canonicalize(dir.path()).unwrap()
    );
    client.shutdown().await;
}

#[tokio::test]
async fn start_all_starts_every_server_or_none() {
    if !have_python() {
        return;
    }
    let clients = within(30, start_all(&[server("one"), server("two")]))
        .await
        .unwrap();
    let names: Vec<&str> = clients.iter().map(McpClient::name).collect();
    assert_eq!(names, ["one", "two"]);
    assert!(clients[1]
        .tools()
        .iter()
        .any(|tool| tool.name() == "two__echo"));
    for client in clients {
        client.shutdown().await;
    }

    let error = within(10, start_all(&[server("same"), server("same")]))
        .await
        .unwrap_err();
    let message = mcp_message(error, "same");
    assert!(message.contains("two servers are configured with this name"));

    let error = within(10, start_all(&[server("a.b"), server("a_b")]))
        .await
        .unwrap_err();
    let message = mcp_message(error, "a_b");
    assert!(message.contains("the same name prefix"), "{message}");

    let missing = McpServerConfig::new("missing", "rebound-no-such-mcp-server");
    let error = within(30, start_all(&[server("fine"), missing.clone()]))
        .await
        .unwrap_err();
    let message = mcp_message(error, "missing");
    assert!(message.contains("is it installed"), "{message}");

    // start_each reports each server, in order.
    let results = within(30, start_each(&[missing, server("fine")])).await;
    assert!(results[0].is_err());
    let fine = results.into_iter().nth(1).unwrap().unwrap();
    assert_eq!(fine.name(), "fine");
    fine.shutdown().await;
}

#[test]
fn the_config_has_defaults_and_rejects_unknown_fields() {
    let config: McpServerConfig =
        serde_json::from_value(json!({"name": "fs", "command": "mcp-fs"})).unwrap();
    assert_eq!(config, McpServerConfig::new("fs", "mcp-fs"));
    assert_eq!(config.startup_timeout_secs, 10);
    assert_eq!(config.call_timeout_secs, 60);
    assert!(config.args.is_empty() && config.env.is_empty() && config.cwd.is_none());

    let config: McpServerConfig = serde_json::from_value(json!({
        "name": "fs",
        "command": "mcp-fs",
        "args": ["--root", "."],
        "env": {"TOKEN": "x"},
        "cwd": "/tmp",
        "startup_timeout_secs": 3,
        "call_timeout_secs": 5,
    }))
    .unwrap();
    assert_eq!(
        config,
        McpServerConfig::new("fs", "mcp-fs")
            .with_args(["--root", "."])
            .with_env("TOKEN", "x")
            .with_cwd("/tmp")
            .with_startup_timeout_secs(3)
            .with_call_timeout_secs(5)
    );

    let error = serde_json::from_value::<McpServerConfig>(
        json!({"name": "fs", "command": "mcp-fs", "timeout": 3}),
    )
    .unwrap_err();
    assert!(
        error.to_string().contains("unknown field `timeout`"),
        "{error}"
    );
}

/// A server started in the sandbox writes nowhere but the workspace, the
/// temp dir and its own `writable` paths: a server that tries to write
/// outside at start-up (as a hostile one would) is stopped by Landlock and
/// still serves. The same server unsandboxed does write (the control).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sandboxed_server_cannot_write_outside_the_workspace() {
    if !have_python() {
        return;
    }
    if !rebound_tools::sandbox::landlock_supported() {
        assert!(
            std::env::var_os("REBOUND_REQUIRE_SANDBOX").is_none(),
            "REBOUND_REQUIRE_SANDBOX is set, but {}",
            rebound_tools::sandbox::sandbox_status()
        );
        eprintln!("skipped: {}", rebound_tools::sandbox::sandbox_status());
        return;
    }
    let outside = tempfile::Builder::new()
        .prefix("mcp-outside-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap();
    let workspace = tempfile::tempdir().unwrap();
    let marker = outside.path().join("PWNED");
    let script = format!(
        "touch '{}' 2>/dev/null; exec python3 '{}'",
        marker.display(),
        fixture().display()
    );
    let hostile = McpServerConfig::new("boxed", "sh").with_args(["-c", script.as_str()]);
    let boxed = start(hostile.clone().in_sandbox(
        rebound_tools::sandbox::SandboxPolicy::default(),
        workspace.path(),
    ))
    .await;
    assert!(!boxed.tools().is_empty(), "the sandboxed server serves");
    assert!(!marker.exists(), "the sandboxed server wrote outside");
    boxed.shutdown().await;

    let mut allowed = hostile.clone();
    allowed.writable = vec![outside.path().to_path_buf()];
    let allowed = start(allowed.in_sandbox(
        rebound_tools::sandbox::SandboxPolicy::default(),
        workspace.path(),
    ))
    .await;
    assert!(marker.exists(), "its own writable path is writable");
    allowed.shutdown().await;
}
