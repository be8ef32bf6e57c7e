#![doc = include_str!("../README.md")]

mod app;
mod assistant;
mod error;
mod routes;
pub mod runs;
pub mod store;
mod time;
mod web;

use std::collections::BTreeMap;
use std::future::Future;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use rebound_graph::checkpoint::Checkpointer;
use rebound_graph::{CompiledGraph, State};
use rebound_sqlite::SqliteSaver;
use tokio::net::TcpListener;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

pub use assistant::{InputFn, RunEnd, RunInput, ServedGraph, StateView};
pub use error::{ApiError, ServerError};

use app::{App, Assistant};
use runs::hub::Hub;
use runs::writer::StoreWriter;
use store::{SqliteStore, Store};

/// The namespace of assistant ids: an assistant's id is the UUID v5 of its
/// graph id in it, the same on every server.
const ASSISTANT_NAMESPACE: uuid::Uuid =
    uuid::Uuid::from_u128(0x6ba7b810_9dad_11d1_80b4_00c04fd430c8);

/// How many worker threads a server's runtime should have: twice the
/// cores the process may use.
///
/// The store's SQLite work (checkpoints, the run queue, stream events)
/// runs inline on the runtime's threads, one call at a time under the
/// database's lock, because handing each call to another thread costs more
/// than the call. A thread waiting for that lock is blocked, though: with
/// one thread per core, a wait leaves a core idle while requests queue.
/// With twice as many, the system runs another thread meanwhile (measured
/// on 2 cores with `rebound-bench server-load`: ~1,490 runs/s with 2
/// threads, ~1,745 with 4, no more with 6).
pub fn runtime_threads() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get()) * 2
}

/// How much of the database file the server's connections read through a
/// memory map.
pub(crate) const MMAP_BYTES: u64 = 256 * 1024 * 1024;

type Attach = Box<dyn FnOnce(Arc<dyn Checkpointer>) -> Arc<dyn ServedGraph> + Send>;

/// Builds a [`Server`].
#[must_use]
pub struct ServerBuilder {
    database: Option<Database>,
    queue: rebound_postgres::queue::QueueConfig,
    graphs: Vec<(String, Attach)>,
    workers: usize,
    token: Option<String>,
    cors: Vec<String>,
}

/// The name under which a server holds its database (one server per file:
/// its workers take every queued run, and at start it resumes the runs the
/// last one left running).
const SERVER_LOCK: &str = "__rebound_server__";

/// Where a server keeps its threads, runs and checkpoints.
enum Database {
    /// One SQLite file, served by one server.
    Sqlite(PathBuf),
    /// A PostgreSQL database shared by any number of servers and workers.
    Postgres(String),
}

/// A server ready to serve: its store is open and its graphs registered.
pub struct Server {
    store: Arc<dyn Store>,
    /// The database, as errors name it (no password).
    location: String,
    /// This process's claim on a SQLite file, for as long as it serves.
    hold: Option<rebound_sqlite::ThreadHold>,
    assistants: BTreeMap<String, Assistant>,
    workers: usize,
    token: Option<String>,
    cors: Vec<String>,
}

impl Server {
    /// A builder: [`ServerBuilder::database`] and at least one
    /// [`ServerBuilder::graph`] are needed.
    pub fn builder() -> ServerBuilder {
        ServerBuilder {
            database: None,
            queue: rebound_postgres::queue::QueueConfig {
                // A run whose worker died is retried at once the first
                // time (its lease has already made it wait), later ones
                // back off from there.
                backoff_base: std::time::Duration::from_millis(100),
                ..rebound_postgres::queue::QueueConfig::default()
            },
            graphs: Vec::new(),
            workers: 4,
            token: None,
            cors: Vec::new(),
        }
    }

    /// Serves on `listener` until the process ends.
    pub async fn serve(self, listener: TcpListener) -> Result<(), ServerError> {
        self.serve_with_shutdown(listener, std::future::pending())
            .await
    }

