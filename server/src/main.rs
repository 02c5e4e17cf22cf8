use clap::Parser;
use server::cli::Cli;
use server::telemetry::Telemetry;
use std::io::Write;
use std::process::ExitCode;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Layer};

// mimalloc rather than the system's allocator: under many threads at once the system's keeps an
// arena a thread and returns little of it, and a run's gate, which builds and drops its index of
// what the run remembers every time, had a slow tail from the system's trimming its heap.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    // The exporter is set up before the runtime starts: its HTTP client runs outside tokio.
    let telemetry = match Telemetry::from_env() {
        Ok(t) => t,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "{e}");
            return ExitCode::from(2);
        }
    };
    // RUST_LOG chooses the log lines only; the traces carry Engram's own spans whatever it says.
    let log = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_filter(EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info,sqlx=warn")));
    tracing_subscriber::registry().with(log).with(telemetry.as_ref().map(|t| t.layer())).init();
    if let Some(t) = &telemetry {
        tracing::info!(url = %t.traces_url, "traces are exported over OTLP");
    }
    let code = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime.block_on(run()),
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "could not start the runtime: {e}");
            ExitCode::FAILURE
        }
    };
    // The spans still waiting are sent before the process ends.
    if let Some(t) = telemetry {
        t.shutdown();
    }
    code
}

async fn run() -> ExitCode {
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
