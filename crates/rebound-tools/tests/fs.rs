//! The file tools (`read_file`, `write_file`, `edit_file`, `list_files`)
//! through a [`ToolRegistry`], in real temporary directories: what they
//! return, every bad argument, and confinement to the workspace (`..`,
//! absolute paths, symlinks).

// Helpers outside #[test] functions unwrap too; clippy.toml only exempts test bodies.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::os::unix::fs::{symlink, PermissionsExt};
use std::path::{Path, PathBuf};

use rebound_tools::fs::{
    file_tools, register_file_tools, resolve, EditFile, ListFiles, ReadFile, WriteFile,
};
use rebound_tools::{ToolContext, ToolError, ToolOutput, ToolRegistry};
use serde_json::{json, Value};
use tempfile::TempDir;

/// A workspace `ws` inside a temporary directory, whose other entries are
/// "outside".
struct Fixture {
    _dir: TempDir,
    /// The temporary directory (outside the workspace).
    outer: PathBuf,
    /// The canonical workspace.
    ws: PathBuf,
    ctx: ToolContext,
    registry: ToolRegistry,
}

impl Fixture {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let outer = fs::canonicalize(dir.path()).unwrap();
        let ws = outer.join("ws");
        fs::create_dir(&ws).unwrap();
        let ctx = ToolContext::new(&ws).unwrap();
        let mut registry = ToolRegistry::new();
        register_file_tools(&mut registry);
        Fixture {
            _dir: dir,
            outer,
            ws,
            ctx,
            registry,
        }
    }

    /// Writes `content` at `rel` in the workspace, creating directories.
    fn put(&self, rel: &str, content: &str) -> PathBuf {
        let path = self.ws.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, content).unwrap();
        path
    }

    fn read(&self, rel: &str) -> String {
        fs::read_to_string(self.ws.join(rel)).unwrap()
    }

    async fn call(&self, tool: &str, args: Value) -> ToolOutput {
        self.registry.call(tool, args, &self.ctx).await
    }
}

/// Asserts a failed output of `kind` (`details.error`) whose message
/// contains every one of `needles`.
#[track_caller]
fn assert_fails(out: &ToolOutput, kind: &str, needles: &[&str]) {
    assert!(!out.success, "expected a failure, got {out:?}");
    assert_eq!(out.details["error"], kind, "{out:?}");
    for needle in needles {
        assert!(
            out.content.contains(needle),
            "{:?} does not contain {needle:?}",
            out.content
        );
    }
}

/// Asserts a success and returns its content.
#[track_caller]
fn ok(out: ToolOutput) -> String {
    assert!(out.success, "expected a success, got {out:?}");
    out.content
}

/// The files and directories under `dir`, relative, sorted.
fn tree(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            found.push(
                path.strip_prefix(dir)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned(),
            );
            if path.is_dir() && !path.is_symlink() {
                stack.push(path);
            }
        }
    }
    found.sort();
    found
}

// ---------------------------------------------------------------- read_file

#[tokio::test]
async fn read_returns_a_header_and_the_text_as_it_is() {
    let f = Fixture::new();
    f.put("notes.txt", "alpha\nbeta\ngamma\n");
    let out = f.call("read_file", json!({"path": "notes.txt"})).await;
    assert_eq!(
        out,
        ToolOutput::ok("notes.txt (lines 1-3 of 3)\nalpha\nbeta\ngamma\n").with_details(json!({
            "path": "notes.txt",
            "start_line": 1,
            "end_line": 3,
            "total_lines": 3,
            "bytes": 17,
            "truncated": false,
        }))
    );
}

#[tokio::test]
async fn read_a_line_range() {
    let f = Fixture::new();
    f.put("src/a.rs", "1\n2\n3\n4\n5");
    let out = f
        .call(
            "read_file",
            json!({"path": "src/a.rs", "start_line": 2, "end_line": 4}),
        )
        .await;
    assert_eq!(ok(out), "src/a.rs (lines 2-4 of 5)\n2\n3\n4\n");
    let out = f
        .call("read_file", json!({"path": "src/a.rs", "start_line": 5}))
        .await;
    assert_eq!(ok(out), "src/a.rs (line 5 of 5)\n5");
}

#[tokio::test]
async fn read_an_end_line_past_the_end_reads_to_the_end_and_says_so() {
    let f = Fixture::new();
    f.put("a.txt", "x\ny\n");
    let out = f
        .call(
            "read_file",
            json!({"path": "a.txt", "start_line": 2, "end_line": 10}),
        )
        .await;
    assert_eq!(
        ok(out),
        "a.txt (line 2 of 2)\ny\n[end_line 10 is past the end of the file, which has 2 lines]"
    );
}

