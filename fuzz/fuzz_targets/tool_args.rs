//! A model's tool-call arguments, whatever they hold, given to the
//! read-only file tools (`read_file`, `list_files`) on a real workspace
//! with a file and a directory beside it, and a symbolic link out of it:
//! each call gives an output (a bad argument is a failed one the model can
//! read), never a panic, and never shows what lies outside the workspace.
//! The tools that write or run commands are not called (a fuzzer would
//! run whatever it made up); their arguments' parsing and the command line
//! the approval policy judges (`command_line`) are.
//!
//! The input is the arguments' JSON text; its first byte chooses the tool.
#![no_main]

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use libfuzzer_sys::fuzz_target;
use rebound_tools::fs::{EditFile, ListFiles, ReadFile, WriteFile};
use rebound_tools::shell::{ShellConfig, ShellTool};
use rebound_tools::{Tool, ToolContext, ToolRegistry};

/// What the file outside the workspace holds: no output may show it.
const SECRET: &str = "SECRET-outside-7f3a9c";
/// The name of the directory outside the workspace: no listing may show
/// an entry of it.
const OUTSIDE_ENTRY: &str = "outside-only-entry.txt";

struct Setup {
    _dir: tempfile::TempDir,
    workspace: PathBuf,
    runtime: tokio::runtime::Runtime,
    /// `read_file` and `list_files`.
    tools: ToolRegistry,
    /// Called for `command_line` only.
    others: Vec<Arc<dyn Tool>>,
}

fn setup() -> &'static Setup {
    static SETUP: OnceLock<Setup> = OnceLock::new();
    SETUP.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("a temp dir: {e}"));
        let workspace = dir.path().join("ws");
        let outside = dir.path().join("outside");
        let made = std::fs::create_dir_all(workspace.join("src"))
            .and_then(|()| std::fs::create_dir_all(&outside))
            .and_then(|()| std::fs::write(workspace.join("notes.txt"), "line one\nline two\n"))
            .and_then(|()| std::fs::write(workspace.join("src/main.py"), "print('hi')\n"))
            .and_then(|()| std::fs::write(outside.join(OUTSIDE_ENTRY), SECRET))
            .and_then(|()| std::fs::write(dir.path().join("secret.txt"), SECRET))
            .and_then(|()| std::os::unix::fs::symlink(&outside, workspace.join("link")))
            .and_then(|()| {
                std::os::unix::fs::symlink(
                    dir.path().join("secret.txt"),
                    workspace.join("secret-link.txt"),
                )
            });
        made.unwrap_or_else(|e| panic!("the workspace: {e}"));
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap_or_else(|e| panic!("a runtime: {e}"));
        Setup {
            _dir: dir,
            workspace,
            runtime,
            tools: {
                let mut tools = ToolRegistry::new();
                tools.register(ReadFile::new()).register(ListFiles::new());
                tools
            },
            others: vec![
                Arc::new(WriteFile::new()),
                Arc::new(EditFile::new()),
                Arc::new(ShellTool::new(ShellConfig::default())),
            ],
        }
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((choice, rest)) = data.split_first() else {
        return;
    };
    let Ok(arguments) = serde_json::from_slice::<serde_json::Value>(rest) else {
        return;
    };
    let setup = setup();
    for tool in &setup.others {
        let _ = tool.command_line(&arguments);
    }
    let tool = if choice % 2 == 0 {
        "read_file"
    } else {
        "list_files"
    };
    let Ok(ctx) = ToolContext::new(&setup.workspace) else {
        panic!("a tool context on {}", setup.workspace.display());
    };
    // A bad argument comes back as a failed output, as the model sees it.
    let output = setup
        .runtime
        .block_on(setup.tools.call(tool, arguments.clone(), &ctx));
    // What the output shows that the call did not name itself (an error
    // may quote the path it refused).
    let asked = String::from_utf8_lossy(rest);
    for outside in [SECRET, OUTSIDE_ENTRY] {
        assert!(
            !output.content.contains(outside) || asked.contains(outside),
            "{tool} with {arguments} showed what lies outside the workspace: {}",
            output.content
        );
    }
});