    /// Serves on `listener` until `shutdown` completes; then stops taking
    /// runs and connections (runs in progress stop with the process, and
    /// resume on the next start).
    pub async fn serve_with_shutdown(
        mut self,
        listener: TcpListener,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), ServerError> {
        let addr = listener.local_addr()?;
        if !addr.ip().is_loopback() && self.token.is_none() {
            return Err(ServerError::TokenRequired {
                addr: addr.to_string(),
            });
        }
        let cors = std::mem::take(&mut self.cors);
        let (app, workers) = self.start().await?;
        let mut router = routes::router(Arc::clone(&app));
        if !cors.is_empty() {
            let origins: Vec<axum::http::HeaderValue> = cors
                .iter()
                .filter_map(|o| axum::http::HeaderValue::from_str(o).ok())
                .collect();
            router = router.layer(
                tower_http::cors::CorsLayer::new()
                    .allow_origin(origins)
                    .allow_methods(tower_http::cors::Any)
                    .allow_headers(tower_http::cors::Any),
            );
        }
        let stop = app.shutdown.clone();
        // Events go out as they happen: without TCP_NODELAY a small write
        // after another waits for the client's delayed ACK (~40 ms).
        let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
            if let Err(error) = tcp.set_nodelay(true) {
                tracing::warn!(%error, "cannot set TCP_NODELAY");
            }
        });
        let result = axum::serve(listener, router)
            .with_graceful_shutdown(async move {
                shutdown.await;
                stop.cancel();
            })
            .await;
        app.shutdown.cancel();
        stop_runs(&app, workers).await;
        app.release_database();
        result.map_err(ServerError::Io)
    }

    /// Runs workers only, with no HTTP, until `shutdown` completes: a
    /// worker process beside API servers on a shared store (`rebound
    /// worker`). Its runs stop at the shutdown and go back to the queue for
    /// another worker.
    pub async fn run_workers(
        mut self,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), ServerError> {
        if self.store.lease_ttl().is_none() {
            return Err(ServerError::Database {
                path: self.location.clone(),
                reason: "workers apart from a server need a shared store (PostgreSQL); a SQLite file is served by one `rebound serve`".to_string(),
            });
        }
        self.workers = self.workers.max(1);
        let (app, workers) = self.start().await?;
        shutdown.await;
        app.shutdown.cancel();
        stop_runs(&app, workers).await;
        app.release_database();
        Ok(())
    }

    /// The shared state, the workers, the reaper and the listener of a
    /// shared store's notices.
    async fn start(self) -> Result<(Arc<App>, Vec<tokio::task::JoinHandle<()>>), ServerError> {
        let app = Arc::new(App {
            writer: StoreWriter::start(Arc::clone(&self.store)),
            store: self.store,
            assistants: self.assistants,
            hub: Hub::default(),
            queue: Notify::new(),
            claimed: runs::claimed::Claimed::default(),
            attempts: runs::attempts::Attempts::default(),
            cancels: Mutex::default(),
            token: self.token,
            shutdown: CancellationToken::new(),
            hold: Mutex::new(self.hold),
        });
        // Runs a killed server left running go back to the queue, keeping
        // their place; their streams stay joinable.
        for run in app.store.requeue_running().await? {
            tracing::info!(run_id = %run.run_id, "resuming a run left running");
            app.hub.open(&run.run_id);
        }
        let mut tasks: Vec<_> = (0..self.workers)
            .map(|_| tokio::spawn(runs::worker::worker_loop(Arc::clone(&app))))
            .collect();
        if let Some(ttl) = app.store.lease_ttl() {
            if self.workers > 0 {
                tasks.push(tokio::spawn(reap_loop(Arc::clone(&app), ttl)));
            }
        }
        if let Some(notices) = app.store.notices() {
            tasks.push(tokio::spawn(follow_notices(Arc::clone(&app), notices)));
        }
        Ok((app, tasks))
    }
}

/// How often, at most, a worker process looks for expired leases.
const REAP_EVERY: std::time::Duration = std::time::Duration::from_millis(500);

/// Gives the runs whose lease expired back to the queue, every quarter
/// lease or [`REAP_EVERY`], whichever is sooner, until the server stops
/// (any worker process may; it is idempotent): a run whose worker died
/// runs again within about the lease and a second.
async fn reap_loop(app: Arc<App>, ttl: std::time::Duration) {
    let every = (ttl / 4).min(REAP_EVERY);
    loop {
        tokio::select! {
            () = tokio::time::sleep(every) => {}
            () = app.shutdown.cancelled() => return,
        }
        match app.store.reap().await {
            Ok(()) => app.queue.notify_one(),
            Err(error) => tracing::warn!(%error, "reaping expired leases failed"),
        }
    }
}

/// Wakes an idle worker when another process queued or ended a run.
async fn follow_notices(
    app: Arc<App>,
    mut notices: tokio::sync::broadcast::Receiver<store::StoreNotice>,
) {
    loop {
        tokio::select! {
            notice = notices.recv() => match notice {
                Ok(store::StoreNotice::Runs | store::StoreNotice::Missed)
                | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => app.queue.notify_one(),
                Ok(store::StoreNotice::Events(_)) => {}
                Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
            },
            () = app.shutdown.cancelled() => return,
        }
    }
}