#[tokio::test]
async fn read_bad_line_numbers_fail_clearly() {
    let f = Fixture::new();
    f.put("a.txt", "x\ny\nz\n");
    let out = f
        .call("read_file", json!({"path": "a.txt", "start_line": 4}))
        .await;
    assert_fails(&out, "failed", &["start_line 4", "past the end", "3 lines"]);
    let out = f
        .call("read_file", json!({"path": "a.txt", "start_line": 0}))
        .await;
    assert_fails(&out, "failed", &["start_line counts from 1"]);
    let out = f
        .call(
            "read_file",
            json!({"path": "a.txt", "start_line": 3, "end_line": 2}),
        )
        .await;
    assert_fails(&out, "failed", &["end_line 2 is before start_line 3"]);
}

#[tokio::test]
async fn read_an_empty_file() {
    let f = Fixture::new();
    f.put("empty.txt", "");
    let out = f.call("read_file", json!({"path": "empty.txt"})).await;
    assert_eq!(ok(out), "empty.txt (empty file)");
}

#[tokio::test]
async fn read_caps_a_large_file_at_256_kib_and_says_how_to_read_on() {
    let f = Fixture::new();
    // 30,000 lines of 11 bytes: 330,000 bytes, more than 256 KiB.
    let text: String = (1..=30_000).map(|i| format!("line {i:05}\n")).collect();
    f.put("big.txt", &text);
    let out = f.call("read_file", json!({"path": "big.txt"})).await;
    assert!(out.success);
    assert_eq!(out.details["truncated"], true);
    // 262,144 / 11 = 23,831 whole lines fit.
    assert_eq!(out.details["end_line"], 23_831);
    assert_eq!(out.details["total_lines"], 30_000);
    let (header, rest) = out.content.split_once('\n').unwrap();
    assert_eq!(header, "big.txt (lines 1-23831 of 30000)");
    let (body, note) = rest.rsplit_once('\n').unwrap();
    assert!(body.len() < ReadFile::DEFAULT_MAX_BYTES);
    assert!(body.ends_with("line 23831"));
    assert_eq!(
        note,
        "[cut at 262144 bytes (the file is 330000 bytes): read on with start_line=23832]"
    );

    let out = f
        .call(
            "read_file",
            json!({"path": "big.txt", "start_line": 23_832}),
        )
        .await;
    let content = ok(out);
    assert!(content.starts_with("big.txt (lines 23832-30000 of 30000)\nline 23832\n"));
    assert!(content.ends_with("line 30000\n"));
}

#[tokio::test]
async fn read_cuts_a_single_line_longer_than_the_cap() {
    let f = Fixture::new();
    f.put("min.js", &"x".repeat(100));
    let mut registry = ToolRegistry::new();
    registry.register(ReadFile::new().with_max_bytes(10));
    let out = registry
        .call("read_file", json!({"path": "min.js"}), &f.ctx)
        .await;
    assert_eq!(
        ok(out),
        "min.js (line 1 of 1)\nxxxxxxxxxx\n[cut: line 1 is longer than 10 bytes; only its start is shown]"
    );
}

#[tokio::test]
async fn read_a_missing_file_names_it() {
    let f = Fixture::new();
    let out = f.call("read_file", json!({"path": "src/nope.rs"})).await;
    assert_fails(&out, "failed", &["\"src/nope.rs\"", "does not exist"]);
}

