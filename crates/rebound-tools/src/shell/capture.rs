//! Capturing a command's output with bounded memory: a head and a tail for
//! the model, everything (up to a cap) in a log file, lines to the sink.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::path::{Path, PathBuf};

use tokio::io::AsyncWriteExt;

use super::text::{printable, trim_partial_end, trim_partial_start};
use super::{Redactor, ShellConfig};
use crate::{OutputSink, ToolContext};

/// The longest line passed to the output sink; longer ones are cut.
const SINK_LINE_MAX: usize = 4096;

pub(crate) use rebound_protocol::Stream;

/// What [`Capture::finish`] hands back.
#[derive(Debug)]
pub(crate) struct Captured {
    /// The model-facing text: everything, or head, marker and tail.
    pub output: String,
    /// Whether `output` leaves bytes out.
    pub truncated: bool,
    pub bytes: u64,
    pub stdout_bytes: u64,
    pub stderr_bytes: u64,
    pub log_path: Option<PathBuf>,
    /// Whether the log stopped at the log cap.
    pub log_capped: bool,
    /// Why the log is missing or incomplete.
    pub log_error: Option<String>,
}

/// The byte budgets, made consistent: head and tail fit in memory.
#[derive(Debug, Clone, Copy)]
struct Limits {
    head: usize,
    tail: usize,
    memory: usize,
    log: u64,
}

impl Limits {
    fn new(config: &ShellConfig) -> Self {
        let memory = config.memory_cap;
        let head = config.head_bytes.min(memory / 2);
        let tail = config.tail_bytes.min(memory - head);
        Limits {
            head,
            tail,
            memory,
            log: config.log_cap,
        }
    }
}

enum Log {
    /// Not needed yet: the output is all in memory.
    NotOpen,
    Open {
        file: tokio::fs::File,
        path: PathBuf,
        written: u64,
    },
    /// Could not be created or written.
    Broken {
        path: Option<PathBuf>,
        error: String,
    },
}

/// Collects a command's output as it arrives.
///
/// Memory stays below the memory cap: the output is kept in memory until it
/// outgrows it, then spilled to the log file, keeping only the head and a
/// rolling tail. The log file is written only when the output is too long
/// to show whole.
pub(crate) struct Capture {
    limits: Limits,
    head: Vec<u8>,
    tail: VecDeque<u8>,
    memory: Vec<u8>,
    log: Log,
    total: u64,
    stdout_bytes: u64,
    stderr_bytes: u64,
    artifacts: PathBuf,
    call_id: String,
    sink: Option<OutputSink>,
    lines: [LineBuffer; 2],
}

impl Capture {
    pub(crate) fn new(config: &ShellConfig, ctx: &ToolContext) -> Self {
        let limits = Limits::new(config);
        Capture {
            limits,
            head: Vec::with_capacity(limits.head),
            tail: VecDeque::with_capacity(limits.tail),
            memory: Vec::new(),
            log: Log::NotOpen,
            total: 0,
            stdout_bytes: 0,
            stderr_bytes: 0,
            artifacts: ctx.artifacts().to_path_buf(),
            call_id: ctx.call_id().to_string(),
            sink: ctx.output().cloned(),
            lines: [LineBuffer::default(), LineBuffer::default()],
        }
    }

    /// Takes `chunk` of `stream`, with the secrets of rebound's own
    /// environment masked ([`Redactor`]) before it is kept, logged or
    /// streamed.
    pub(crate) async fn push(&mut self, stream: Stream, chunk: &[u8]) {
        let len = chunk.len() as u64;
        self.total += len;
        match stream {
            Stream::Stdout => self.stdout_bytes += len,
            Stream::Stderr => self.stderr_bytes += len,
        }
        let redacted = redact_bytes(Redactor::from_process(), chunk);
        let chunk: &[u8] = &redacted;
        if self.head.len() < self.limits.head {
            let take = chunk.len().min(self.limits.head - self.head.len());
            self.head.extend_from_slice(&chunk[..take]);
        }
        self.push_tail(chunk);
        if let Some(sink) = &self.sink {
            let index = stream as usize;
            self.lines[index].feed(chunk, |line| sink(stream, line));
        }
        match self.log {
            Log::Open { .. } => self.write_log(chunk).await,
            Log::Broken { .. } => {}
            Log::NotOpen => {
                if self.memory.len() + chunk.len() <= self.limits.memory {
                    self.memory.extend_from_slice(chunk);
                } else {
                    self.spill().await;
                    self.write_log(chunk).await;
                }
            }
        }
    }

