//! `rebound trust [DIR]`: trust a workspace's `rebound.toml` as it is now,
//! so that all of it counts (MCP servers, allow rules, a looser approval
//! mode...); `--revoke` forgets it. (The gate every run passes is
//! `crate::gate`.)

use rebound_workspace::config::{TrustStore, WORKSPACE_FILE};
use rebound_workspace::{process_env, WorkspaceTrust};

use crate::cli::{GlobalArgs, TrustArgs};
use crate::commands::{flags, settings};
use crate::exit::{usage, Exit};
use crate::gate::ignored_lines;
use crate::render::sanitize;

/// Runs `rebound trust`.
pub fn trust(global: &GlobalArgs, args: TrustArgs) -> anyhow::Result<Exit> {
    let mut flags = flags(global, None);
    if let Some(dir) = args.dir {
        flags.workspace = Some(dir);
    }
    let settings = settings(&flags)?;
    let mut store = TrustStore::load(&process_env);
    let file = settings.workspace.join(WORKSPACE_FILE);
    if args.revoke {
        if store.revoke(&settings.workspace)? {
            println!(
                "no longer trusted: {}",
                sanitize(&file.display().to_string())
            );
        } else {
            println!("was not trusted: {}", sanitize(&file.display().to_string()));
        }
        return Ok(Exit::Success);
    }
    match &settings.trust {
        WorkspaceTrust::NoFile => Err(usage(format!(
            "{} does not exist: there is nothing to trust",
            file.display()
        ))),
        WorkspaceTrust::Trusted => {
            println!("already trusted: {}", sanitize(&file.display().to_string()));
            Ok(Exit::Success)
        }
        WorkspaceTrust::Untrusted {
            sha256, ignored, ..
        } => {
            for line in ignored_lines(&settings) {
                println!("{line}");
            }
            store.trust(&settings.workspace, sha256)?;
            println!(
                "trusted: {} (sha256 {}, recorded in {}); an edit to the file makes it untrusted again",
                sanitize(&file.display().to_string()),
                sha256.get(..12).unwrap_or(sha256),
                store
                    .path()
                    .map(|p| sanitize(&p.display().to_string()).into_owned())
                    .unwrap_or_default()
            );
            if ignored.is_empty() {
                println!("(it asked for nothing an untrusted file could not have)");
            }
            Ok(Exit::Success)
        }
    }
}
