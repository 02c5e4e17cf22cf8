use clap::Parser;
use engine::persona::vault::Vault;
use server::cli::{self, Cli, Command, Keys};
use server::vault::FsVault;
use server::{bots_cli, Application};
use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;
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
    match cli.command {
        None | Some(Command::Serve) => serve(cli::serve_settings(cli.database), false).await,
        Some(Command::Demo) => serve(cli::serve_settings(cli.database), true).await,
        Some(Command::Memory(cli::Memory::Audit(audit))) => {
            let settings = bots_cli::settings(cli.database);
            let mut out = std::io::stdout().lock();
            match server::memory_audit_cli::run(&audit, &settings, &mut out).await {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    let _ = writeln!(std::io::stderr(), "{}", e.message);
                    ExitCode::from(e.code)
                }
            }
        }
        Some(Command::Memory(memory)) => {
            let mut out = std::io::stdout().lock();
            match cli::run_memory(&memory, cli.database, &mut out).await {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    let _ = writeln!(std::io::stderr(), "{e}");
                    ExitCode::FAILURE
                }
            }
        }
        Some(Command::Keys(Keys::Rotate)) => {
            let settings = cli::serve_settings(cli.database);
            let mut out = std::io::stdout().lock();
            match server::secrets::rotate(&settings.database_url, &settings.secret_key, &mut out).await {
                Ok(_) => ExitCode::SUCCESS,
                Err(e) => {
                    let _ = writeln!(std::io::stderr(), "{e}");
                    ExitCode::FAILURE
                }
            }
        }
        Some(Command::Export { to }) => report(server::archive::export(&cli::database_url(cli.database), &to).await),
        Some(Command::Import { from }) => {
            report(server::archive::import(&cli::database_url(cli.database), &from).await)
        }
        Some(Command::Ask { who, agent, question }) => {
            let settings = cli::serve_settings(cli.database);
            let mut out = std::io::stdout().lock();
            match server::runs_cli::ask(&settings, &who, &agent, &question, &mut out).await {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    let _ = writeln!(std::io::stderr(), "{e}");
                    ExitCode::FAILURE
                }
            }
        }
        Some(Command::Jobs(jobs)) => {
            let settings = cli::serve_settings(cli.database);
            let mut out = std::io::stdout().lock();
            match server::jobs_cli::run(&settings, &jobs, &mut out).await {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    let _ = writeln!(std::io::stderr(), "{e}");
                    ExitCode::FAILURE
                }
            }
        }
        Some(Command::Init { company, zone, admin, name }) => {
            let args = server::init::InitArgs { company, zone, admin, name };
            let password = match server::init::read_password(&args.admin) {
                Ok(p) => p,
                Err(e) => {
                    let _ = writeln!(std::io::stderr(), "{e}");
                    return ExitCode::FAILURE;
                }
            };
            report(server::init::init(&cli::database_url(cli.database), &args, &password).await)
        }
        Some(Command::Password { email }) => {
            // From stdin, so the password stays out of the shell's history and the process list.
            let mut line = String::new();
            if let Err(e) = std::io::stdin().read_line(&mut line) {
                let _ = writeln!(std::io::stderr(), "could not read the new password from stdin: {e}");
                return ExitCode::FAILURE;
            }
            let password = line.trim_end_matches(['\r', '\n']);
            let done = server::password::set_password(&cli::database_url(cli.database), &email, password).await;
            report(done.map_err(|e| e.to_string()))
        }
        Some(Command::People(people)) => {
            let settings = cli::serve_settings(cli.database);
            let mut out = std::io::stdout().lock();
            match server::people_cli::run(&people, &settings, &mut out).await {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    let _ = writeln!(std::io::stderr(), "{}", e.message);
                    ExitCode::from(e.code)
                }
            }
        }
        Some(Command::Org(org)) => {
            let settings = bots_cli::settings(cli.database);
            let mut out = std::io::stdout().lock();
            match bots_cli::run(&org, &settings, &mut out).await {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    let _ = writeln!(std::io::stderr(), "{}", e.message);
                    ExitCode::from(e.code)
                }
            }
        }
    }
}