    fn push_tail(&mut self, chunk: &[u8]) {
        let cap = self.limits.tail;
        let keep = &chunk[chunk.len().saturating_sub(cap)..];
        self.tail.extend(keep);
        let excess = self.tail.len().saturating_sub(cap);
        self.tail.drain(..excess);
    }

    /// Opens the log file and moves what memory holds into it.
    async fn spill(&mut self) {
        let memory = std::mem::take(&mut self.memory);
        self.log = match open_log(&self.artifacts, &self.call_id).await {
            Ok((file, path)) => Log::Open {
                file,
                path,
                written: 0,
            },
            Err(error) => {
                tracing::warn!("shell: {error}");
                Log::Broken { path: None, error }
            }
        };
        self.write_log(&memory).await;
    }

    async fn write_log(&mut self, bytes: &[u8]) {
        let Log::Open {
            file,
            path,
            written,
        } = &mut self.log
        else {
            return;
        };
        let room = self.limits.log.saturating_sub(*written);
        let take = bytes.len().min(usize::try_from(room).unwrap_or(usize::MAX));
        if take == 0 {
            return;
        }
        match file.write_all(&bytes[..take]).await {
            Ok(()) => *written += take as u64,
            Err(e) => {
                let error = format!("writing {path:?}: {e}");
                tracing::warn!("shell: {error}");
                self.log = Log::Broken {
                    path: Some(path.clone()),
                    error,
                };
            }
        }
    }

    /// Ends the capture: flushes the sink's partial lines, saves the log if
    /// the output is too long to show whole, and renders the output.
    pub(crate) async fn finish(mut self) -> Captured {
        if let Some(sink) = &self.sink {
            for stream in [Stream::Stdout, Stream::Stderr] {
                self.lines[stream as usize].flush(|line| sink(stream, line));
            }
        }
        let truncated = self.total > (self.limits.head + self.limits.tail) as u64;
        if truncated && matches!(self.log, Log::NotOpen) {
            self.spill().await;
        }
        let mut log_capped = false;
        if let Log::Open { written, .. } = self.log {
            if written < self.total {
                log_capped = true;
                let note = format!(
                    "\n[rebound: log capped at {written} bytes; the command wrote {} bytes]\n",
                    self.total
                );
                // The note is written whatever the cap.
                self.limits.log = u64::MAX;
                self.write_log(note.as_bytes()).await;
            }
        }
        let (log_path, log_error) = match self.log {
            Log::NotOpen => (None, None),
            Log::Open { mut file, path, .. } => match file.flush().await {
                Ok(()) => (Some(path), None),
                Err(e) => {
                    let error = format!("writing {path:?}: {e}");
                    (Some(path), Some(error))
                }
            },
            Log::Broken { path, error } => (path, Some(error)),
        };
        let output = if truncated {
            let head = trim_partial_end(&self.head);
            let tail: Vec<u8> = self.tail.into_iter().collect();
            let tail = trim_partial_start(&tail);
            let elided = self.total - head.len() as u64 - tail.len() as u64;
            let mut output = printable(head);
            if !output.is_empty() && !output.ends_with('\n') {
                output.push('\n');
            }
            output.push_str(&marker(
                elided,
                self.total,
                log_path.as_deref(),
                log_capped,
                log_error.as_deref(),
            ));
            output.push_str(&printable(tail));
            output
        } else {
            printable(&self.memory)
        };
        // Again on the whole: a secret split across two chunks.
        let output = Redactor::from_process().redact(&output).into_owned();
        Captured {
            output,
            truncated,
            bytes: self.total,
            stdout_bytes: self.stdout_bytes,
            stderr_bytes: self.stderr_bytes,
            log_path,
            log_capped,
            log_error,
        }
    }
}

/// `bytes` with `redactor`'s secrets masked (as UTF-8, lossily where a
/// chunk splits a character; unchanged when there is no secret in it).
fn redact_bytes<'a>(redactor: &Redactor, bytes: &'a [u8]) -> Cow<'a, [u8]> {
    if redactor.is_empty() {
        return Cow::Borrowed(bytes);
    }
    let text = String::from_utf8_lossy(bytes);
    match redactor.redact(&text) {
        Cow::Owned(masked) => Cow::Owned(masked.into_bytes()),
        Cow::Borrowed(_) => Cow::Borrowed(bytes),
    }
}