#[tokio::test]
async fn read_a_binary_file_is_an_error() {
    let f = Fixture::new();
    fs::write(f.ws.join("image.png"), b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR").unwrap();
    let out = f.call("read_file", json!({"path": "image.png"})).await;
    assert_fails(&out, "failed", &["\"image.png\"", "binary", "16 bytes"]);
}

#[tokio::test]
async fn read_invalid_utf8_is_shown_lossily_with_a_note() {
    let f = Fixture::new();
    fs::write(f.ws.join("latin1.txt"), b"caf\xe9\n").unwrap();
    let out = f.call("read_file", json!({"path": "latin1.txt"})).await;
    assert_eq!(
        ok(out),
        "latin1.txt (line 1 of 1)\ncaf\u{FFFD}\n[not valid UTF-8: invalid bytes are shown as U+FFFD]"
    );
}

#[tokio::test]
async fn read_a_directory_is_an_error() {
    let f = Fixture::new();
    fs::create_dir(f.ws.join("src")).unwrap();
    let out = f.call("read_file", json!({"path": "src"})).await;
    assert_fails(&out, "failed", &["\"src\" is a directory", "list_files"]);
}

#[tokio::test]
async fn read_a_fifo_is_an_error_not_a_hang() {
    let f = Fixture::new();
    let status = std::process::Command::new("mkfifo")
        .arg(f.ws.join("pipe"))
        .status()
        .unwrap();
    assert!(status.success());
    let call = f.call("read_file", json!({"path": "pipe"}));
    let out = tokio::time::timeout(std::time::Duration::from_secs(10), call)
        .await
        .expect("read_file blocked on a FIFO");
    assert_fails(&out, "failed", &["\"pipe\" is not a regular file"]);
    let out = f
        .call("write_file", json!({"path": "pipe", "content": "x"}))
        .await;
    assert_fails(&out, "failed", &["\"pipe\" is not a regular file"]);
}

// --------------------------------------------------------------- write_file

#[tokio::test]
async fn write_creates_parent_directories_and_reports_bytes() {
    let f = Fixture::new();
    let out = f
        .call(
            "write_file",
            json!({"path": "a/b/c.txt", "content": "héllo"}),
        )
        .await;
    assert_eq!(
        out,
        ToolOutput::ok("created a/b/c.txt (6 bytes)").with_details(json!({
            "path": "a/b/c.txt",
            "bytes": 6,
            "created": true,
        }))
    );
    assert_eq!(f.read("a/b/c.txt"), "héllo");
    // No temporary file is left behind.
    assert_eq!(tree(&f.ws), ["a", "a/b", "a/b/c.txt"]);
}

#[tokio::test]
async fn write_replaces_a_file_and_keeps_its_permissions() {
    let f = Fixture::new();
    let script = f.put("run.sh", "echo old\n");
    fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).unwrap();
    let out = f
        .call(
            "write_file",
            json!({"path": "run.sh", "content": "echo new\n"}),
        )
        .await;
    assert_eq!(ok(out), "wrote 9 bytes to run.sh (it had 9 bytes)");
    assert_eq!(f.read("run.sh"), "echo new\n");
    let mode = fs::metadata(&script).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o755);
    assert_eq!(tree(&f.ws), ["run.sh"]);
}

#[tokio::test]
async fn write_onto_a_directory_is_an_error() {
    let f = Fixture::new();
    fs::create_dir(f.ws.join("src")).unwrap();
    let out = f
        .call("write_file", json!({"path": "src", "content": "x"}))
        .await;
    assert_fails(&out, "failed", &["\"src\" is a directory"]);
    assert!(f.ws.join("src").is_dir());
}

#[tokio::test]
async fn write_with_dotdot_after_a_missing_directory_is_an_error() {
    let f = Fixture::new();
    let out = f
        .call(
            "write_file",
            json!({"path": "new/../x.txt", "content": "x"}),
        )
        .await;
    assert_fails(&out, "failed", &["`..` after \"new\"", "does not exist"]);
    assert!(tree(&f.ws).is_empty());
}

#[tokio::test]
async fn write_below_a_file_or_to_a_directory_path_is_an_error() {
    let f = Fixture::new();
    f.put("a.txt", "x");
    let out = f
        .call("write_file", json!({"path": "a.txt/b.txt", "content": "y"}))
        .await;
    assert_fails(&out, "failed", &["past \"a.txt\", which is a file"]);
    let out = f
        .call("write_file", json!({"path": "newdir/", "content": "y"}))
        .await;
    assert_fails(&out, "failed", &["ends with \"/\""]);
    assert_eq!(tree(&f.ws), ["a.txt"]);
    assert_eq!(f.read("a.txt"), "x");
}

// ---------------------------------------------------------------- edit_file

#[tokio::test]
async fn edit_replaces_a_unique_match() {
    let f = Fixture::new();
    f.put("main.py", "def f():\n    return 1\n\nprint(f())\n");
    let out = f
        .call(
            "edit_file",
            json!({"path": "main.py", "old": "    return 1\n", "new": "    return 2\n"}),
        )
        .await;
    assert_eq!(
        out,
        ToolOutput::ok("replaced 1 occurrence in main.py (at line 2)").with_details(json!({
            "path": "main.py",
            "replacements": 1,
            "lines": [2],
        }))
    );
    assert_eq!(f.read("main.py"), "def f():\n    return 2\n\nprint(f())\n");
}

#[tokio::test]
async fn edit_with_old_missing_fails_and_leaves_the_file_alone() {
    let f = Fixture::new();
    f.put("a.txt", "one\ntwo\n");
    let out = f
        .call(
            "edit_file",
            json!({"path": "a.txt", "old": "three", "new": "3"}),
        )
        .await;
    assert_fails(
        &out,
        "failed",
        &["`old` was not found in a.txt", "read_file"],
    );
    assert_eq!(f.read("a.txt"), "one\ntwo\n");
}

