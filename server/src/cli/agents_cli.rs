//! `engram agents schedule show|set|clear|pause|resume` and `engram agents trigger
//! make|rotate|clear`: how a company agent runs unasked, set by its owner or an admin as the
//! agent's page and the API set it, through the same use case (`engine::runs::schedules`). A
//! trigger's secret is printed once and kept nowhere but as its hash.
//!
//! `engram agents token make|list|revoke`: the tokens an organisation's own outside agents hold to
//! use a company agent acting for nobody (`engine::runs::agent_tokens`); a token's secret is
//! printed once, too.

use crate::cli::archive::location;
use crate::cli::bots_cli::CliError;
use crate::cli::find_person;
use crate::http::schedules_api::trigger_path;
use crate::settings::Settings;
use crate::store::{AnyStore, Backend};
use clap::{Args, Subcommand};
use engine::org::{AgentId, Person};
use engine::runs::agent_tokens::AgentTokens;
use engine::runs::schedules::{due_words, Schedules};
use engine::runs::RunError;
use engine::store::Store;
use engine::{SystemClock, UserSafe};
use std::io::Write;
use std::path::Path;
use std::sync::Arc;

/// `engram agents …`.
#[derive(Debug, Args)]
pub struct AgentsArgs {
    #[command(subcommand)]
    pub command: AgentsCommand,
}

#[derive(Debug, Subcommand)]
pub enum AgentsCommand {
    /// A company agent's standing instruction and when it runs unasked
    #[command(subcommand)]
    Schedule(ScheduleCommand),
    /// The URL with its own secret that another system posts to, to start the agent
    #[command(subcommand)]
    Trigger(TriggerCommand),
    /// Tokens an outside agent holds to use the agent acting for nobody (over /mcp or the REST pair)
    #[command(subcommand)]
    Token(TokenCommand),
}

#[derive(Debug, Subcommand)]
pub enum TokenCommand {
    /// Make a token named after where it is used; prints its secret once
    Make {
        #[command(flatten)]
        target: Target,
        /// Where it is used: "LangGraph on the support server"
        name: String,
    },
    /// List the agent's tokens, newest first (never a secret)
    List(Target),
    /// Revoke one token by its id: it stops at once
    Revoke {
        #[command(flatten)]
        target: Target,
        /// The token's id, as list prints it
        id: i64,
    },
}

/// Who acts and on which agent, for every command here.
#[derive(Debug, Clone, Args)]
pub struct Target {
    /// The agent's owner or an admin, by email or the part before the @
    #[arg(long = "as", value_name = "PERSON")]
    pub who: String,
    /// The company agent, by name ("Support Agent") or id
    pub agent: String,
}

#[derive(Debug, Subcommand)]
pub enum ScheduleCommand {
    /// Print the schedule, whether the agent has a trigger and whether it is paused
    Show(Target),
    /// Set or replace the schedule: daily HH:MM, weekdays HH:MM, or every 2h / 30m
    Set {
        #[command(flatten)]
        target: Target,
        /// daily, weekdays or every
        kind: String,
        /// The time (HH:MM, in the company's zone) or how often (2h, 30m)
        value: String,
        /// What the agent is asked each time
        instruction: String,
    },
    /// Remove the schedule
    Clear(Target),
    /// Pause the agent: neither its schedule nor its trigger fires
    Pause(Target),
    /// Resume the agent: its schedule is due again at its next due time
    Resume(Target),
}

#[derive(Debug, Subcommand)]
pub enum TriggerCommand {
    /// Make the trigger (or rotate its secret if it has one); prints the secret once
    Make(Target),
    /// Give the trigger a new secret; the old one stops at once. Prints the new secret once
    Rotate(Target),
    /// Remove the trigger: its URL answers no secret any more
    Clear(Target),
}

