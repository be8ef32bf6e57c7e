#![doc = include_str!("../README.md")]

pub mod checkpoints;
pub mod config;
pub mod deps;
pub mod drive;
mod error;
pub mod inputs;
pub mod listing;
pub mod models;
pub mod resume;
pub mod state;
pub mod threads;

pub use config::{load, process_env, Env, Flags, Settings, WorkspaceTrust};
pub use deps::{RunParts, Tools};
pub use drive::{Asked, Ending, ThreadRun, Watcher};
pub use error::WorkspaceError;
pub use state::{find_thread, FoundThread, StateDir};
pub use threads::{RunState, ThreadMeta, ThreadStore};