/// How long a stopping server waits for its running runs to stop (a node
/// stops at its next cancellation check; a model call in progress ends
/// first).
const STOP_GRACE: std::time::Duration = std::time::Duration::from_secs(60);

/// Stops the running runs without recording them (they stay `running`,
/// and continue from their last checkpoint at the next start), and waits
/// for the workers: nothing of a run is still executing when `serve`
/// returns (a local model's computation must not outlive the process's
/// teardown).
async fn stop_runs(app: &App, workers: Vec<tokio::task::JoinHandle<()>>) {
    let handles: Vec<app::CancelHandle> = app
        .cancels
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .values()
        .cloned()
        .collect();
    for handle in &handles {
        handle.cancel(app::CancelAction::Shutdown);
    }
    if !handles.is_empty() {
        tracing::info!(runs = handles.len(), "stopping the running runs");
    }
    let all = futures_util::future::join_all(workers);
    if tokio::time::timeout(STOP_GRACE, all).await.is_err() {
        tracing::warn!("runs still running after {STOP_GRACE:?}: stopping without them");
    }
}

impl ServerBuilder {
    /// The SQLite file for checkpoints, threads, runs and events (created
    /// if missing; the `state.db` the `rebound` command uses).
    pub fn database(mut self, path: impl Into<PathBuf>) -> Self {
        self.database = Some(Database::Sqlite(path.into()));
        self
    }

    /// Registers `graph` as the assistant `graph_id`. The server attaches
    /// its checkpointer to it.
    pub fn graph<S: State>(self, graph_id: impl Into<String>, graph: CompiledGraph<S>) -> Self {
        self.add(graph_id.into(), graph, None, None)
    }

    /// [`ServerBuilder::graph`] with the JSON schema of its state, served
    /// by `GET /assistants/{id}/schemas`.
    pub fn graph_with_schema<S: State>(
        self,
        graph_id: impl Into<String>,
        graph: CompiledGraph<S>,
        schema: serde_json::Value,
    ) -> Self {
        self.add(graph_id.into(), graph, Some(schema), None)
    }

    /// [`ServerBuilder::graph`] whose threads start from `input(run input)`
    /// (e.g. `{"goal": "..."}` made into a full state) instead of the input
    /// read as the state itself. Later runs' inputs are updates, as always.
    pub fn graph_with_input<S: State>(
        self,
        graph_id: impl Into<String>,
        graph: CompiledGraph<S>,
        input: impl Fn(serde_json::Value) -> Result<S, String> + Send + Sync + 'static,
    ) -> Self {
        self.add(graph_id.into(), graph, None, Some(Arc::new(input)))
    }

    fn add<S: State>(
        mut self,
        graph_id: String,
        graph: CompiledGraph<S>,
        schema: Option<serde_json::Value>,
        input: Option<InputFn<S>>,
    ) -> Self {
        let attach: Attach = Box::new(move |saver| {
            Arc::new(assistant::GraphAssistant::new(graph, saver, schema, input))
        });
        self.graphs.push((graph_id, attach));
        self
    }

    /// How many runs run at once (4 by default). On PostgreSQL, 0 makes
    /// an API server that runs nothing itself (worker processes do).
    pub fn workers(mut self, workers: usize) -> Self {
        self.workers = workers;
        self
    }

    /// The bearer token every route but `/ok` requires; needed to serve on
    /// an address other than loopback.
    pub fn token(mut self, token: Option<String>) -> Self {
        self.token = token.filter(|t| !t.is_empty());
        self
    }

    /// Origins allowed to call the API from a browser (CORS is off
    /// without any).
    pub fn cors_origins(mut self, origins: Vec<String>) -> Self {
        self.cors = origins;
        self
    }

    /// A PostgreSQL database (`postgres://user:password@host/db`) instead
    /// of a SQLite file: shared by any number of servers and worker
    /// processes ([`Server::run_workers`]). Open it with
    /// [`ServerBuilder::connect`].
    pub fn postgres(mut self, url: impl Into<String>) -> Self {
        self.database = Some(Database::Postgres(url.into()));
        self
    }

    /// How long a worker's claim on a run lasts without a heartbeat, on
    /// PostgreSQL (10 s by default): a worker that dies or hangs loses its
    /// runs to other workers after about this long.
    pub fn lease_ttl(mut self, ttl: std::time::Duration) -> Self {
        self.queue.lease_ttl = ttl;
        self
    }