#[tokio::test]
async fn edit_not_found_hints_at_whitespace() {
    let f = Fixture::new();
    f.put("a.py", "if x:\n    y = 1\n    z = 2\n");
    let out = f
        .call(
            "edit_file",
            json!({"path": "a.py", "old": "y = 1\n  z = 2", "new": "y = 3"}),
        )
        .await;
    assert_fails(
        &out,
        "failed",
        &["not found", "whitespace is ignored, at line 2"],
    );
    assert_eq!(f.read("a.py"), "if x:\n    y = 1\n    z = 2\n");
}

#[tokio::test]
async fn edit_not_found_hints_at_crlf_line_endings() {
    let f = Fixture::new();
    f.put("win.txt", "a\r\nb\r\nc\r\n");
    let out = f
        .call(
            "edit_file",
            json!({"path": "win.txt", "old": "b\nc", "new": "B\nC"}),
        )
        .await;
    assert_fails(&out, "failed", &["CRLF", "line 2"]);
}

#[tokio::test]
async fn edit_an_ambiguous_match_fails_with_the_count_and_lines() {
    let f = Fixture::new();
    f.put("a.txt", "x = 1\ny\nx = 1\nz\nx = 1\n");
    let out = f
        .call(
            "edit_file",
            json!({"path": "a.txt", "old": "x = 1", "new": "x = 2"}),
        )
        .await;
    assert_fails(
        &out,
        "failed",
        &["occurs 3 times", "at lines 1, 3, 5", "replace_all"],
    );
    assert_eq!(f.read("a.txt"), "x = 1\ny\nx = 1\nz\nx = 1\n");
}

#[tokio::test]
async fn edit_replace_all_replaces_every_match() {
    let f = Fixture::new();
    f.put("a.txt", "x = 1\ny\nx = 1\nz\nx = 1\n");
    let out = f
        .call(
            "edit_file",
            json!({"path": "a.txt", "old": "x = 1", "new": "x = $2", "replace_all": true}),
        )
        .await;
    assert_eq!(
        ok(out),
        "replaced 3 occurrences in a.txt (at lines 1, 3, 5)"
    );
    assert_eq!(f.read("a.txt"), "x = $2\ny\nx = $2\nz\nx = $2\n");
}

#[tokio::test]
async fn edit_with_empty_or_unchanged_old_is_an_error() {
    let f = Fixture::new();
    f.put("a.txt", "abc");
    let out = f
        .call("edit_file", json!({"path": "a.txt", "old": "", "new": "x"}))
        .await;
    assert_fails(&out, "failed", &["`old` is empty", "write_file"]);
    let out = f
        .call(
            "edit_file",
            json!({"path": "a.txt", "old": "b", "new": "b"}),
        )
        .await;
    assert_fails(&out, "failed", &["nothing to change"]);
    assert_eq!(f.read("a.txt"), "abc");
}

#[tokio::test]
async fn edit_a_missing_file_names_it() {
    let f = Fixture::new();
    let out = f
        .call(
            "edit_file",
            json!({"path": "gone.txt", "old": "a", "new": "b"}),
        )
        .await;
    assert_fails(&out, "failed", &["\"gone.txt\"", "does not exist"]);
    assert!(tree(&f.ws).is_empty());
}

// --------------------------------------------------------------- list_files

/// A small project: sources, ignored build output and logs, `.git` and
/// `.rebound`.
fn project(f: &Fixture) {
    for rel in [
        "README.md",
        "app/main.py",
        "app/util.py",
        "app/data/x.json",
        "build/out.py",
        "debug.log",
        "lib/deep/mod.py",
        ".github/ci.yml",
        ".git/HEAD",
        ".rebound/artifacts/call.log",
    ] {
        f.put(rel, "x");
    }
    f.put(".gitignore", "build/\n*.log\n");
}

#[tokio::test]
async fn list_respects_gitignore_and_skips_git_and_rebound() {
    let f = Fixture::new();
    project(&f);
    let out = f.call("list_files", json!({})).await;
    assert_eq!(
        out,
        ToolOutput::ok(
            "7 files in .:\n.github/ci.yml\n.gitignore\nREADME.md\napp/data/x.json\napp/main.py\n\
             app/util.py\nlib/deep/mod.py"
        )
        .with_details(json!({
            "path": ".",
            "files": [".github/ci.yml", ".gitignore", "README.md", "app/data/x.json",
                      "app/main.py", "app/util.py", "lib/deep/mod.py"],
            "total": 7,
            "truncated": false,
        }))
    );
}

