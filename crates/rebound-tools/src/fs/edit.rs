//! `edit_file`: exact search and replace.

use std::io::Read;
use std::path::Path;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::path::open_regular;
use super::write::write_atomically;
use super::{plural, relative, resolve, run_blocking};
use crate::{ToolContext, ToolError, ToolOutput, TypedTool};

/// The largest file `edit_file` edits.
const MAX_EDIT_BYTES: u64 = 16 * 1024 * 1024;

/// The largest file searched again, ignoring whitespace, for a hint when
/// `old` is not found.
const MAX_HINT_BYTES: usize = 1024 * 1024;

/// How many line numbers a message lists.
const MAX_LINES_LISTED: usize = 20;

/// The arguments of `edit_file`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EditFileArgs {
    /// The file to edit, relative to the workspace (an absolute path must lie inside the workspace).
    pub path: String,
    /// The exact text to replace, whitespace and line breaks included, as read_file shows it. It must occur exactly once unless replace_all is true: include surrounding lines to make it unique.
    pub old: String,
    /// The text to put in its place.
    pub new: String,
    /// Replace every occurrence of `old` instead of requiring exactly one. Default: false.
    #[serde(default)]
    pub replace_all: bool,
}

/// `edit_file`: replaces the exact text `old` with `new` in a UTF-8 text
/// file, and writes it atomically. `old` must occur exactly once unless
/// `replace_all`; when it does not occur, the error says whether it would
/// match ignoring whitespace or line endings, or where its first line is.
#[derive(Debug, Clone, Default)]
pub struct EditFile;

impl EditFile {
    /// The tool.
    pub fn new() -> Self {
        EditFile
    }
}

#[async_trait]
impl TypedTool for EditFile {
    type Args = EditFileArgs;
    const NAME: &'static str = "edit_file";

    fn description(&self) -> &str {
        "Replace exact text in a file of the workspace. `old` must match the file exactly \
         (copy it from read_file's output, indentation and line breaks included) and occur \
         exactly once: include enough surrounding lines to make it unique, or set replace_all \
         to replace every occurrence. To create a file or rewrite it whole, use write_file."
    }

    async fn run(&self, args: EditFileArgs, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let root = ctx.workspace().to_path_buf();
        run_blocking(ctx, move || edit(&root, &args)).await
    }
}

/// Does the edit `args` asks for.
fn edit(root: &Path, args: &EditFileArgs) -> Result<ToolOutput, ToolError> {
    if args.old.is_empty() {
        return Err(ToolError::failed(
            "`old` is empty: give the exact text to replace (to create a file or rewrite it \
             whole, use write_file)",
        ));
    }
    if args.old == args.new {
        return Err(ToolError::failed(
            "`old` and `new` are the same: there is nothing to change",
        ));
    }
    let real = resolve(root, &args.path)?;
    let (file, meta) = open_regular(root, &real, &args.path)?;
    let shown = relative(root, &real);
    if meta.len() > MAX_EDIT_BYTES {
        return Err(ToolError::failed(format!(
            "{shown:?} is {} bytes; edit_file edits files of at most {MAX_EDIT_BYTES} bytes",
            meta.len()
        )));
    }
    let mut bytes = Vec::new();
    file.take(MAX_EDIT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| ToolError::io(format!("reading {:?}", args.path), e))?;
    let text = String::from_utf8(bytes).map_err(|_| {
        ToolError::failed(format!(
            "{shown:?} is not valid UTF-8 text; edit_file edits text files only"
        ))
    })?;
    let starts: Vec<usize> = text.match_indices(&args.old).map(|(at, _)| at).collect();
    let lines = line_numbers(&text, &starts);
    match starts.len() {
        0 => return Err(ToolError::failed(not_found(&shown, &text, &args.old))),
        1 => {}
        n if !args.replace_all => {
            return Err(ToolError::failed(format!(
                "`old` occurs {n} times in {shown} (at lines {}): include more of the \
                 surrounding lines in `old` to make it unique, or set replace_all to replace \
                 every one",
                list_lines(&lines)
            )))
        }
        _ => {}
    }
    let updated = if args.replace_all {
        text.replace(&args.old, &args.new)
    } else {
        text.replacen(&args.old, &args.new, 1)
    };
    write_atomically(root, &real, &args.path, updated.as_bytes())?;
    let at = if lines.len() == 1 { "line" } else { "lines" };
    let content = format!(
        "replaced {} in {shown} (at {at} {})",
        plural(starts.len(), "occurrence"),
        list_lines(&lines)
    );
    Ok(ToolOutput::ok(content).with_details(serde_json::json!({
        "path": shown,
        "replacements": starts.len(),
        "lines": lines,
    })))
}

