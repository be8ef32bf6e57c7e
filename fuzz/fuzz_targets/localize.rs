//! A check's output, whatever it holds (its first line is the command):
//! the failure parsers, the locator and the renderer give failures or
//! none, never a panic, and the rendering stays within its bound.
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;

/// Characters the rendering may use.
const MAX_CHARS: usize = 1_500;

/// A workspace with a Python module, its test, a Rust crate and a C file
/// for the locator to find things in.
fn workspace() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("rebound-fuzz-ws-{}", std::process::id()));
        let files = [
            ("calc.py", "def add(a, b):\n    return a - b\n"),
            (
                "test_calc.py",
                "from calc import add\n\ndef test_add():\n    assert add(1, 2) == 3\n",
            ),
            (
                "src/lib.rs",
                "pub fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n",
            ),
            (
                "stats.c",
                "int mean(int *v, int n) {\n    return v[0] / n;\n}\n",
            ),
        ];
        for (path, text) in files {
            let path = dir.join(path);
            std::fs::create_dir_all(path.parent().expect("a parent")).expect("a dir");
            std::fs::write(path, text).expect("a file");
        }
        dir
    })
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (command, output) = text.split_once('\n').unwrap_or((&text, ""));
    let workspace = workspace();
    let failures = rebound_localize::parse(command, output, workspace);
    let suspects = rebound_localize::locate(workspace, &failures);
    let rendered = rebound_localize::render(&failures, &suspects, MAX_CHARS);
    assert!(
        rendered.chars().count() <= MAX_CHARS,
        "{} characters rendered",
        rendered.chars().count()
    );
});
