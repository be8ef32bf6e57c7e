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
    caches: PathBuf,
    cancellation: CancellationToken,
    output: Option<OutputSink>,
    call_id: String,
    idempotency_key: Option<String>,
}

impl ToolContext {
    /// A context for calls in `workspace`, which must exist: it is
    /// canonicalized here, so that path checks compare real paths. Full logs
    /// go to `workspace/.rebound/artifacts` until
    /// [`ToolContext::with_artifacts`] says otherwise, and tools' caches
    /// to `workspace/.rebound/cache` until [`ToolContext::with_caches`]
    /// does.
    pub fn new(workspace: impl AsRef<Path>) -> std::io::Result<Self> {
        let workspace = std::fs::canonicalize(workspace.as_ref())?;
        let artifacts = workspace.join(".rebound").join("artifacts");
        let caches = workspace.join(".rebound").join("cache");
        Ok(ToolContext {
            workspace,
            artifacts,
            caches,
            cancellation: CancellationToken::new(),
            output: None,
            call_id: "call".to_string(),
            idempotency_key: None,
        })
    }

    /// The same context, saving full logs in `dir` (created when needed).
    pub fn with_artifacts(mut self, dir: impl Into<PathBuf>) -> Self {
        self.artifacts = dir.into();
        self
    }

    /// The same context, giving sandboxed commands' tools their caches in
    /// `dir` (see [`crate::shell::run_command`]).
    pub fn with_caches(mut self, dir: impl Into<PathBuf>) -> Self {
        self.caches = dir.into();
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

    /// The same context, with the call's idempotency key: the same each
    /// time the engine runs this call again (after a crash, on another
    /// worker), for a tool whose service can drop a repeated request.
    pub fn with_idempotency_key(mut self, key: impl Into<String>) -> Self {
        self.idempotency_key = Some(key.into());
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

    /// Where sandboxed commands' tools keep the caches they would keep in
    /// the home directory, which the sandbox does not let them write.
    pub fn caches(&self) -> &Path {
        &self.caches
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

    /// The call's idempotency key, when a durable run made it.
    pub fn idempotency_key(&self) -> Option<&str> {
        self.idempotency_key.as_deref()
    }
}

impl std::fmt::Debug for ToolContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolContext")
            .field("workspace", &self.workspace)
            .field("artifacts", &self.artifacts)
            .field("caches", &self.caches)
            .field("call_id", &self.call_id)
            .field("idempotency_key", &self.idempotency_key)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::ToolContext;

    #[test]
    fn a_call_carries_its_idempotency_key_only_when_given_one() {
        let dir = tempfile::tempdir().unwrap();
        let context = ToolContext::new(dir.path()).unwrap();
        assert_eq!(context.idempotency_key(), None);
        let keyed = context.with_idempotency_key("thread/0661/act/tool:shell");
        assert_eq!(keyed.idempotency_key(), Some("thread/0661/act/tool:shell"));
        assert!(format!("{keyed:?}").contains("tool:shell"));
    }
}
