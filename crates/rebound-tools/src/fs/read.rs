//! `read_file`: a text file, or a range of its lines, up to a size cap.

use std::io::{ErrorKind, Read};
use std::path::Path;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::path::open_regular;
use super::{plural, relative, resolve, run_blocking};
use crate::{ToolContext, ToolError, ToolOutput, TypedTool};

/// How far a file is scanned to count its lines once the lines to return
/// are known: beyond this the total is reported as "more than N".
const SCAN_LIMIT: u64 = 64 * 1024 * 1024;

/// A file whose first this many bytes hold a NUL byte is binary (as git
/// decides).
const BINARY_SNIFF_BYTES: u64 = 8 * 1024;

/// The arguments of `read_file`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadFileArgs {
    /// The file to read, relative to the workspace (an absolute path must lie inside the workspace).
    pub path: String,
    /// The first line to return, counting from 1. Default: 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_line: Option<usize>,
    /// The last line to return (inclusive). Default: the end of the file; a line past the end reads to the end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_line: Option<usize>,
}

/// `read_file`: returns a text file, or a range of its lines, after a
/// header `path (lines a-b of N)`. At most [`ReadFile::max_bytes`] are
/// returned; a longer selection is cut at a line boundary with a note saying
/// which `start_line` reads on. Binary files (a NUL byte in the first 8 KiB
/// or in the lines read) are an error; text that is not valid UTF-8 is shown
/// lossily, with a note.
#[derive(Debug, Clone)]
pub struct ReadFile {
    max_bytes: usize,
    description: String,
}

impl ReadFile {
    /// The default cap on the bytes one call returns: 256 KiB.
    pub const DEFAULT_MAX_BYTES: usize = 256 * 1024;

    /// The tool with the default cap.
    pub fn new() -> Self {
        ReadFile::default().with_max_bytes(Self::DEFAULT_MAX_BYTES)
    }

    /// The same tool returning at most `max_bytes` (at least 1) per call.
    pub fn with_max_bytes(mut self, max_bytes: usize) -> Self {
        self.max_bytes = max_bytes.max(1);
        self.description = format!(
            "Read a text file in the workspace. Returns a header `path (lines a-b of N)` and then \
             the text exactly as it is in the file (no line numbers added). Give start_line and \
             end_line (1-based, inclusive) to read part of a large file. At most {} bytes are \
             returned per call; a longer file is cut and the note at the end says how to read on.",
            self.max_bytes
        );
        self
    }

    /// The cap on the bytes one call returns.
    pub fn max_bytes(&self) -> usize {
        self.max_bytes
    }
}

impl Default for ReadFile {
    fn default() -> Self {
        ReadFile {
            max_bytes: 0,
            description: String::new(),
        }
        .with_max_bytes(Self::DEFAULT_MAX_BYTES)
    }
}

#[async_trait]
impl TypedTool for ReadFile {
    type Args = ReadFileArgs;
    const NAME: &'static str = "read_file";

    fn description(&self) -> &str {
        &self.description
    }

    async fn run(&self, args: ReadFileArgs, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let root = ctx.workspace().to_path_buf();
        let max_bytes = self.max_bytes;
        run_blocking(ctx, move || read(&root, &args, max_bytes)).await
    }
}