#[tokio::test]
async fn list_with_a_glob() {
    let f = Fixture::new();
    project(&f);
    let files = |out: ToolOutput| {
        assert!(out.success, "{out:?}");
        out.details["files"].clone()
    };
    let out = f.call("list_files", json!({"glob": "**/*.py"})).await;
    assert_eq!(
        files(out),
        json!(["app/main.py", "app/util.py", "lib/deep/mod.py"])
    );
    // Without a slash, a glob matches names at any depth.
    let out = f.call("list_files", json!({"glob": "*.py"})).await;
    assert_eq!(
        files(out),
        json!(["app/main.py", "app/util.py", "lib/deep/mod.py"])
    );
    // With one, it matches paths: `*` stays within a directory.
    let out = f.call("list_files", json!({"glob": "app/*"})).await;
    assert_eq!(files(out), json!(["app/main.py", "app/util.py"]));
    let out = f
        .call("list_files", json!({"path": "app", "glob": "*.json"}))
        .await;
    assert_eq!(files(out), json!(["app/data/x.json"]));
    let out = f.call("list_files", json!({"glob": "*.rs"})).await;
    assert_eq!(
        ok(out),
        "no files in . matching \"*.rs\" (files ignored by .gitignore are not listed)"
    );
    // An ignored directory lists as empty, and says why that may be.
    let out = f.call("list_files", json!({"path": "build"})).await;
    assert_eq!(
        ok(out),
        "no files in build (files ignored by .gitignore are not listed)"
    );
}

#[tokio::test]
async fn list_a_subdirectory_still_applies_the_root_gitignore() {
    let f = Fixture::new();
    project(&f);
    f.put("app/cache.log", "x");
    let out = f.call("list_files", json!({"path": "app"})).await;
    assert_eq!(
        ok(out),
        "3 files in app:\napp/data/x.json\napp/main.py\napp/util.py"
    );
}

#[tokio::test]
async fn list_is_cut_at_max_entries_and_says_so() {
    let f = Fixture::new();
    for i in 0..5 {
        f.put(&format!("f{i}.txt"), "x");
    }
    let out = f.call("list_files", json!({"max_entries": 2})).await;
    assert_eq!(out.details["truncated"], true);
    assert_eq!(
        ok(out),
        "5 files in .:\nf0.txt\nf1.txt\n[cut: showing 2 of 5; narrow it with `path` or `glob`, \
         or raise max_entries]"
    );
    let out = f.call("list_files", json!({"max_entries": 0})).await;
    assert_fails(&out, "failed", &["max_entries must be at least 1"]);
}

#[tokio::test]
async fn list_bad_directory_or_glob_is_an_error() {
    let f = Fixture::new();
    let out = f.call("list_files", json!({"path": "nope"})).await;
    assert_fails(&out, "failed", &["\"nope\" does not exist"]);
    let out = f.call("list_files", json!({"glob": "a[b"})).await;
    assert_fails(&out, "failed", &["invalid glob \"a[b\""]);
}

// -------------------------------------------------------------- confinement

#[tokio::test]
async fn dotdot_out_of_the_workspace_is_rejected_for_every_tool() {
    let f = Fixture::new();
    fs::write(f.outer.join("outside.txt"), "secret").unwrap();
    fs::create_dir(f.ws.join("a")).unwrap();
    for path in [
        "../outside.txt",
        "a/../../outside.txt",
        "a/../../x",
        "../ws/a",
    ] {
        for (tool, args) in [
            ("read_file", json!({"path": path})),
            ("write_file", json!({"path": path, "content": "pwned"})),
            (
                "edit_file",
                json!({"path": path, "old": "secret", "new": "pwned"}),
            ),
            ("list_files", json!({"path": path})),
        ] {
            let out = f.call(tool, args).await;
            assert_fails(
                &out,
                "path_escape",
                &[path, "outside the workspace", "`..` climbs above"],
            );
        }
    }
    assert_eq!(
        fs::read_to_string(f.outer.join("outside.txt")).unwrap(),
        "secret"
    );
    assert_eq!(tree(&f.outer), ["outside.txt", "ws", "ws/a"]);
}