/// The 1-based line of each byte offset in `starts` (ascending).
fn line_numbers(text: &str, starts: &[usize]) -> Vec<usize> {
    let mut lines = Vec::with_capacity(starts.len());
    let (mut line, mut counted) = (1usize, 0usize);
    for &start in starts {
        line += text.as_bytes()[counted..start]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        counted = start;
        lines.push(line);
    }
    lines
}

/// "4, 10, 22", with the rest elided past [`MAX_LINES_LISTED`].
fn list_lines(lines: &[usize]) -> String {
    let mut listed: Vec<String> = lines
        .iter()
        .take(MAX_LINES_LISTED)
        .map(ToString::to_string)
        .collect();
    if lines.len() > MAX_LINES_LISTED {
        listed.push(format!("and {} more", lines.len() - MAX_LINES_LISTED));
    }
    listed.join(", ")
}

/// The message for `old` not found in `text`, with the best hint there is.
fn not_found(shown: &str, text: &str, old: &str) -> String {
    let base = format!("`old` was not found in {shown}.");
    if text.contains("\r\n") && old.contains('\n') && !old.contains("\r\n") {
        let crlf = old.replace('\n', "\r\n");
        if let Some(at) = text.find(&crlf) {
            return format!(
                "{base} The file has Windows line endings (CRLF) and `old` has plain newlines; \
                 with CRLF it occurs at line {}. Use \\r\\n line endings in `old` and `new`.",
                line_numbers(text, &[at])[0]
            );
        }
    }
    if text.len() <= MAX_HINT_BYTES {
        if let Some(line) = find_ignoring_whitespace(text, old) {
            return format!(
                "{base} It does occur if whitespace is ignored, at line {line}: the indentation, \
                 spaces or line breaks differ. Read the file again and copy `old` exactly."
            );
        }
    }
    if let Some(first) = old.lines().map(str::trim).find(|l| !l.is_empty()) {
        if old.trim() != first {
            let at: Vec<usize> = text
                .lines()
                .enumerate()
                .filter(|(_, l)| l.contains(first))
                .map(|(i, _)| i + 1)
                .collect();
            if !at.is_empty() {
                return format!(
                    "{base} Its first line {first:?} occurs at {} {}, but the lines after it \
                     differ. Read the file again and copy `old` exactly.",
                    if at.len() == 1 { "line" } else { "lines" },
                    list_lines(&at)
                );
            }
        }
    }
    format!("{base} Read the file again with read_file and copy `old` exactly as it is there.")
}

/// The line where `old` occurs in `text` when every run of whitespace
/// counts as one space and `old`'s ends are trimmed.
fn find_ignoring_whitespace(text: &str, old: &str) -> Option<usize> {
    let (needle, _) = collapse_whitespace(old.trim());
    if needle.is_empty() {
        return None;
    }
    let (haystack, offsets) = collapse_whitespace(text);
    let at = haystack.find(&needle)?;
    let original = *offsets.get(at)?;
    line_numbers(text, &[original]).first().copied()
}

/// `text` with each run of whitespace made one space, and for each byte of
/// the result the offset in `text` it came from.
fn collapse_whitespace(text: &str) -> (String, Vec<usize>) {
    let mut collapsed = String::with_capacity(text.len());
    let mut offsets = Vec::with_capacity(text.len());
    let mut in_space = false;
    for (at, ch) in text.char_indices() {
        if ch.is_whitespace() {
            if !in_space {
                collapsed.push(' ');
                offsets.push(at);
            }
            in_space = true;
        } else {
            collapsed.push(ch);
            offsets.extend(std::iter::repeat_n(at, ch.len_utf8()));
            in_space = false;
        }
    }
    (collapsed, offsets)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_numbers_of_offsets() {
        let text = "a\nbb\nc\n";
        assert_eq!(line_numbers(text, &[0, 2, 3, 5]), vec![1, 2, 2, 3]);
    }

    #[test]
    fn whitespace_insensitive_search_finds_the_line() {
        let text = "fn main() {\n    let x = 1;\n}\n";
        assert_eq!(find_ignoring_whitespace(text, "let  x =\t1;"), Some(2));
        assert_eq!(find_ignoring_whitespace(text, "let y"), None);
        assert_eq!(find_ignoring_whitespace(text, "   "), None);
    }

    #[test]
    fn long_line_lists_are_elided() {
        let lines: Vec<usize> = (1..=25).collect();
        assert!(list_lines(&lines).ends_with("20, and 5 more"));
    }
}
