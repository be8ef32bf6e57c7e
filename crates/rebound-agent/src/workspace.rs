//! What the planner is told about the workspace: a short file listing and,
//! for a small project, the files themselves (a planner that cannot see the
//! code cannot plan a fix for it).

use std::path::Path;

/// Text files whose contents the planner sees when they add up to at most
/// this many bytes.
pub(crate) const INLINE_BYTES: u64 = 3_000;

/// Up to `max` file paths of `root`, relative and sorted, skipping hidden
/// entries (`.git`, `.rebound`...) and caches; one per line. When the text
/// files add up to at most [`INLINE_BYTES`] and, shown whole, to at most
/// `inline_tokens` ([`crate::llm::estimate_tokens`]), each is followed by
/// its contents in a fence.
pub(crate) fn listing(root: &Path, max: usize, inline_tokens: usize) -> String {
    let mut files = project_files(root, max * 4);
    if let Some(inline) = inline_contents(root, &files)
        .filter(|inline| crate::llm::estimate_tokens(inline) <= inline_tokens)
    {
        return inline;
    }
    let more = files.len().saturating_sub(max);
    files.truncate(max);
    let mut text = files.join("\n");
    if more > 0 {
        text.push_str(&format!("\n(and {more} more)"));
    }
    if text.is_empty() {
        text.push_str("(no files)");
    }
    text
}

/// Up to `cap` file paths of `root`, relative and sorted, as
/// [`listing`] finds them (hidden entries and caches skipped, three
/// directories deep at most).
pub(crate) fn project_files(root: &Path, cap: usize) -> Vec<String> {
    let mut files = Vec::new();
    collect(root, root, 0, &mut files, cap);
    files.sort();
    files
}

fn collect(root: &Path, dir: &Path, depth: usize, files: &mut Vec<String>, cap: usize) {
    if depth > 3 || files.len() >= cap {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        if name.starts_with('.')
            || name == "__pycache__"
            || name == "node_modules"
            || name == "target"
        {
            continue;
        }
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            collect(root, &path, depth + 1, files, cap);
        } else if let Ok(relative) = path.strip_prefix(root) {
            files.push(relative.to_string_lossy().to_string());
        }
        if files.len() >= cap {
            return;
        }
    }
}

/// The files with their contents, when the text files are few and small:
/// a binary file (a build's output, an image) is listed by name and does
/// not count, so that a compiled program beside its sources does not hide
/// them.
fn inline_contents(root: &Path, files: &[String]) -> Option<String> {
    let mut total = 0u64;
    let mut texts = Vec::with_capacity(files.len());
    for file in files {
        let path = root.join(file);
        let size = std::fs::metadata(&path).ok()?.len();
        let text = if size <= INLINE_BYTES {
            std::fs::read(&path)
                .ok()
                .and_then(|bytes| String::from_utf8(bytes).ok())
                .filter(|text| !text.contains('\0'))
        } else if is_binary(&path) {
            None
        } else {
            // A large text file: the listing is by name.
            return None;
        };
        if let Some(text) = &text {
            total += text.len() as u64;
            if total > INLINE_BYTES {
                return None;
            }
        }
        texts.push((file, text));
    }
    let mut out = String::new();
    for (file, text) in texts {
        match text {
            Some(text) => out.push_str(&format!("{file}:\n```\n{}\n```\n", text.trim_end())),
            None => out.push_str(&format!("{file} (binary)\n")),
        }
    }
    (!out.is_empty()).then_some(out)
}

/// Whether the file at `path` holds a NUL byte in its first 8 KiB (how
/// git tells binary files).
pub(crate) fn is_binary(path: &Path) -> bool {
    use std::io::Read;
    let mut head = Vec::with_capacity(8 * 1024);
    std::fs::File::open(path)
        .and_then(|file| file.take(8 * 1024).read_to_end(&mut head))
        .is_ok_and(|_| head.contains(&0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_projects_are_shown_whole_and_large_ones_by_name() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("calc.py"),
            "def add(a, b):\n    return b - a\n",
        )
        .unwrap();
        std::fs::create_dir(dir.path().join(".git")).unwrap();
        std::fs::write(dir.path().join(".git/HEAD"), "ref").unwrap();
        let small = listing(dir.path(), 40, 1_000);
        assert!(
            small.contains("calc.py:\n```\ndef add(a, b):\n    return b - a\n```"),
            "{small}"
        );
        assert!(!small.contains("HEAD"));
        assert_eq!(listing(dir.path(), 40, 10), "calc.py", "no room for it");
        let mut program = vec![0x7f, b'E', b'L', b'F', 0, 0];
        program.extend(std::iter::repeat_n(7u8, 20_000));
        std::fs::write(dir.path().join("calc"), &program).unwrap();
        let beside = listing(dir.path(), 40, 1_000);
        assert!(
            beside.starts_with("calc (binary)\ncalc.py:\n```\ndef add"),
            "a program does not hide its sources: {beside}"
        );
        std::fs::write(dir.path().join("big.txt"), "x".repeat(4_000)).unwrap();
        let large = listing(dir.path(), 40, 100_000);
        assert_eq!(large, "big.txt\ncalc\ncalc.py");
    }
}