/// A rule's refusal (not the owner or an admin, a bad time, a private agent) exits 3 with the
/// sentence; anything else 1.
fn refused(e: RunError) -> CliError {
    if let Some(detail) = e.internal_detail() {
        tracing::error!(%detail, "internal error in the command line");
        return CliError { code: 1, message: e.user_message() };
    }
    CliError { code: 3, message: e.user_message() }
}

fn failed(message: impl std::fmt::Display) -> CliError {
    CliError { code: 1, message: message.to_string() }
}

pub async fn run(args: &AgentsArgs, settings: &Settings, out: &mut impl Write) -> Result<(), CliError> {
    let target = match &args.command {
        AgentsCommand::Schedule(
            ScheduleCommand::Show(t)
            | ScheduleCommand::Set { target: t, .. }
            | ScheduleCommand::Clear(t)
            | ScheduleCommand::Pause(t)
            | ScheduleCommand::Resume(t),
        ) => t,
        AgentsCommand::Trigger(TriggerCommand::Make(t) | TriggerCommand::Rotate(t) | TriggerCommand::Clear(t)) => t,
        AgentsCommand::Token(
            TokenCommand::Make { target: t, .. } | TokenCommand::List(t) | TokenCommand::Revoke { target: t, .. },
        ) => t,
    };
    let store = open(&settings.database_url).await?;
    let me = find_person(store.as_ref(), &target.who).await.map_err(|m| CliError { code: 3, message: m })?;
    let agent = find_agent(store.as_ref(), &target.agent).await?;
    let tokens = AgentTokens::new(store.clone(), Arc::new(SystemClock));
    let schedules = Schedules::new(store, Arc::new(SystemClock));
    let w = |e: std::io::Error| failed(e);
    match &args.command {
        AgentsCommand::Token(TokenCommand::Make { name, .. }) => {
            let (t, secret) = tokens.make(&me, agent, name).await.map_err(refused)?;
            writeln!(out, "Made agent token #{} “{}”. Copy it now; it is not shown again:", t.id, t.name).map_err(w)?;
            writeln!(out, "{secret}").map_err(w)?;
            writeln!(
                out,
                "An outside agent uses it as a bearer token on /mcp or POST /api/runs/external; it acts for nobody."
            )
            .map_err(w)
        }
        AgentsCommand::Token(TokenCommand::List(_)) => {
            let zone = schedules.zone().await.map_err(refused)?;
            let listed = tokens.list(&me, agent).await.map_err(refused)?;
            if listed.is_empty() {
                return writeln!(out, "No agent tokens").map_err(w);
            }
            for t in listed {
                let used = t.last_used_at.map(|at| due_words(zone, at)).unwrap_or_else(|| "never".into());
                let state = match t.revoked_at {
                    Some(at) => format!("revoked {}", due_words(zone, at)),
                    None => "live".into(),
                };
                writeln!(
                    out,
                    "#{} {} · made {} · last used {} · {}",
                    t.id,
                    t.name,
                    due_words(zone, t.made_at),
                    used,
                    state
                )
                .map_err(w)?;
            }
            Ok(())
        }
        AgentsCommand::Token(TokenCommand::Revoke { id, .. }) => {
            tokens.revoke(&me, agent, *id).await.map_err(refused)?;
            writeln!(out, "Revoked token #{id}; it no longer works").map_err(w)
        }
        AgentsCommand::Schedule(ScheduleCommand::Show(_)) => show(&schedules, &me, agent, out).await,
        AgentsCommand::Schedule(ScheduleCommand::Set { kind, value, instruction, .. }) => {
            let s = schedules.set_schedule(&me, agent, instruction, kind, value).await.map_err(refused)?;
            let zone = schedules.zone().await.map_err(refused)?;
            writeln!(out, "Set: {}; next due {}", s.when.words(), due_words(zone, s.next_due)).map_err(w)
        }
        AgentsCommand::Schedule(ScheduleCommand::Clear(_)) => {
            schedules.clear_schedule(&me, agent).await.map_err(refused)?;
            writeln!(out, "Cleared the schedule").map_err(w)
        }
        AgentsCommand::Schedule(ScheduleCommand::Pause(_)) => {
            schedules.set_paused(&me, agent, true).await.map_err(refused)?;
            writeln!(out, "Paused: it runs nothing unasked until it is resumed").map_err(w)
        }
        AgentsCommand::Schedule(ScheduleCommand::Resume(_)) => {
            schedules.set_paused(&me, agent, false).await.map_err(refused)?;
            writeln!(out, "Resumed").map_err(w)
        }
        AgentsCommand::Trigger(TriggerCommand::Make(_) | TriggerCommand::Rotate(_)) => {
            let rotate = matches!(args.command, AgentsCommand::Trigger(TriggerCommand::Rotate(_)));
            let had = schedules.view(&me, agent).await.map_err(refused)?.automation.trigger.is_some();
            if rotate && !had {
                return Err(CliError {
                    code: 3,
                    message: "This agent has no trigger to rotate; make one with engram agents trigger make".into(),
                });
            }
            let (_, secret) = schedules.make_trigger(&me, agent).await.map_err(refused)?;
            let done =
                if had { "Rotated the trigger's secret; the old one no longer works" } else { "Made the trigger" };
            writeln!(out, "{done}. Another system starts the agent by posting to {}", trigger_path(agent.0))
                .map_err(w)?;
            writeln!(out, "Copy the secret now; it is not shown again:").map_err(w)?;
            writeln!(out, "{secret}").map_err(w)
        }
        AgentsCommand::Trigger(TriggerCommand::Clear(_)) => {
            schedules.clear_trigger(&me, agent).await.map_err(refused)?;
            writeln!(out, "Cleared the trigger").map_err(w)
        }
    }
}