    /// How many times a run is claimed, on PostgreSQL, before a lease
    /// expiring once more fails it (3 by default).
    pub fn max_attempts(mut self, attempts: u32) -> Self {
        self.queue.max_attempts = attempts.max(1);
        self
    }

    /// Opens the database and registers the graphs: SQLite or PostgreSQL.
    pub async fn connect(self) -> Result<Server, ServerError> {
        let url = match &self.database {
            Some(Database::Postgres(url)) => url.clone(),
            _ => return self.build(),
        };
        // A worker paused mid-transaction past its lease must not keep
        // its run's row locked: the reaper would pass over the run.
        let options = rebound_postgres::PostgresOptions::default()
            .with_idle_in_transaction_timeout(self.queue.lease_ttl);
        let saver = rebound_postgres::PostgresSaver::connect(&url, options)
            .await
            .map_err(|e| ServerError::Database {
                path: "PostgreSQL".to_string(),
                reason: e.to_string(),
            })?;
        let location = format!("{saver:?}");
        let saver = Arc::new(saver);
        let store = store::PostgresStore::open(Arc::clone(&saver), self.queue.clone()).await?;
        let checkpointer: Arc<dyn Checkpointer> = saver;
        Ok(Server {
            store: Arc::new(store),
            location,
            hold: None,
            assistants: register(self.graphs, &checkpointer)?,
            workers: self.workers,
            token: self.token,
            cors: self.cors,
        })
    }

    /// Opens the SQLite file and registers the graphs ([`ServerBuilder::connect`]
    /// opens PostgreSQL too).
    pub fn build(self) -> Result<Server, ServerError> {
        let path = match self.database {
            Some(Database::Sqlite(path)) => path,
            Some(Database::Postgres(_)) => {
                return Err(ServerError::Database {
                    path: "PostgreSQL".to_string(),
                    reason: "a PostgreSQL database is opened with ServerBuilder::connect().await"
                        .to_string(),
                })
            }
            None => {
                return Err(ServerError::Database {
                    path: String::new(),
                    reason: "no database was given (ServerBuilder::database)".to_string(),
                })
            }
        };
        // The server's store shares the file: map it (see SqliteOptions::mmap_size).
        let options = rebound_sqlite::SqliteOptions::default().with_mmap_size(MMAP_BYTES);
        let saver = SqliteSaver::open(&path, options).map_err(|e| ServerError::Database {
            path: path.display().to_string(),
            reason: e.to_string(),
        })?;
        let hold = saver.hold_thread(SERVER_LOCK).map_err(|e| match e {
            rebound_graph::checkpoint::CheckpointError::ThreadBusy { holder, .. } => {
                ServerError::Database {
                    path: path.display().to_string(),
                    reason: format!("another rebound server ({holder}) serves it"),
                }
            }
            other => ServerError::Database {
                path: path.display().to_string(),
                reason: other.to_string(),
            },
        })?;
        let saver = Arc::new(saver);
        let store = SqliteStore::open(Arc::clone(&saver))?;
        let checkpointer: Arc<dyn Checkpointer> = saver;
        Ok(Server {
            store: Arc::new(store),
            location: path.display().to_string(),
            hold: Some(hold),
            assistants: register(self.graphs, &checkpointer)?,
            // The server's own workers run every run of its file.
            workers: self.workers.max(1),
            token: self.token,
            cors: self.cors,
        })
    }
}

/// The assistants of `graphs`, each with `checkpointer` attached.
fn register(
    graphs: Vec<(String, Attach)>,
    checkpointer: &Arc<dyn Checkpointer>,
) -> Result<BTreeMap<String, Assistant>, ServerError> {
    let now = time::now_ms();
    let mut assistants = BTreeMap::new();
    for (graph_id, attach) in graphs {
        if graph_id.is_empty() || graph_id.contains('/') {
            return Err(ServerError::Graph {
                id: graph_id,
                reason: "a graph id must be non-empty and without '/'".to_string(),
            });
        }
        if assistants.contains_key(&graph_id) {
            return Err(ServerError::Graph {
                id: graph_id,
                reason: "registered twice".to_string(),
            });
        }
        let assistant = Assistant {
            assistant_id: uuid::Uuid::new_v5(&ASSISTANT_NAMESPACE, graph_id.as_bytes()).to_string(),
            graph_id: graph_id.clone(),
            graph: attach(Arc::clone(checkpointer)),
            created_ms: now,
        };
        assistants.insert(graph_id, assistant);
    }
    Ok(assistants)
}
