//! The Landlock sandbox for commands the model runs.
//!
//! A sandboxed command may read and execute anything, but write only inside
//! the workspace, the temp dir ([`std::env::temp_dir`]), `/dev/shm`, a few
//! harmless devices (`/dev/null`, `/dev/zero`, `/dev/full`, `/dev/random`,
//! `/dev/urandom`) and the extra [`SandboxPolicy::writable`] paths. With
//! [`SandboxPolicy::network`] off it may neither bind nor connect TCP
//! sockets (Landlock ABI 4) nor reach abstract UNIX sockets outside the
//! sandbox (ABI 6), where the kernel supports it.
//!
//! Landlock (and `no_new_privs`, which it needs) restricts the calling
//! *thread* and what it spawns afterwards. [`spawn`] therefore starts each
//! command from a dedicated short-lived thread that restricts itself first:
//! the rest of the process is never restricted, and no `pre_exec` hook (no
//! `unsafe`) is needed.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

use landlock::{
    Access, AccessFs, AccessNet, CompatLevel, Compatible, PathBeneath, PathFd, Ruleset,
    RulesetAttr, RulesetCreatedAttr, RulesetStatus, Scope, ABI,
};
use serde::{Deserialize, Serialize};

use crate::ToolError;

/// The filesystem access rights rebound handles: every right up to ABI 5
/// (the newest it was tested with). Older kernels get the subset they
/// know (best effort); newer rights stay unhandled, hence allowed.
const FS_ABI: ABI = ABI::V5;

/// Devices every command may write to.
const WRITABLE_DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
];

/// Directories every command may write in, besides the workspace and the
/// temp dir (when they exist).
const WRITABLE_DIRS: &[&str] = &["/dev/shm"];

/// Whether commands run in the Landlock sandbox.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SandboxMode {
    /// Restrict writes (and, if asked, the network) with Landlock.
    #[default]
    Landlock,
    /// Run commands unrestricted.
    Off,
}

/// What a sandboxed command may do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SandboxPolicy {
    /// Whether to sandbox at all.
    pub mode: SandboxMode,
    /// Whether commands may use the network. When `false`, TCP bind and
    /// connect are denied (Landlock ABI 4 and later).
    pub network: bool,
    /// Whether to run commands unsandboxed (with a warning, once) where
    /// the kernel lacks a Landlock feature the policy needs. When `false`,
    /// such a command fails with a [`ToolError`] instead.
    pub allow_unsandboxed: bool,
    /// Extra paths (directories or files) commands may write to, besides
    /// the workspace and the temp dir. Paths that do not exist are skipped
    /// with a warning.
    pub writable: Vec<PathBuf>,
}

impl Default for SandboxPolicy {
    fn default() -> Self {
        SandboxPolicy {
            mode: SandboxMode::Landlock,
            network: true,
            allow_unsandboxed: true,
            writable: Vec::new(),
        }
    }
}

impl SandboxPolicy {
    /// A policy that does not sandbox.
    pub fn off() -> Self {
        SandboxPolicy {
            mode: SandboxMode::Off,
            ..SandboxPolicy::default()
        }
    }
}

/// What this kernel's Landlock can enforce: probed once per process.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SandboxStatus {
    /// Landlock restricts filesystem writes.
    Available {
        /// Whether it can also deny TCP bind and connect (ABI 4 and later).
        network: bool,
    },
    /// Landlock is not available: not built into the kernel, disabled at
    /// boot, or blocked.
    Unavailable {
        /// Why, as the probe saw it.
        reason: String,
    },
}

impl SandboxStatus {
    /// Whether Landlock restricts filesystem writes here.
    pub fn is_available(&self) -> bool {
        matches!(self, SandboxStatus::Available { .. })
    }

    /// Whether Landlock can deny TCP bind and connect here.
    pub fn network_rules(&self) -> bool {
        matches!(self, SandboxStatus::Available { network: true })
    }
}

impl std::fmt::Display for SandboxStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SandboxStatus::Available { network: true } => {
                f.write_str("Landlock sandbox available (filesystem and network rules)")
            }
            SandboxStatus::Available { network: false } => f.write_str(
                "Landlock sandbox available (filesystem rules only: this kernel cannot restrict the network)",
            ),
            SandboxStatus::Unavailable { reason } => {
                write!(f, "Landlock sandbox unavailable: {reason}")
            }
        }
    }
}

