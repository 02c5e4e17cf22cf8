//! `Cli::run`: one arm per command, each ending in `Ok` or a `CliError` that `main` turns into
//! the one line on stderr and the exit code.

use super::{database_url, demo_vault, serve_settings, Cli, CliError, Command, Keys, Memory};
use crate::adapters::vault::FsVault;
use crate::{Application, Settings};
use engine::persona::vault::Vault;
use std::io::Write;
use std::sync::Arc;

impl Cli {
    /// Runs the command parsed (serving when there is none); what it prints goes to stdout.
    pub async fn run(self) -> Result<(), CliError> {
        let database = self.database;
        match self.command {
            None | Some(Command::Serve) => serve(serve_settings(database), false).await,
            Some(Command::Demo) => serve(serve_settings(database), true).await,
            Some(Command::Memory(Memory::Audit(audit))) => {
                let settings = serve_settings(database);
                super::memory_audit_cli::run(&audit, &settings, &mut std::io::stdout().lock()).await
            }
            Some(Command::Memory(memory)) => {
                super::run_memory(&memory, database, &mut std::io::stdout().lock()).await.map_err(CliError::failed)
            }
            Some(Command::Keys(Keys::Rotate)) => {
                let settings = serve_settings(database);
                let mut out = std::io::stdout().lock();
                let rotated = crate::secrets::rotate(&settings.database_url, &settings.secret_key, &mut out).await;
                rotated.map(|_| ()).map_err(CliError::failed)
            }
            Some(Command::Export { to }) => report(super::archive::export(&database_url(database), &to).await),
            Some(Command::Import { from }) => report(super::archive::import(&database_url(database), &from).await),
            Some(Command::Ask { who, agent, question }) => {
                let settings = serve_settings(database);
                let mut out = std::io::stdout().lock();
                super::runs_cli::ask(&settings, &who, &agent, &question, &mut out).await.map_err(CliError::failed)
            }
            Some(Command::Jobs(jobs)) => {
                let settings = serve_settings(database);
                super::jobs_cli::run(&settings, &jobs, &mut std::io::stdout().lock()).await.map_err(CliError::failed)
            }
            Some(Command::Init { company, zone, locale, admin, name }) => {
                let args = super::init::InitArgs { company, zone, locale, admin, name };
                let password = super::init::read_password(&args.admin).map_err(CliError::failed)?;
                report(super::init::init(&database_url(database), &args, &password).await)
            }
            Some(Command::Password { email }) => {
                // From stdin, so the password stays out of the shell's history and the process list.
                let mut line = String::new();
                std::io::stdin()
                    .read_line(&mut line)
                    .map_err(|e| CliError::failed(format!("could not read the new password from stdin: {e}")))?;
                let password = line.trim_end_matches(['\r', '\n']);
                report(super::password::set_password(&database_url(database), &email, password).await)
            }
            Some(Command::People(people)) => {
                let settings = serve_settings(database);
                super::people_cli::run(&people, &settings, &mut std::io::stdout().lock()).await
            }
            Some(Command::Erase { value, who }) => {
                let settings = serve_settings(database);
                if value.is_none() && std::io::IsTerminal::is_terminal(&std::io::stdin()) {
                    eprint!("Email address or phone number to erase: ");
                }
                let mut stdin = std::io::stdin().lock();
                super::erase_cli::run(
                    &settings,
                    value.as_deref(),
                    who.as_deref(),
                    &mut stdin,
                    &mut std::io::stdout().lock(),
                )
                .await
            }
            Some(Command::Ops(ops)) => {
                let settings = serve_settings(database);
                super::ops_cli::run(&ops, &settings, &mut std::io::stdout().lock()).await.map_err(CliError::failed)
            }
            Some(Command::Agents(agents)) => {
                let settings = serve_settings(database);
                super::agents_cli::run(&agents, &settings, &mut std::io::stdout().lock()).await
            }
            Some(Command::Org(org)) => {
                let settings = serve_settings(database);
                super::bots_cli::run(&org, &settings, &mut std::io::stdout().lock()).await
            }
        }
    }
}

/// Prints a finished command's one-line outcome.
fn report<E: std::fmt::Display>(done: Result<String, E>) -> Result<(), CliError> {
    let summary = done.map_err(CliError::failed)?;
    writeln!(std::io::stdout(), "{summary}").map_err(CliError::failed)
}

/// Serves Engram; with the demo, first writes its vault, serves its systems beside Engram and
/// seeds an empty database.
async fn serve(mut settings: Settings, with_demo: bool) -> Result<(), CliError> {
    let mut source = None;
    if with_demo {
        // Without a folder for the demo bots' files the demo cannot start: a usage error.
        let root = demo_vault(settings.vault.as_deref(), &settings.database_url)
            .map_err(|message| CliError { code: 2, message })?;
        match demo::bots::ensure_vault(&FsVault::new(&root)).await {
            Ok(true) => tracing::info!(vault = %root.display(), "wrote the demo vault"),
            Ok(false) => tracing::info!(vault = %root.display(), "using the existing vault"),
            Err(e) => return Err(CliError::failed(format!("could not write the demo vault: {e}"))),
        }
        settings.vault = Some(root);
        // Approved emails go to the demo's outbox unless an outbox is set up; agents answer
        // through the demo's model unless a real provider is set up.
        let wants_model = crate::adapters::agent_model::wants_demo_model(&settings.models);
        let ports =
            demo::ports::serve_beside(settings.outbox_url.is_none(), wants_model).await.map_err(CliError::failed)?;
        source = Some(ports.source);
        if let Some(url) = ports.outbox {
            settings.outbox_url = Some(url);
        }
        if let Some(url) = ports.model {
            crate::adapters::agent_model::use_demo_model(&mut settings.models, &url);
        }
    }
    let vault = settings.vault.clone();
    let addr = settings.leptos.site_addr;
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| CliError::failed(format!("could not listen on {addr}: {e}")))?;
    let app =
        Application::build(settings, listener).await.map_err(|e| CliError::failed(format!("could not start: {e}")))?;
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
            Err(e) => return Err(CliError::failed(format!("could not seed the demo: {e}"))),
        }
    }
    tracing::info!("serving on http://{addr}");
    app.run_until_stopped().await.map_err(|e| CliError::failed(format!("the server stopped: {e}")))
}