async fn show(schedules: &Schedules, me: &Person, agent: AgentId, out: &mut impl Write) -> Result<(), CliError> {
    let v = schedules.view(me, agent).await.map_err(refused)?;
    let w = |e: std::io::Error| failed(e);
    match &v.automation.schedule {
        Some(s) => {
            writeln!(out, "Schedule: {}; next due {}", s.when.words(), due_words(v.zone, s.next_due)).map_err(w)?;
            writeln!(out, "Instruction: {}", s.instruction).map_err(w)?;
        }
        None => writeln!(out, "Schedule: none").map_err(w)?,
    }
    match &v.automation.trigger {
        Some(t) => writeln!(
            out,
            "Trigger: POST {} (made {}); its secret is not shown again",
            trigger_path(agent.0),
            due_words(v.zone, t.made_at)
        )
        .map_err(w)?,
        None => writeln!(out, "Trigger: none").map_err(w)?,
    }
    let paused = if v.automation.paused { "Paused: yes, it runs nothing unasked" } else { "Paused: no" };
    writeln!(out, "{paused}").map_err(w)
}

/// A company agent by name, or any agent by id (the use case then says what it may be).
async fn find_agent(store: &dyn Store, name_or_id: &str) -> Result<AgentId, CliError> {
    let wanted = name_or_id.trim();
    if let Ok(id) = wanted.parse::<i64>() {
        return Ok(AgentId(id));
    }
    let dir = store.outline().await.map_err(failed)?;
    dir.agents
        .iter()
        .find(|a| a.name.eq_ignore_ascii_case(wanted))
        .map(|a| a.id)
        .ok_or_else(|| CliError { code: 3, message: format!("There is no agent called {wanted:?}") })
}

async fn open(url: &str) -> Result<Arc<dyn Store>, CliError> {
    let at = location(url);
    if Backend::of(url).map_err(failed)? == Backend::Sqlite && !Path::new(&at).exists() {
        return Err(failed(format!("There is no database at {at}; start Engram (or run engram init) first.")));
    }
    AnyStore::open(url).await.map(|s| s.shared()).map_err(|e| failed(format!("could not open {at}: {e}")))
}