/// What Landlock can enforce on this kernel, probed once (by creating, not
/// applying, a ruleset) and cached. A CLI can print it at start-up.
pub fn sandbox_status() -> &'static SandboxStatus {
    static STATUS: OnceLock<SandboxStatus> = OnceLock::new();
    STATUS.get_or_init(probe)
}

/// Whether Landlock can restrict filesystem writes here (cached).
pub fn landlock_supported() -> bool {
    sandbox_status().is_available()
}

fn probe() -> SandboxStatus {
    let fs = Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(AccessFs::from_all(ABI::V1))
        .and_then(|ruleset| ruleset.create());
    if let Err(e) = fs {
        return SandboxStatus::Unavailable {
            reason: e.to_string(),
        };
    }
    let network = Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(AccessNet::from_all(ABI::V4))
        .and_then(|ruleset| ruleset.create())
        .is_ok();
    SandboxStatus::Available { network }
}

/// A child started by [`spawn`].
#[derive(Debug)]
pub struct SpawnedChild {
    /// The child.
    pub child: tokio::process::Child,
    /// Whether it runs under Landlock.
    pub sandboxed: bool,
    /// Whether its network is restricted (only when the policy asks).
    pub network_restricted: bool,
}

/// Spawns `command` under `policy`, allowing writes in `workspace`.
///
/// With [`SandboxMode::Landlock`] the command is spawned from a dedicated
/// thread that first restricts itself; the calling thread stays
/// unrestricted. Where Landlock (or, for a policy without network, its
/// network rules) is unavailable, the command runs without that
/// restriction if [`SandboxPolicy::allow_unsandboxed`] (warning once per
/// process), and fails with [`ToolError::Failed`] otherwise. A command that
/// cannot be spawned is [`ToolError::Io`].
///
/// Must be called within a Tokio runtime.
pub async fn spawn(
    mut command: tokio::process::Command,
    policy: &SandboxPolicy,
    workspace: &Path,
) -> Result<SpawnedChild, ToolError> {
    let program = command
        .as_std()
        .get_program()
        .to_string_lossy()
        .into_owned();
    let spawn_error = |e| ToolError::io(format!("starting {program:?}"), e);
    if policy.mode == SandboxMode::Off {
        let child = command.spawn().map_err(spawn_error)?;
        return Ok(SpawnedChild {
            child,
            sandboxed: false,
            network_restricted: false,
        });
    }

    let status = sandbox_status();
    if !status.is_available() {
        refuse_or_warn(policy, status)?;
        let child = command.spawn().map_err(spawn_error)?;
        return Ok(SpawnedChild {
            child,
            sandboxed: false,
            network_restricted: false,
        });
    }
    let restrict_network = !policy.network && status.network_rules();
    if !policy.network && !restrict_network {
        refuse_or_warn(policy, status)?;
    }

    let rules = Rules::new(policy, workspace, restrict_network);
    let handle = tokio::runtime::Handle::current();
    let (tx, rx) = tokio::sync::oneshot::channel();
    std::thread::Builder::new()
        .name("rebound-sandbox".to_string())
        .spawn(move || {
            let _runtime = handle.enter();
            let result = match rules.restrict_current_thread() {
                Ok(()) => command.spawn().map_err(SpawnFailure::Spawn),
                Err(e) => Err(SpawnFailure::Sandbox(e)),
            };
            // A dropped receiver means the call was abandoned: the child,
            // spawned with kill_on_drop, is then killed here.
            let _ = tx.send(result);
        })
        .map_err(|e| ToolError::io("starting the sandbox thread", e))?;
    match rx.await {
        Ok(Ok(child)) => Ok(SpawnedChild {
            child,
            sandboxed: true,
            network_restricted: restrict_network,
        }),
        Ok(Err(SpawnFailure::Spawn(e))) => Err(spawn_error(e)),
        Ok(Err(SpawnFailure::Sandbox(message))) => Err(ToolError::failed(format!(
            "could not set up the Landlock sandbox: {message}"
        ))),
        Err(_) => Err(ToolError::failed("the sandbox thread died")),
    }
}

enum SpawnFailure {
    Spawn(std::io::Error),
    Sandbox(String),
}

