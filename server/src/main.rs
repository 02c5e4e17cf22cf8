use engine::SystemClock;
use server::cli::{self, Command};
use server::org_cli;
use server::{demo, demo_org, Application};
use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;
use tracing_subscriber::EnvFilter;

#[tokio::main]
async fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info,sqlx=warn")))
        .with_writer(std::io::stderr)
        .init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("org") {
        return run_org(&args[1..]).await;
    }
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
        Command::MemoryRoles | Command::MemoryCore(_) | Command::MemoryCards { .. } => {
            let mut out = std::io::stdout().lock();
            match cli::run_memory(&inv.command, inv.database, &mut out).await {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    let _ = writeln!(std::io::stderr(), "{e}");
                    ExitCode::FAILURE
                }
            }
        }
        Command::KeysRotate => {
            let settings = cli::serve_settings(inv.database);
            let mut out = std::io::stdout().lock();
            match server::secrets::rotate(&settings.database_url, &settings.secret_key, &mut out).await {
                Ok(_) => ExitCode::SUCCESS,
                Err(e) => {
                    let _ = writeln!(std::io::stderr(), "{e}");
                    ExitCode::FAILURE
                }
            }
        }
        Command::Export { to } => {
            let url = cli::database_url(inv.database);
            report(server::archive::export(&url, std::path::Path::new(&to)).await)
        }
        Command::Import { from } => {
            let url = cli::database_url(inv.database);
            report(server::archive::import(&url, std::path::Path::new(&from)).await)
        }
        Command::Password { email } => {
            // From stdin, so the password stays out of the shell's history and the process list.
            let mut line = String::new();
            if let Err(e) = std::io::stdin().read_line(&mut line) {
                let _ = writeln!(std::io::stderr(), "could not read the new password from stdin: {e}");
                return ExitCode::FAILURE;
            }
            let password = line.trim_end_matches(['\r', '\n']);
            let url = cli::database_url(inv.database);
            match server::password::set_password(&url, &email, password).await {
                Ok(done) => {
                    let _ = writeln!(std::io::stdout(), "{done}");
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    let _ = writeln!(std::io::stderr(), "{e}");
                    ExitCode::FAILURE
                }
            }
        }
        Command::Serve { demo: with_demo } => {
            let mut settings = cli::serve_settings(inv.database);
            if with_demo {
                let vault = match demo::demo_vault(settings.vault.as_deref(), &settings.database_url) {
                    Ok(v) => v,
                    Err(e) => {
                        let _ = writeln!(std::io::stderr(), "{e}");
                        return ExitCode::from(2);
                    }
                };
                match demo_org::ensure_vault(&vault).await {
                    Ok(true) => tracing::info!(vault = %vault.display(), "wrote the demo vault"),
                    Ok(false) => tracing::info!(vault = %vault.display(), "using the existing vault"),
                    Err(e) => {
                        tracing::error!(error = %e, "could not write the demo vault");
                        return ExitCode::FAILURE;
                    }
                }
                settings.vault = Some(vault);
            }
            let vault = settings.vault.clone();
            // The demo's connected system runs beside Engram, on its own port.
            let source = if with_demo {
                let port = std::env::var("ENGRAM_DEMO_SOURCE_PORT").ok().and_then(|p| p.parse().ok()).unwrap_or(3001);
                match server::acme_ats::spawn(server::acme_ats::AtsConfig::demo(), port).await {
                    Ok((url, _task)) => Some(url),
                    Err(e) => {
                        tracing::error!(port, error = %e, "could not serve the demo source system");
                        return ExitCode::FAILURE;
                    }
                }
            } else {
                None
            };
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
                match demo::seed_if_empty(app.store().as_ref(), app.cores()).await {
                    Ok(true) => {
                        if let Some(vault) = &vault {
                            match demo_org::seed_episodes(app.store().clone(), vault, Arc::new(SystemClock)).await {
                                Ok(_) => tracing::info!("recorded the demo bots' first runs"),
                                Err(e) => tracing::warn!(error = %e, "could not record the demo bots' runs"),
                            }
                        }
                        if let Some(url) = &source {
                            let clock = Arc::new(SystemClock);
                            match server::demo_cards::seed(app.store().as_ref(), app.memory(), clock, url).await {
                                Ok(()) => tracing::info!(source = %url, "connected the demo's Acme ATS"),
                                Err(e) => tracing::warn!(error = %e, "could not connect the demo's Acme ATS"),
                            }
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
    }
}

/// Prints a finished move's summary, or its error.
fn report(done: Result<String, server::archive::MoveError>) -> ExitCode {
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

async fn run_org(args: &[String]) -> ExitCode {
    let mut database = None;
    let mut rest = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--database" => database = it.next().cloned(),
            s if s.starts_with("--database=") => database = Some(s["--database=".len()..].to_string()),
            "-h" | "--help" => {
                let _ = writeln!(std::io::stdout(), "{}", org_cli::ORG_USAGE);
                return ExitCode::SUCCESS;
            }
            _ => rest.push(a.clone()),
        }
    }
    let settings = org_cli::settings(database);
    let mut out = std::io::stdout().lock();
    match org_cli::run(&rest, &settings, &mut out).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "{}", e.message);
            ExitCode::from(e.code)
        }
    }
}
