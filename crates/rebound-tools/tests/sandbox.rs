//! The Landlock sandbox, with real processes: what a sandboxed command may
//! and may not write, and the network switch.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use rebound_tools::sandbox::{
    landlock_supported, sandbox_status, SandboxMode, SandboxPolicy, SandboxStatus,
};
use rebound_tools::shell::{run_command, CommandResult, ShellConfig};
use rebound_tools::ToolContext;
use tempfile::TempDir;

/// Whether to skip: Landlock is not available here. Where the sandbox
/// must be present (`REBOUND_REQUIRE_SANDBOX`, set by CI), its absence is
/// a failure, not a skip.
fn skip() -> bool {
    if landlock_supported() {
        return false;
    }
    assert!(
        std::env::var_os("REBOUND_REQUIRE_SANDBOX").is_none(),
        "REBOUND_REQUIRE_SANDBOX is set, but {}",
        sandbox_status()
    );
    eprintln!("skipping: {}", sandbox_status());
    true
}

/// A directory outside both the workspace and the temp dir (which the
/// sandbox allows): under Cargo's target dir.
fn outside() -> TempDir {
    let dir = tempfile::Builder::new()
        .prefix("sandbox-outside-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap();
    let temp = std::env::temp_dir().canonicalize().unwrap();
    assert!(
        !dir.path().canonicalize().unwrap().starts_with(temp),
        "the target dir must not be under the temp dir for these tests"
    );
    dir
}

fn workspace() -> (TempDir, ToolContext) {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolContext::new(dir.path()).unwrap();
    (dir, ctx)
}

fn config(sandbox: SandboxPolicy) -> ShellConfig {
    ShellConfig {
        sandbox,
        ..ShellConfig::default()
    }
}

async fn run(command: &str, sandbox: SandboxPolicy, ctx: &ToolContext) -> CommandResult {
    run_command(command, None, &config(sandbox), ctx)
        .await
        .unwrap()
}

fn quoted(path: &Path) -> String {
    shlex::try_quote(path.to_str().unwrap())
        .unwrap()
        .into_owned()
}

#[tokio::test]
async fn writes_outside_the_workspace_fail_and_inside_succeed() {
    if skip() {
        return;
    }
    let (workspace, ctx) = workspace();
    let outside = outside();
    let target: PathBuf = outside.path().join("escaped.txt");
    let command = format!(
        "echo inside > inside.txt && mkdir -p sub && echo nested > sub/file && echo escaped > {}",
        quoted(&target)
    );
    let result = run(&command, SandboxPolicy::default(), &ctx).await;
    assert!(result.sandboxed);
    assert!(!result.success(), "{}", result.output);
    assert!(!target.exists(), "the sandbox let a write outside through");
    assert!(
        result.output.contains("Permission denied"),
        "{}",
        result.output
    );
    assert_eq!(
        std::fs::read_to_string(workspace.path().join("inside.txt")).unwrap(),
        "inside\n"
    );
    assert_eq!(
        std::fs::read_to_string(workspace.path().join("sub/file")).unwrap(),
        "nested\n"
    );
    let output = result.into_output();
    assert!(
        output
            .content
            .contains("can write only inside the workspace"),
        "{}",
        output.content
    );

    // Only the spawning thread was restricted, never this process.
    std::fs::write(&target, "from the test").unwrap();
}

#[tokio::test]
async fn a_tools_home_cache_moves_into_the_workspace_under_the_sandbox() {
    // Go refuses to build without its build cache, which it keeps under
    // the home directory the sandbox makes read-only.
    if skip() || std::env::var_os("GOCACHE").is_some() {
        return;
    }
    let (workspace, ctx) = workspace();
    let command = "echo \"$GOCACHE\" && mkdir -p \"$GOCACHE\" && echo cached > \"$GOCACHE/x\"";
    let result = run(command, SandboxPolicy::default(), &ctx).await;
    assert!(result.success(), "{}", result.output);
    let expected = workspace
        .path()
        .canonicalize()
        .unwrap()
        .join(".rebound/cache/go-build");
    assert_eq!(result.output, format!("{}\n", expected.display()));
    assert_eq!(
        std::fs::read_to_string(expected.join("x")).unwrap(),
        "cached\n"
    );
    // Unsandboxed, the tool keeps its own place.
    let result = run("echo \"[$GOCACHE]\"", SandboxPolicy::off(), &ctx).await;
    assert_eq!(result.output, "[]\n");
}

#[tokio::test]
async fn reading_anywhere_and_writing_temp_files_and_dev_null_work() {
    if skip() {
        return;
    }
    let (_workspace, ctx) = workspace();
    let outside = outside();
    std::fs::write(outside.path().join("data.txt"), "readable\n").unwrap();
    let command = format!(
        "cat {}/data.txt && tmp=$(mktemp) && echo t > \"$tmp\" && rm \"$tmp\" && echo quiet > /dev/null && echo ok",
        quoted(outside.path())
    );
    let result = run(&command, SandboxPolicy::default(), &ctx).await;
    assert!(result.success(), "{}", result.output);
    assert_eq!(result.output, "readable\nok\n");
}

#[tokio::test]
async fn rewriting_files_outside_is_denied_too() {
    if skip() {
        return;
    }
    let (_workspace, ctx) = workspace();
    let outside = outside();
    let existing = outside.path().join("existing.txt");
    std::fs::write(&existing, "original").unwrap();
    let command = format!(
        "echo changed > {0}; truncate -s 0 {0}; rm -f {0}; echo done",
        quoted(&existing)
    );
    let result = run(&command, SandboxPolicy::default(), &ctx).await;
    assert!(
        result.output.contains("Permission denied"),
        "{}",
        result.output
    );
    // stdout and stderr are separate pipes: "done" may come before rm's error.
    assert!(result.output.contains("done\n"), "{}", result.output);
    assert_eq!(std::fs::read_to_string(&existing).unwrap(), "original");
}

#[tokio::test]
async fn extra_writable_paths_are_allowed() {
    if skip() {
        return;
    }
    let (_workspace, ctx) = workspace();
    let outside = outside();
    let target = outside.path().join("allowed.txt");
    let policy = SandboxPolicy {
        writable: vec![outside.path().to_path_buf(), PathBuf::from("/no/such/dir")],
        ..SandboxPolicy::default()
    };
    let result = run(&format!("echo yes > {}", quoted(&target)), policy, &ctx).await;
    assert!(result.success(), "{}", result.output);
    assert!(result.sandboxed);
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "yes\n");
}