/// Fails when the policy forbids running without what `status` lacks;
/// otherwise warns, once per process.
fn refuse_or_warn(policy: &SandboxPolicy, status: &SandboxStatus) -> Result<(), ToolError> {
    let lacking = if status.is_available() {
        "cannot restrict the network"
    } else {
        "cannot restrict filesystem writes"
    };
    if !policy.allow_unsandboxed {
        return Err(ToolError::failed(format!(
            "refusing to run the command: {status}, so the sandbox {lacking}; \
             set the sandbox's allow_unsandboxed (or mode = \"off\") to run commands anyway"
        )));
    }
    static WARNED: AtomicBool = AtomicBool::new(false);
    if !WARNED.swap(true, Ordering::Relaxed) {
        tracing::warn!("{status}: commands run without the restriction (the sandbox {lacking})");
    }
    Ok(())
}

/// The rules of one sandboxed spawn.
#[derive(Debug)]
struct Rules {
    workspace: PathBuf,
    /// The paths besides the workspace, each with whether the policy named
    /// it (a missing one is then worth a warning).
    writable: Vec<(PathBuf, bool)>,
    restrict_network: bool,
}

impl Rules {
    fn new(policy: &SandboxPolicy, workspace: &Path, restrict_network: bool) -> Self {
        let mut writable = vec![(std::env::temp_dir(), false)];
        let builtin = WRITABLE_DIRS.iter().chain(WRITABLE_DEVICES);
        writable.extend(builtin.map(|path| (PathBuf::from(path), false)));
        writable.extend(policy.writable.iter().map(|path| (path.clone(), true)));
        Rules {
            workspace: workspace.to_path_buf(),
            writable,
            restrict_network,
        }
    }

    /// Restricts the calling thread (and what it spawns from now on).
    fn restrict_current_thread(&self) -> Result<(), String> {
        let all = AccessFs::from_all(FS_ABI);
        let mut ruleset = Ruleset::default()
            .handle_access(all)
            .map_err(|e| e.to_string())?;
        if self.restrict_network {
            ruleset = ruleset
                .handle_access(AccessNet::from_all(ABI::V4))
                .map_err(|e| e.to_string())?
                .scope(Scope::AbstractUnixSocket)
                .map_err(|e| e.to_string())?;
        }
        let root = PathFd::new("/").map_err(|e| e.to_string())?;
        let workspace = PathFd::new(&self.workspace)
            .map_err(|e| format!("opening the workspace {:?}: {e}", self.workspace))?;
        let mut ruleset = ruleset
            .create()
            .map_err(|e| e.to_string())?
            .add_rule(PathBeneath::new(root, AccessFs::from_read(FS_ABI)))
            .map_err(|e| e.to_string())?
            .add_rule(PathBeneath::new(workspace, all))
            .map_err(|e| e.to_string())?;
        for (path, explicit) in &self.writable {
            let Some((fd, access)) = writable_rule(path, *explicit) else {
                continue;
            };
            ruleset = ruleset
                .add_rule(PathBeneath::new(fd, access))
                .map_err(|e| format!("allowing writes to {path:?}: {e}"))?;
        }
        let status = ruleset.restrict_self().map_err(|e| e.to_string())?;
        if status.ruleset == RulesetStatus::NotEnforced {
            return Err("the kernel did not enforce the ruleset".to_string());
        }
        Ok(())
    }
}

/// The rule allowing writes to `path`: all rights on a directory, the
/// file rights on anything else; `None` when it cannot be opened (logged as
/// a warning when the policy named it).
fn writable_rule(path: &Path, explicit: bool) -> Option<(PathFd, landlock::BitFlags<AccessFs>)> {
    let metadata = match std::fs::metadata(path) {
        Ok(metadata) => metadata,
        Err(e) if explicit => {
            tracing::warn!("sandbox: not allowing writes to {path:?}: {e}");
            return None;
        }
        Err(e) => {
            tracing::debug!("sandbox: not allowing writes to {path:?}: {e}");
            return None;
        }
    };
    let access = if metadata.is_dir() {
        AccessFs::from_all(FS_ABI)
    } else {
        AccessFs::from_file(FS_ABI)
    };
    match PathFd::new(path) {
        Ok(fd) => Some((fd, access)),
        Err(e) => {
            tracing::warn!("sandbox: not allowing writes to {path:?}: {e}");
            None
        }
    }
}
