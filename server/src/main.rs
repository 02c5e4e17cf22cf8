use clap::Parser;
use server::cli::Cli;
use std::io::Write;
use std::process::ExitCode;
use tracing_subscriber::EnvFilter;

// mimalloc rather than the system's allocator: under many threads at once the system's keeps an
// arena a thread and returns little of it, and a run's gate, which builds and drops its index of
// what the run remembers every time, had a slow tail from the system's trimming its heap.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[tokio::main]
async fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info,sqlx=warn")))
        .with_writer(std::io::stderr)
        .init();
    // Usage errors exit 2, help and the version 0, as clap prints them.
    let cli = Cli::try_parse().unwrap_or_else(|e| e.exit());
    // Every command refuses in one shape: its reason on stderr, and its exit code.
    match cli.run().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "{}", e.message);
            ExitCode::from(e.code)
        }
    }
}
