//! The server of the throughput benchmark: a 3-node graph (`plan` → `act`
//! → `review`, each appending its name to `log` and counting), the same
//! shape as `bench/langgraph-server/graph.py` for LangGraph's server.
//!
//! `bench_server <state.db> <addr> [workers]`, then
//! `rebound-bench server-load --url http://<addr> --assistant bench`.

#[path = "common/bench.rs"]
mod bench;

/// Allocation is a fifth of the server's time under load; jemalloc serves
/// it ~10% faster than glibc's allocator (`rebound` uses it too).
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(rebound_server::runtime_threads())
        .enable_all()
        .build()?
        .block_on(serve())
}

async fn serve() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let (db, addr) = match args.as_slice() {
        [_, db, addr, ..] => (db.clone(), addr.clone()),
        _ => return Err("usage: bench_server <state.db> <addr> [workers]".into()),
    };
    let workers = args.get(3).map(|w| w.parse()).transpose()?.unwrap_or(64);
    let server = rebound_server::Server::builder()
        .database(db)
        .graph("bench", bench::bench_graph()?)
        .workers(workers)
        .build()?;
    let listener = tokio::net::TcpListener::bind(addr.as_str()).await?;
    println!("listening on {}", listener.local_addr()?);
    server.serve(listener).await?;
    Ok(())
}