#[tokio::test]
async fn mode_off_allows_the_outside_write() {
    let (_workspace, ctx) = workspace();
    let outside = outside();
    let target = outside.path().join("unsandboxed.txt");
    let policy = SandboxPolicy {
        mode: SandboxMode::Off,
        allow_unsandboxed: false,
        ..SandboxPolicy::default()
    };
    let result = run(&format!("echo free > {}", quoted(&target)), policy, &ctx).await;
    assert!(result.success(), "{}", result.output);
    assert!(!result.sandboxed);
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "free\n");
}

#[tokio::test]
async fn network_off_blocks_tcp_connect_and_bind() {
    if skip() {
        return;
    }
    if !sandbox_status().network_rules() {
        eprintln!("skipping: {}", sandbox_status());
        return;
    }
    let (_workspace, ctx) = workspace();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let connect = format!("exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected");

    let open = run(&connect, SandboxPolicy::default(), &ctx).await;
    assert!(open.success(), "{}", open.output);
    assert_eq!(open.output, "connected\n");

    let closed = SandboxPolicy {
        network: false,
        ..SandboxPolicy::default()
    };
    let blocked = run(&connect, closed.clone(), &ctx).await;
    assert!(!blocked.success());
    assert!(blocked.sandboxed);
    assert!(!blocked.output.contains("connected"), "{}", blocked.output);
    assert!(
        blocked.output.contains("Permission denied"),
        "{}",
        blocked.output
    );

    let bind =
        "python3 -c 'import socket; socket.socket().bind((\"127.0.0.1\", 0)); print(\"bound\")'";
    let has_python = run("command -v python3", SandboxPolicy::off(), &ctx)
        .await
        .success();
    if has_python {
        let bound = run(bind, closed, &ctx).await;
        assert!(!bound.success(), "{}", bound.output);
        assert!(bound.output.contains("PermissionError"), "{}", bound.output);
    }
}

#[tokio::test]
async fn the_status_is_cached_and_explains_itself() {
    let first = sandbox_status();
    assert!(std::ptr::eq(first, sandbox_status()));
    assert_eq!(landlock_supported(), first.is_available());
    let text = first.to_string();
    match first {
        SandboxStatus::Available { .. } => assert!(text.contains("available"), "{text}"),
        SandboxStatus::Unavailable { .. } => assert!(text.contains("unavailable"), "{text}"),
        other => panic!("a status this test does not know: {other:?}"),
    }
}

#[tokio::test]
async fn a_required_sandbox_runs_when_available() {
    if skip() {
        return;
    }
    let (_workspace, ctx) = workspace();
    let policy = SandboxPolicy {
        allow_unsandboxed: false,
        network: false,
        ..SandboxPolicy::default()
    };
    let result = run_command("echo strict", None, &config(policy), &ctx).await;
    if sandbox_status().network_rules() {
        let result = result.unwrap();
        assert!(result.sandboxed && result.success());
    } else {
        let error = result.unwrap_err().to_string();
        assert!(error.contains("cannot restrict the network"), "{error}");
    }
}
