use server::cli::{self, Command};
use server::{demo, Application};
use std::io::Write;
use std::process::ExitCode;
use tracing_subscriber::EnvFilter;

#[tokio::main]
async fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info,sqlx=warn")))
        .with_writer(std::io::stderr)
        .init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let inv = match cli::parse(&args) {
        Ok(inv) => inv,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "{e}\n\n{}", cli::USAGE);
            return ExitCode::from(2);
        }
    };
    match inv.command {
        Command::Help => {
            let _ = writeln!(std::io::stdout(), "{}", cli::USAGE);
            ExitCode::SUCCESS
        }
        Command::MemoryRoles | Command::MemoryCore(_) => {
            let mut out = std::io::stdout().lock();
            match cli::run_memory(&inv.command, inv.database, &mut out).await {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    let _ = writeln!(std::io::stderr(), "{e}");
                    ExitCode::FAILURE
                }
            }
        }
        Command::Serve { demo: with_demo } => {
            let settings = cli::serve_settings(inv.database);
            let addr = settings.leptos.site_addr;
            let listener = match tokio::net::TcpListener::bind(addr).await {
                Ok(l) => l,
                Err(e) => {
                    tracing::error!(%addr, error = %e, "could not listen");
                    return ExitCode::FAILURE;
                }
            };
            let app = match Application::build(settings, listener).await {
                Ok(app) => app,
                Err(e) => {
                    tracing::error!(error = %e, "could not start");
                    return ExitCode::FAILURE;
                }
            };
            if with_demo {
                match demo::seed_if_empty(app.store(), app.engine()).await {
                    Ok(true) => tracing::info!("the demo company is ready; sign in as ada@acme.example"),
                    Ok(false) => tracing::info!("reusing the existing data"),
                    Err(e) => {
                        tracing::error!(error = %e, "could not seed the demo");
                        return ExitCode::FAILURE;
                    }
                }
            }
            tracing::info!("serving on http://{addr}");
            match app.run_until_stopped().await {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    tracing::error!(error = %e, "server stopped");
                    ExitCode::FAILURE
                }
            }
        }
    }
}