#[tokio::test]
async fn an_absolute_path_outside_is_rejected() {
    let f = Fixture::new();
    let outside = f.outer.join("outside.txt");
    fs::write(&outside, "secret").unwrap();
    let path = outside.to_str().unwrap();
    let out = f.call("read_file", json!({"path": path})).await;
    assert_fails(
        &out,
        "path_escape",
        &["absolute path outside the workspace"],
    );
    assert!(!out.content.contains("secret\n"));
    let out = f
        .call("write_file", json!({"path": path, "content": "pwned"}))
        .await;
    assert_fails(
        &out,
        "path_escape",
        &["absolute path outside the workspace"],
    );
    let new = f.outer.join("new.txt");
    let out = f
        .call(
            "write_file",
            json!({"path": new.to_str().unwrap(), "content": "pwned"}),
        )
        .await;
    assert_fails(
        &out,
        "path_escape",
        &["absolute path outside the workspace"],
    );
    let out = f.call("list_files", json!({"path": "/"})).await;
    assert_fails(
        &out,
        "path_escape",
        &["absolute path outside the workspace"],
    );
    assert_eq!(fs::read_to_string(&outside).unwrap(), "secret");
    assert!(!new.exists());
}

#[tokio::test]
async fn an_absolute_path_inside_is_allowed() {
    let f = Fixture::new();
    let file = f.put("notes.txt", "hi\n");
    let out = f
        .call("read_file", json!({"path": file.to_str().unwrap()}))
        .await;
    assert_eq!(ok(out), "notes.txt (line 1 of 1)\nhi\n");
    let new = f.ws.join("sub/new.txt");
    let out = f
        .call(
            "write_file",
            json!({"path": new.to_str().unwrap(), "content": "x"}),
        )
        .await;
    assert_eq!(ok(out), "created sub/new.txt (1 byte)");
    // Even through a non-canonical spelling of the workspace.
    let roundabout = format!("{}/../ws/notes.txt", f.ws.display());
    let out = f.call("read_file", json!({"path": roundabout})).await;
    assert_eq!(ok(out), "notes.txt (line 1 of 1)\nhi\n");
}

#[tokio::test]
async fn a_symlinked_directory_pointing_outside_is_rejected() {
    let f = Fixture::new();
    let secrets = f.outer.join("secrets");
    fs::create_dir(&secrets).unwrap();
    fs::write(secrets.join("key.txt"), "secret").unwrap();
    symlink(&secrets, f.ws.join("linkdir")).unwrap();
    let reason = "goes through the symlink \"linkdir\"";
    let out = f
        .call("read_file", json!({"path": "linkdir/key.txt"}))
        .await;
    assert_fails(&out, "path_escape", &["\"linkdir/key.txt\"", reason]);
    let out = f
        .call(
            "write_file",
            json!({"path": "linkdir/new.txt", "content": "pwned"}),
        )
        .await;
    assert_fails(&out, "path_escape", &[reason]);
    let out = f
        .call(
            "write_file",
            json!({"path": "linkdir/deeper/new.txt", "content": "pwned"}),
        )
        .await;
    assert_fails(&out, "path_escape", &[reason]);
    let out = f
        .call(
            "edit_file",
            json!({"path": "linkdir/key.txt", "old": "secret", "new": "pwned"}),
        )
        .await;
    assert_fails(&out, "path_escape", &[reason]);
    let out = f.call("list_files", json!({"path": "linkdir"})).await;
    assert_fails(&out, "path_escape", &[reason]);
    // Listing the workspace shows the link but does not follow it.
    let out = f.call("list_files", json!({})).await;
    assert_eq!(out.details["files"], json!(["linkdir"]));
    assert_eq!(tree(&secrets), ["key.txt"]);
    assert_eq!(
        fs::read_to_string(secrets.join("key.txt")).unwrap(),
        "secret"
    );
}

#[tokio::test]
async fn a_symlinked_file_pointing_outside_is_rejected() {
    let f = Fixture::new();
    let outside = f.outer.join("outside.txt");
    fs::write(&outside, "secret").unwrap();
    symlink(&outside, f.ws.join("link.txt")).unwrap();
    // A relative link target, too.
    symlink("../outside.txt", f.ws.join("rel.txt")).unwrap();
    for path in ["link.txt", "rel.txt"] {
        let out = f.call("read_file", json!({"path": path})).await;
        assert_fails(&out, "path_escape", &["goes through the symlink"]);
        let out = f
            .call("write_file", json!({"path": path, "content": "pwned"}))
            .await;
        assert_fails(&out, "path_escape", &["goes through the symlink"]);
        let out = f
            .call(
                "edit_file",
                json!({"path": path, "old": "secret", "new": "pwned"}),
            )
            .await;
        assert_fails(&out, "path_escape", &["goes through the symlink"]);
    }
    assert_eq!(fs::read_to_string(&outside).unwrap(), "secret");
    assert!(f.ws.join("link.txt").is_symlink());
}

