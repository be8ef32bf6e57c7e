//! What a tool call runs in: the workspace, the artifact dir, cancellation
//! and a sink for streamed output.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

/// Receives output as a command produces it: `(stream, line)`. Used for live progress; the captured output
/// in the [`crate::ToolOutput`] does not depend on it.
pub type OutputSink = Arc<dyn Fn(rebound_protocol::Stream, &str) + Send + Sync>;

/// Where and how a tool call runs.
#[derive(Clone)]
pub struct ToolContext {
    workspace: PathBuf,
    artifacts: PathBuf,
    cancellation: CancellationToken,
    output: Option<OutputSink>,
    call_id: String,
}

impl ToolContext {
    /// A context for calls in `workspace`, which must exist: it is
    /// canonicalized here, so that path checks compare real paths. Full logs
    /// go to `workspace/.rebound/artifacts` until
    /// [`ToolContext::with_artifacts`] says otherwise.
    pub fn new(workspace: impl AsRef<Path>) -> std::io::Result<Self> {
        let workspace = std::fs::canonicalize(workspace.as_ref())?;
        let artifacts = workspace.join(".rebound").join("artifacts");
        Ok(ToolContext {
            workspace,
            artifacts,
            cancellation: CancellationToken::new(),
            output: None,
            call_id: "call".to_string(),
        })
    }

    /// The same context, saving full logs in `dir` (created when needed).
    pub fn with_artifacts(mut self, dir: impl Into<PathBuf>) -> Self {
        self.artifacts = dir.into();
        self
    }

    /// The same context, cancelled by `token`.
    pub fn with_cancellation(mut self, token: CancellationToken) -> Self {
        self.cancellation = token;
        self
    }

    /// The same context, streaming output lines to `sink`.
    pub fn with_output(mut self, sink: OutputSink) -> Self {
        self.output = Some(sink);
        self
    }

    /// The same context, for the call `id` (used to name artifact files).
    pub fn with_call_id(mut self, id: impl Into<String>) -> Self {
        self.call_id = id.into();
        self
    }

    /// The canonical workspace root.
    pub fn workspace(&self) -> &Path {
        &self.workspace
    }

    /// Where full logs are saved.
    pub fn artifacts(&self) -> &Path {
        &self.artifacts
    }

    /// The call's cancellation token.
    pub fn cancellation(&self) -> &CancellationToken {
        &self.cancellation
    }

    /// The output sink, if any.
    pub fn output(&self) -> Option<&OutputSink> {
        self.output.as_ref()
    }

    /// The call's id.
    pub fn call_id(&self) -> &str {
        &self.call_id
    }
}

impl std::fmt::Debug for ToolContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolContext")
            .field("workspace", &self.workspace)
            .field("artifacts", &self.artifacts)
            .field("call_id", &self.call_id)
            .finish_non_exhaustive()
    }
}