/// Reads what `args` asks for.
fn read(root: &Path, args: &ReadFileArgs, max_bytes: usize) -> Result<ToolOutput, ToolError> {
    let start = args.start_line.unwrap_or(1);
    if start == 0 {
        return Err(ToolError::failed(
            "start_line counts from 1: line 0 does not exist",
        ));
    }
    if let Some(end) = args.end_line {
        if end < start {
            return Err(ToolError::failed(format!(
                "end_line {end} is before start_line {start}"
            )));
        }
    }
    let real = resolve(root, &args.path)?;
    let (file, meta) = open_regular(root, &real, &args.path)?;
    let shown = relative(root, &real);
    let selection = select_lines(file, start, args.end_line, max_bytes, SCAN_LIMIT)
        .map_err(|e| ToolError::io(format!("reading {:?}", args.path), e))?;
    if selection.binary {
        return Err(ToolError::failed(format!(
            "{shown:?} looks like a binary file (it has NUL bytes; {} bytes in all): \
             read_file shows text files only",
            meta.len()
        )));
    }
    let total = if selection.total_known {
        selection.total_lines.to_string()
    } else {
        format!("more than {}", selection.total_lines)
    };
    let details = |first: usize, last: usize| {
        serde_json::json!({
            "path": shown,
            "start_line": first,
            "end_line": last,
            "total_lines": selection.total_known.then_some(selection.total_lines),
            "bytes": meta.len(),
            "truncated": selection.cut,
        })
    };
    if selection.total_known && selection.total_lines == 0 {
        return Ok(ToolOutput::ok(format!("{shown} (empty file)")).with_details(details(0, 0)));
    }
    if selection.last == 0 {
        return Err(ToolError::failed(format!(
            "start_line {start} is past the end of {shown:?}, which has {}",
            plural(selection.total_lines, "line")
        )));
    }
    let last = selection.last;
    let range = if start == last {
        format!("line {start}")
    } else {
        format!("lines {start}-{last}")
    };
    let mut notes = Vec::new();
    if selection.cut_mid_line {
        notes.push(format!(
            "[cut: line {start} is longer than {max_bytes} bytes; only its start is shown]"
        ));
    } else if selection.cut {
        notes.push(format!(
            "[cut at {max_bytes} bytes (the file is {} bytes): read on with start_line={}]",
            meta.len(),
            last + 1
        ));
    }
    if let Some(end) = args.end_line {
        if end > last && !selection.cut {
            notes.push(format!(
                "[end_line {end} is past the end of the file, which has {}]",
                plural(selection.total_lines, "line")
            ));
        }
    }
    let (text, lossy) = decode(selection.text, selection.cut_mid_line);
    if lossy {
        notes.push("[not valid UTF-8: invalid bytes are shown as U+FFFD]".to_string());
    }
    let mut content = format!("{shown} ({range} of {total})\n{text}");
    if !notes.is_empty() {
        if !content.ends_with('\n') {
            content.push('\n');
        }
        content.push_str(&notes.join("\n"));
    }
    let content = crate::shell::Redactor::from_process()
        .redact(&content)
        .into_owned();
    Ok(ToolOutput::ok(content).with_details(details(start, last)))
}

/// The lines a call selected, and what is known of the file.
#[derive(Debug, Default, PartialEq)]
struct Selection {
    /// The bytes of the lines selected, newlines included.
    text: Vec<u8>,
    /// The last line in `text` (in part, when `cut_mid_line`); 0 when the
    /// selection starts past the end.
    last: usize,
    /// The lines counted (all of them when `total_known`).
    total_lines: usize,
    /// Whether the whole file was scanned.
    total_known: bool,
    /// Whether the byte cap cut the selection short.
    cut: bool,
    /// Whether it was cut inside its first line, which alone is too long.
    cut_mid_line: bool,
    /// Whether the file has a NUL byte in its first 8 KiB or in the
    /// selection.
    binary: bool,
}

/// Scans `reader` for lines `start..=end`, keeping at most `max_bytes` of
/// them (whole lines, unless the first alone is longer), and counts lines
/// until the end of the file or, once the selection is done, `scan_limit`
/// bytes. Memory stays within `max_bytes` and a buffer, however long the
/// lines.
fn select_lines(
    mut reader: impl Read,
    start: usize,
    end: Option<usize>,
    max_bytes: usize,
    scan_limit: u64,
) -> std::io::Result<Selection> {
    let mut buffer = vec![0u8; 64 * 1024];
    let mut out = Selection::default();
    // The line the next byte belongs to.
    let mut line = 1usize;
    // `out.text`'s length after the last whole line selected.
    let mut complete_len = 0usize;
    let mut last_complete = 0usize;
    let mut seen: u64 = 0;
    let mut ends_with_newline = true;
    let mut stopped = false;
    loop {
        let n = match reader.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let chunk = &buffer[..n];
        if seen < BINARY_SNIFF_BYTES {
            let sniff = usize::try_from(BINARY_SNIFF_BYTES - seen).map_or(n, |left| left.min(n));
            if chunk[..sniff].contains(&0) {
                return Ok(Selection {
                    binary: true,
                    ..Selection::default()
                });
            }
        }
        seen += n as u64;
        let mut pos = 0;
        while pos < n {
            let newline = chunk[pos..].iter().position(|&b| b == b'\n');
            let seg_end = newline.map_or(n, |i| pos + i + 1);
            let segment = &chunk[pos..seg_end];
            let selected = line >= start && end.is_none_or(|end| line <= end);
            if selected && !out.cut {
                if out.text.len() + segment.len() > max_bytes {
                    out.cut = true;
                    if last_complete == 0 {
                        let room = max_bytes - out.text.len();
                        out.text.extend_from_slice(&segment[..room]);
                        out.cut_mid_line = true;
                        out.last = line;
                    } else {
                        out.text.truncate(complete_len);
                        out.last = last_complete;
                    }
                } else {
                    out.text.extend_from_slice(segment);
                    if newline.is_some() {
                        complete_len = out.text.len();
                        last_complete = line;
                    }
                }
            }
            if newline.is_some() {
                line += 1;
            }
            ends_with_newline = newline.is_some();
            pos = seg_end;
        }
        let selection_done = out.cut || end.is_some_and(|end| line > end);
        if selection_done && seen >= scan_limit {
            stopped = true;
            break;
        }
    }
    out.total_lines = if ends_with_newline { line - 1 } else { line };
    out.total_known = !stopped;
    if !out.cut {
        // The last line selected may have no newline: the file ends there.
        out.last = if out.text.len() > complete_len {
            out.total_lines
        } else {
            last_complete
        };
    }
    if out.text.contains(&0) {
        out.binary = true;
    }
    Ok(out)
}