#[tokio::test]
async fn a_dangling_symlink_pointing_outside_is_not_written_through() {
    let f = Fixture::new();
    let target = f.outer.join("planted.txt");
    symlink(&target, f.ws.join("dangling")).unwrap();
    let out = f
        .call(
            "write_file",
            json!({"path": "dangling", "content": "pwned"}),
        )
        .await;
    assert_fails(
        &out,
        "path_escape",
        &["goes through the symlink \"dangling\""],
    );
    assert!(!target.exists());
    assert!(f.ws.join("dangling").is_symlink());
}

#[tokio::test]
async fn symlinks_inside_pointing_inside_are_followed() {
    let f = Fixture::new();
    f.put("real/data.txt", "one\n");
    symlink("real/data.txt", f.ws.join("alias.txt")).unwrap();
    symlink(f.ws.join("real"), f.ws.join("dirlink")).unwrap();
    let out = f.call("read_file", json!({"path": "alias.txt"})).await;
    assert_eq!(ok(out), "real/data.txt (line 1 of 1)\none\n");
    let out = f
        .call("read_file", json!({"path": "dirlink/data.txt"}))
        .await;
    assert_eq!(ok(out), "real/data.txt (line 1 of 1)\none\n");

    // Writing through the link writes its target and keeps the link.
    let out = f
        .call(
            "write_file",
            json!({"path": "alias.txt", "content": "two\n"}),
        )
        .await;
    assert_eq!(ok(out), "wrote 4 bytes to real/data.txt (it had 4 bytes)");
    assert_eq!(f.read("real/data.txt"), "two\n");
    assert!(f.ws.join("alias.txt").is_symlink());
    let out = f
        .call(
            "edit_file",
            json!({"path": "dirlink/data.txt", "old": "two", "new": "three"}),
        )
        .await;
    assert!(out.success, "{out:?}");
    assert_eq!(f.read("real/data.txt"), "three\n");

    // A dangling link pointing inside creates its target.
    symlink("real/later.txt", f.ws.join("later")).unwrap();
    let out = f
        .call("write_file", json!({"path": "later", "content": "x"}))
        .await;
    assert_eq!(ok(out), "created real/later.txt (1 byte)");
    assert_eq!(f.read("real/later.txt"), "x");
}

#[tokio::test]
async fn a_symlink_loop_is_an_error_not_a_hang() {
    let f = Fixture::new();
    symlink("b", f.ws.join("a")).unwrap();
    symlink("a", f.ws.join("b")).unwrap();
    let out = f.call("read_file", json!({"path": "a"})).await;
    assert_fails(&out, "failed", &["symlink loop"]);
    let out = f
        .call("write_file", json!({"path": "a/x", "content": "x"}))
        .await;
    assert_fails(&out, "failed", &["symlink loop"]);
}

#[tokio::test]
async fn empty_paths_and_nul_bytes_are_errors() {
    let f = Fixture::new();
    let out = f.call("read_file", json!({"path": ""})).await;
    assert_fails(&out, "failed", &["the path is empty"]);
    let out = f
        .call("write_file", json!({"path": "a\u{0}b", "content": "x"}))
        .await;
    assert_fails(&out, "failed", &["NUL byte"]);
    assert!(tree(&f.ws).is_empty());
}

#[test]
fn resolve_gives_real_paths_inside_and_path_escape_outside() {
    let dir = tempfile::tempdir().unwrap();
    let outer = fs::canonicalize(dir.path()).unwrap();
    let ws = outer.join("ws");
    fs::create_dir_all(ws.join("src")).unwrap();
    symlink(&outer, ws.join("up")).unwrap();

    assert_eq!(resolve(&ws, ".").unwrap(), ws);
    assert_eq!(
        resolve(&ws, "src/./new/x.rs").unwrap(),
        ws.join("src/new/x.rs")
    );
    assert_eq!(resolve(&ws, "src/../src").unwrap(), ws.join("src"));
    assert_eq!(resolve(&ws, "up/ws/src").unwrap(), ws.join("src"));
    // The workspace may be given by a non-canonical path.
    assert_eq!(
        resolve(&ws.join("src/.."), "src/a").unwrap(),
        ws.join("src/a")
    );
    for (path, reason) in [
        ("..", "`..` climbs above the workspace root"),
        ("src/../../ws", "`..` climbs above the workspace root"),
        ("up", "goes through the symlink \"up\""),
        ("up/other/file", "goes through the symlink \"up\""),
        ("/etc/passwd", "absolute path outside the workspace"),
    ] {
        match resolve(&ws, path) {
            Err(ToolError::PathEscape {
                path: p,
                workspace,
                reason: r,
            }) => {
                assert_eq!((p.as_str(), workspace.as_path()), (path, ws.as_path()));
                assert!(r.contains(reason), "{path}: {r}");
            }
            other => panic!("{path}: expected PathEscape, got {other:?}"),
        }
    }
}

