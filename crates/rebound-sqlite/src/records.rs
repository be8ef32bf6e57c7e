//! [`ThreadRecord`] and [`ThreadStatus`]: what an application records about
//! a thread beside its checkpoints, kept in the same file
//! (`thread_records`). The types are `rebound_protocol::records`', shared
//! with the PostgreSQL store and the server.

pub use rebound_protocol::records::{ParseThreadStatusError, ThreadRecord, ThreadStatus};