/// The line between head and tail, saying what was cut and where it is.
fn marker(
    elided: u64,
    total: u64,
    log: Option<&Path>,
    capped: bool,
    error: Option<&str>,
) -> String {
    let whereabouts = match (log, error) {
        (Some(path), None) if capped => format!(
            "the first part of the output is saved in {}",
            path.display()
        ),
        (Some(path), None) => format!("the full output is saved in {}", path.display()),
        (_, Some(error)) => format!("the full output could not be saved: {error}"),
        (None, None) => "the full output was not saved".to_string(),
    };
    format!("[... {elided} bytes cut ({total} bytes in all); {whereabouts} ...]\n")
}

/// Creates the log file in `dir` (created when needed), named from the
/// call id, never overwriting another.
async fn open_log(dir: &Path, call_id: &str) -> Result<(tokio::fs::File, PathBuf), String> {
    tokio::fs::create_dir_all(dir)
        .await
        .map_err(|e| format!("creating the artifact dir {dir:?}: {e}"))?;
    let stem = file_stem(call_id);
    for n in 0..1000u32 {
        let name = if n == 0 {
            format!("shell-{stem}.log")
        } else {
            format!("shell-{stem}-{n}.log")
        };
        let path = dir.join(name);
        match tokio::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .await
        {
            Ok(file) => return Ok((file, path)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(format!("creating {path:?}: {e}")),
        }
    }
    Err(format!(
        "creating a log file for call {call_id:?} in {dir:?}: too many exist"
    ))
}

/// `call_id` made safe as part of a file name.
fn file_stem(call_id: &str) -> String {
    let stem: String = call_id
        .chars()
        .take(100)
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let stem = stem.trim_start_matches('.');
    if stem.is_empty() {
        "call".to_string()
    } else {
        stem.to_string()
    }
}

/// Splits one stream into lines for the sink, cutting long lines.
#[derive(Debug, Default)]
struct LineBuffer {
    line: Vec<u8>,
    cut: bool,
}

impl LineBuffer {
    fn feed(&mut self, mut chunk: &[u8], mut emit: impl FnMut(&str)) {
        while let Some(end) = chunk.iter().position(|&b| b == b'\n') {
            self.append(&chunk[..end]);
            self.emit(&mut emit);
            chunk = &chunk[end + 1..];
        }
        self.append(chunk);
    }

    fn flush(&mut self, emit: impl FnMut(&str)) {
        if !self.line.is_empty() || self.cut {
            self.emit(emit);
        }
    }

    fn append(&mut self, bytes: &[u8]) {
        let room = SINK_LINE_MAX - self.line.len();
        if bytes.len() > room {
            self.line.extend_from_slice(&bytes[..room]);
            self.cut = true;
        } else {
            self.line.extend_from_slice(bytes);
        }
    }

    fn emit(&mut self, mut emit: impl FnMut(&str)) {
        let line = self.line.strip_suffix(b"\r").unwrap_or(&self.line);
        let mut text = printable(trim_partial_end(line));
        if self.cut {
            text.push_str(" [...]");
        }
        emit(&text);
        self.line.clear();
        self.cut = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_split_and_cut() {
        let mut buffer = LineBuffer::default();
        let mut lines = Vec::new();
        buffer.feed(b"one\r\ntw", |l| lines.push(l.to_string()));
        buffer.feed(b"o\n", |l| lines.push(l.to_string()));
        buffer.feed(&vec![b'x'; SINK_LINE_MAX + 10], |l| {
            lines.push(l.to_string())
        });
        buffer.flush(|l| lines.push(l.to_string()));
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[..2], ["one", "two"]);
        assert_eq!(lines[2], format!("{} [...]", "x".repeat(SINK_LINE_MAX)));
    }

    #[test]
    fn call_ids_make_safe_file_names() {
        assert_eq!(file_stem("call_1"), "call_1");
        assert_eq!(file_stem("../etc/passwd"), "_etc_passwd");
        assert_eq!(file_stem(""), "call");
    }
}