/// Prints a finished command's one-line outcome, or its error.
fn report<E: std::fmt::Display>(done: Result<String, E>) -> ExitCode {
    match done {
        Ok(summary) => {
            let _ = writeln!(std::io::stdout(), "{summary}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "{e}");
            ExitCode::FAILURE
        }
    }
}

/// Serves Engram; with the demo, first writes its vault, starts its Acme ATS and seeds an empty
/// database.
async fn serve(mut settings: server::Settings, with_demo: bool) -> ExitCode {
    let mut source = None;
    if with_demo {
        let root = match cli::demo_vault(settings.vault.as_deref(), &settings.database_url) {
            Ok(v) => v,
            Err(e) => {
                let _ = writeln!(std::io::stderr(), "{e}");
                return ExitCode::from(2);
            }
        };
        match demo::bots::ensure_vault(&FsVault::new(&root)).await {
            Ok(true) => tracing::info!(vault = %root.display(), "wrote the demo vault"),
            Ok(false) => tracing::info!(vault = %root.display(), "using the existing vault"),
            Err(e) => {
                tracing::error!(error = %e, "could not write the demo vault");
                return ExitCode::FAILURE;
            }
        }
        settings.vault = Some(root);
        // The demo's connected system runs beside Engram, on its own port.
        let port = std::env::var("ENGRAM_DEMO_SOURCE_PORT").ok().and_then(|p| p.parse().ok()).unwrap_or(3001);
        match demo::acme_ats::spawn(demo::acme_ats::AtsConfig::demo(), port).await {
            Ok((url, _task)) => source = Some(url),
            Err(e) => {
                tracing::error!(port, error = %e, "could not serve the demo source system");
                return ExitCode::FAILURE;
            }
        }
        // Approved emails go to the demo's outbox, two ports after, unless an outbox is set up.
        if settings.outbox_url.is_none() {
            let outbox_port = if port == 0 { 0 } else { port.saturating_add(2) };
            let served = match demo::outbox::spawn(outbox_port).await {
                Err(e) if outbox_port != 0 => {
                    tracing::warn!(port = outbox_port, error = %e, "the demo outbox's port is taken; using any free port");
                    demo::outbox::spawn(0).await
                }
                served => served,
            };
            match served {
                Ok((url, _task)) => settings.outbox_url = Some(url),
                Err(e) => {
                    tracing::error!(error = %e, "could not serve the demo outbox");
                    return ExitCode::FAILURE;
                }
            }
        }
        // The demo's model answers agents on the port after, unless a real provider is set up.
        if server::agent_model::wants_demo_model(&settings.models) {
            let after = if port == 0 { 0 } else { port.saturating_add(1) };
            let port = std::env::var("ENGRAM_DEMO_MODEL_PORT").ok().and_then(|p| p.parse().ok()).unwrap_or(after);
            let served = match demo::model::spawn(port).await {
                Err(e) if port != 0 => {
                    // A taken port must not stop the demo: any free one serves as well.
                    tracing::warn!(port, error = %e, "the demo model's port is taken; using any free port");
                    demo::model::spawn(0).await
                }
                served => served,
            };
            match served {
                Ok((url, _task)) => server::agent_model::use_demo_model(&mut settings.models, &url),
                Err(e) => {
                    tracing::error!(port, error = %e, "could not serve the demo model");
                    return ExitCode::FAILURE;
                }
            }
        }
    }
    let vault = settings.vault.clone();
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
        let vault = vault.map(|v| Arc::new(FsVault::new(v)) as Arc<dyn Vault>);
        match demo::seed_if_empty(app.store().clone(), app.memory(), vault, source.as_deref()).await {
            Ok(true) => {
                match demo::history::seed(app.store().as_ref(), app.runs(), app.nightly()).await {
                    Ok(summary) => tracing::info!(summary, "the demo's first day of work"),
                    Err(e) => tracing::warn!(error = %e, "the demo's first day of work was not made"),
                }
                tracing::info!("the demo company is ready; sign in as ada@acme.example")
            }
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
