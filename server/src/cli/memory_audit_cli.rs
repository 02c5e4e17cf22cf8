//! `engram memory audit`: seed 004's audit from the host's command line, of a bot's MEMORY.md and
//! USER.md (as its owner or lead with `--as`, or as the operator), or of a Hermes memories folder
//! with `--dir`, which only the operator audits. `--undo <ID>` restores the files an audit changed.

use crate::adapters::vault::FsVault;
use crate::cli::bots_cli::{caller, open_services, refused, usage, CliError};
use crate::settings::Settings;
use clap::Args;
use engine::persona::service::{describe, AuditTarget};
use engine::persona::vault::Vault;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

#[derive(Debug, Clone, PartialEq, Eq, Args)]
pub struct AuditArgs {
    /// The agent whose .agents/org/memory/<name>.md and <name>.user.md to audit
    pub agent: Option<String>,
    /// A Hermes memories folder (MEMORY.md and USER.md, entries split by a line holding §)
    #[arg(long, value_name = "PATH")]
    pub dir: Option<PathBuf>,
    /// Show the actions without applying them
    #[arg(long)]
    pub dry_run: bool,
    /// Undo audit #ID: both files back as they were, if unchanged since
    #[arg(long, value_name = "ID")]
    pub undo: Option<i64>,
    /// The owner or lead the audit is made as; the host's operator when left out
    #[arg(long = "as", value_name = "WHO")]
    pub who: Option<String>,
}

fn folder(dir: &std::path::Path) -> Result<(Arc<dyn Vault>, String), CliError> {
    let full = dir
        .canonicalize()
        .map_err(|e| CliError { code: 1, message: format!("{} cannot be opened: {e}", dir.display()) })?;
    if !full.is_dir() {
        return Err(CliError { code: 1, message: format!("{} is not a folder", full.display()) });
    }
    let label = full.display().to_string();
    Ok((Arc::new(FsVault::new(full)), label))
}

pub async fn run(args: &AuditArgs, settings: &Settings, out: &mut impl Write) -> Result<(), CliError> {
    let services = open_services(settings).await?;
    let who = caller(&services, args.who.as_deref()).await?;
    let bots = &services.bots;
    let lines = if let Some(id) = args.undo {
        let files = args.dir.as_deref().map(folder).transpose()?;
        let r = bots.memory_audits.undo_memory_audit(&who, id, files).await.map_err(refused)?;
        let mut lines =
            vec![format!("undid memory audit #{id} of {}: both files are as they were before it", r.audit.subject)];
        lines.extend(r.audit.actions.iter().map(|a| format!("reverted: {}", describe(&a.action))));
        lines
    } else {
        let target = match (&args.agent, &args.dir) {
            (Some(agent), None) => AuditTarget::Agent(agent.clone()),
            (None, Some(dir)) => {
                let (files, label) = folder(dir)?;
                AuditTarget::Folder { files, label }
            }
            _ => return Err(usage("name one agent, or a folder with --dir")),
        };
        bots.memory_audits.memory_audit(&who, target, args.dry_run).await.map_err(refused)?.lines()
    };
    for l in lines {
        writeln!(out, "{l}").map_err(|e| CliError { code: 1, message: e.to_string() })?;
    }
    Ok(())
}