/// `bytes` as text, and whether invalid UTF-8 had to be replaced. A
/// character cut in two at the end by a mid-line cut is dropped.
fn decode(mut bytes: Vec<u8>, cut_mid_line: bool) -> (String, bool) {
    if cut_mid_line {
        if let Err(e) = std::str::from_utf8(&bytes) {
            if e.error_len().is_none() {
                bytes.truncate(e.valid_up_to());
            }
        }
    }
    match String::from_utf8(bytes) {
        Ok(text) => (text, false),
        Err(e) => (String::from_utf8_lossy(e.as_bytes()).into_owned(), true),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader handing out one byte per read, to cross every chunk
    /// boundary.
    struct OneByte<'a>(&'a [u8]);

    impl Read for OneByte<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            match (self.0.split_first(), buf.first_mut()) {
                (Some((&byte, rest)), Some(slot)) => {
                    *slot = byte;
                    self.0 = rest;
                    Ok(1)
                }
                _ => Ok(0),
            }
        }
    }

    fn select(text: &str, start: usize, end: Option<usize>, max: usize) -> Selection {
        let whole = select_lines(text.as_bytes(), start, end, max, u64::MAX).unwrap();
        let bytewise = select_lines(OneByte(text.as_bytes()), start, end, max, u64::MAX).unwrap();
        assert_eq!(whole, bytewise, "chunking changed the selection");
        whole
    }

    #[test]
    fn ranges_and_totals() {
        let s = select("a\nb\nc", 2, None, 100);
        assert_eq!(
            (s.text.as_slice(), s.last, s.total_lines),
            (&b"b\nc"[..], 3, 3)
        );
        let s = select("a\nb\nc\n", 1, Some(2), 100);
        assert_eq!(
            (s.text.as_slice(), s.last, s.total_lines),
            (&b"a\nb\n"[..], 2, 3)
        );
        let s = select("a\nb\n", 3, None, 100);
        assert_eq!((s.last, s.total_lines, s.text.len()), (0, 2, 0));
        let s = select("", 1, None, 100);
        assert_eq!((s.last, s.total_lines, s.total_known), (0, 0, true));
    }

    #[test]
    fn the_cap_cuts_at_a_line_boundary_or_inside_a_too_long_first_line() {
        let s = select("aaaa\nbbbb\ncccc\n", 1, None, 12);
        assert_eq!(
            (s.text.as_slice(), s.last, s.cut),
            (&b"aaaa\nbbbb\n"[..], 2, true)
        );
        assert_eq!(s.total_lines, 3);
        let s = select("aaaaaaaaaa\nb\n", 1, None, 4);
        assert_eq!(
            (s.text.as_slice(), s.last, s.cut_mid_line),
            (&b"aaaa"[..], 1, true)
        );
    }

    #[test]
    fn nul_bytes_mean_binary() {
        assert!(select("ab\0cd", 1, None, 100).binary);
        assert!(!select("abcd\n", 1, None, 100).binary);
    }

    #[test]
    fn scanning_stops_at_the_limit_once_the_selection_is_done() {
        let text = "x\n".repeat(100_000);
        let s = select_lines(text.as_bytes(), 1, Some(2), 100, 1).unwrap();
        assert_eq!((s.text.as_slice(), s.last), (&b"x\nx\n"[..], 2));
        assert!(!s.total_known);
        assert!(s.total_lines < 100_000);
    }

    #[test]
    fn decode_drops_a_character_cut_in_two() {
        let bytes = "é".as_bytes()[..1].to_vec();
        assert_eq!(decode(bytes.clone(), true), (String::new(), false));
        assert_eq!(decode(bytes, false), ("\u{FFFD}".to_string(), true));
    }
}