// ------------------------------------------------- arguments and schemas

#[tokio::test]
async fn bad_arguments_name_the_field() {
    let f = Fixture::new();
    f.put("a.txt", "x");
    for (tool, args, needle) in [
        ("read_file", json!({}), "missing field `path`"),
        (
            "read_file",
            json!({"path": 3}),
            "at `path`: invalid type: integer `3`",
        ),
        (
            "read_file",
            json!({"path": "a.txt", "start_line": "2"}),
            "at `start_line`: invalid type: string",
        ),
        (
            "read_file",
            json!({"path": "a.txt", "start_line": -1}),
            "at `start_line`",
        ),
        (
            "read_file",
            json!({"path": "a.txt", "lines": 3}),
            "unknown field `lines`",
        ),
        ("read_file", json!("a.txt"), "invalid type: string"),
        (
            "write_file",
            json!({"path": "b.txt"}),
            "missing field `content`",
        ),
        (
            "edit_file",
            json!({"path": "a.txt", "old": "x", "new": "y", "replace_all": "yes"}),
            "at `replace_all`",
        ),
        (
            "edit_file",
            json!({"path": "a.txt", "old": "x"}),
            "missing field `new`",
        ),
        (
            "list_files",
            json!({"max_entries": 1.5}),
            "at `max_entries`",
        ),
        (
            "list_files",
            json!({"recursive": true}),
            "unknown field `recursive`",
        ),
    ] {
        let out = f.call(tool, args.clone()).await;
        assert_fails(&out, "bad_arguments", &[tool, needle]);
    }
    assert_eq!(tree(&f.ws), ["a.txt"]);
    assert_eq!(f.read("a.txt"), "x");
}

#[test]
fn schemas_are_objects_with_the_right_required_fields() {
    let expected = [
        (
            "edit_file",
            vec!["new", "old", "path"],
            vec!["new", "old", "path", "replace_all"],
        ),
        ("list_files", vec![], vec!["glob", "max_entries", "path"]),
        (
            "read_file",
            vec!["path"],
            vec!["end_line", "path", "start_line"],
        ),
        (
            "write_file",
            vec!["content", "path"],
            vec!["content", "path"],
        ),
    ];
    let mut registry = ToolRegistry::new();
    register_file_tools(&mut registry);
    assert_eq!(
        registry.names().collect::<Vec<_>>(),
        ["edit_file", "list_files", "read_file", "write_file"]
    );
    assert_eq!(file_tools().len(), 4);
    for (definition, (name, required, properties)) in registry.definitions().iter().zip(expected) {
        assert_eq!(definition.name, name);
        assert!(!definition.description.is_empty());
        let schema = &definition.parameters;
        assert_eq!(schema["type"], "object", "{name}: {schema}");
        assert_eq!(schema["additionalProperties"], false, "{name}");
        let mut got: Vec<&str> = schema["required"]
            .as_array()
            .map(|r| r.iter().map(|v| v.as_str().unwrap()).collect())
            .unwrap_or_default();
        got.sort_unstable();
        assert_eq!(got, required, "{name}");
        let props = schema["properties"].as_object().unwrap();
        let mut keys: Vec<&str> = props.keys().map(String::as_str).collect();
        keys.sort_unstable();
        assert_eq!(keys, properties, "{name}");
        for (key, prop) in props {
            let description = prop["description"].as_str().unwrap_or_default();
            assert!(!description.is_empty(), "{name}.{key} has no description");
        }
    }
}

#[test]
fn tools_have_constructors_and_defaults() {
    assert_eq!(ReadFile::new().max_bytes(), ReadFile::DEFAULT_MAX_BYTES);
    assert_eq!(ReadFile::default().max_bytes(), 256 * 1024);
    assert_eq!(ReadFile::new().with_max_bytes(0).max_bytes(), 1);
    let _ = (
        WriteFile::new(),
        EditFile::new(),
        ListFiles::new(),
        ListFiles::default(),
    );
}

#[tokio::test]
async fn a_cancelled_call_does_nothing() {
    let f = Fixture::new();
    let token = tokio_util::sync::CancellationToken::new();
    token.cancel();
    let ctx = f.ctx.clone().with_cancellation(token);
    let out = f
        .registry
        .call("write_file", json!({"path": "a.txt", "content": "x"}), &ctx)
        .await;
    assert_fails(&out, "cancelled", &["cancelled"]);
    assert!(tree(&f.ws).is_empty());
}
