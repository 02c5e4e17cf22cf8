//! `engram org …`: the commands the dispatcher runs after each wake, and the memory commands for
//! people. The command line on the host is the operator; `--as` names the person (or bot) a
//! command speaks for where the rules depend on who asks.

use crate::settings::Settings;
use crate::store::AnyStore;
use clap::{Args, Subcommand};
use engine::persona::backlog::{Episode, MemoryRow};
use engine::persona::bot_tokens::{AgentToken, REVOKED_OWNER_CHANGED};
use engine::persona::self_edit::EditRequest;
use engine::persona::self_edit_store::{EditState, SelfEdit};
use engine::persona::service::{
    Bots, Caller, PersonaError, ProposalOutcome, ReflectOutcome, ReflectReport, WakeDoneReport, WakeReport,
};
use engine::services::Services;
use engine::{SystemClock, UserSafe};
use std::io::Write;
use std::sync::Arc;

pub use crate::cli::CliError;

/// Bad input the parser could not see, refused as clap refuses its own: exit 2.
pub(crate) fn usage(m: impl Into<String>) -> CliError {
    CliError { code: 2, message: format!("{}\n\nFor more information, try 'engram org --help'.", m.into()) }
}

/// A refusal exits 3 with the reason, the seed's contract for the dispatcher; anything else 1.
pub(crate) fn refused(e: PersonaError) -> CliError {
    let code = if matches!(e, PersonaError::Refused(_) | PersonaError::TranscriptRefused { .. }) { 3 } else { 1 };
    if let Some(detail) = e.internal_detail() {
        tracing::error!(%detail, "internal error in the command line");
    }
    CliError { code, message: e.user_message() }
}

fn io(e: std::io::Error) -> CliError {
    CliError { code: 1, message: e.to_string() }
}

/// `engram org …`: the commands the dispatcher runs after each wake, and the memory commands.
#[derive(Debug, Args)]
pub struct OrgArgs {
    /// The person or bot the command speaks for (by email, the part before @, or the bot's name);
    /// the host's operator when left out
    #[arg(long = "as", global = true, value_name = "WHO")]
    pub who: Option<String>,
    #[command(subcommand)]
    pub command: OrgCommand,
}

#[derive(Debug, Subcommand)]
pub enum OrgCommand {
    /// Wake a bot; prints the wakeup id
    Wake {
        agent: String,
        #[arg(long)]
        task: Option<String>,
        #[arg(long)]
        reason: String,
    },
    /// Close wakeups after a run and record its episode
    WakeDone {
        /// A comma-separated list of wakeup ids
        ids: String,
        #[command(flatten)]
        report: Report,
    },
    /// Reflect on a run's episode
    Reflect {
        agent: String,
        #[command(flatten)]
        report: Report,
        /// chat, task, …
        #[arg(long, default_value = "task")]
        reason: String,
        #[arg(long)]
        dry_run: bool,
    },
    /// A bot's tasks
    #[command(subcommand)]
    Task(TaskCommand),
    /// A bot's memory lines, episodes and stats; edits and retirements by people
    Memory(MemoryArgs),
    /// Propose a change to a bot's prose from a memory line; exits 3 with the reason when
    /// refused, 1 when no model gave a usable answer
    ProposeImprovement {
        agent: String,
        #[arg(long, value_name = "ID")]
        memory_id: String,
        #[arg(long)]
        dry_run: bool,
    },
    /// Search a bot's core.md, memory lines and hand-written memory file
    Recall { agent: String, query: String },
    /// A bot's edits to its own memory (seed 003): `edit` and `profile` with `--as <bot>`; undo,
    /// approve and decline by its owner or lead
    #[command(subcommand, name = "self")]
    SelfEdit(SelfCommand),
    /// Print a token for the bot itself; it works for ENGRAM_BOT_TOKEN_DAYS days (90 unless set)
    Token {
        agent: String,
        #[arg(long, default_value = "dispatcher")]
        name: String,
    },
    /// A bot's tokens, newest first, never their secrets; for its owner or lead (`--as`)
    Tokens { agent: String },
    /// Revoke one of a bot's tokens; for its owner or lead (`--as`)
    RevokeToken { agent: String, id: String },
}

#[derive(Debug, Subcommand)]
pub enum TaskCommand {
    /// File a task; prints its id
    New {
        agent: String,
        title: String,
        #[arg(long, default_value = "")]
        body: String,
    },
    /// What a run posts on its task
    Status {
        task: String,
        status: String,
        #[arg(long, default_value = "")]
        note: String,
    },
    /// The reviewer sent it back: marks its episode corrected
    Redo { task: String },
}

#[derive(Debug, Subcommand)]
pub enum SelfCommand {
    /// memory_self_edit: exits 3 with the sentence when the policy refuses it
    Edit {
        /// append, replace, strengthen, weaken, forget or reflect
        action: String,
        /// A line's id, strategy:{id}, profile, or for append fact, fact:preference, strategy or
        /// strategy:anti_pattern
        target: String,
        #[arg(long)]
        content: Option<String>,
        /// Why: mandatory, and kept in the audit log
        #[arg(long, default_value = "")]
        reason: String,
    },
    /// The reflection cycle on the last 10 sessions: the calling bot's, or the named one's
    Reflect { agent: Option<String> },
    /// The computed profile: the calling bot's, or the named one's
    Profile { agent: Option<String> },
    /// A bot's self-edits, newest first, with the reason beside what changed
    Edits { agent: String },
    /// Take an applied edit back within its grace period
    Undo { id: String },
    /// Carry out an edit that waits for approval
    Approve { id: String },
    /// Decline an edit that waits for approval
    Decline {
        id: String,
        #[arg(long)]
        reason: Option<String>,
    },
}

/// `engram org memory <agent> [--all]`, or one of its subcommands.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct MemoryArgs {
    #[command(subcommand)]
    pub command: Option<MemoryCommand>,
    /// The bot whose memory lines to show
    #[arg(required = true)]
    pub agent: Option<String>,
    /// Closed lines too
    #[arg(long)]
    pub all: bool,
}

#[derive(Debug, Subcommand)]
pub enum MemoryCommand {
    /// A bot's episodes
    Episodes { agent: String },
    /// Corrections and cost per completed card
    Stats {
        agent: String,
        #[arg(long, default_value_t = 30)]
        days: u32,
    },
    /// Close a line and write its successor (--as a person)
    Edit { id: String, text: String },
    /// Retire a line (--as a person)
    Retire { id: String, why: String },
}

/// What a run reports when it ends.
#[derive(Debug, Args)]
pub struct Report {
    #[arg(long)]
    run: String,
    #[arg(long, default_value_t = 0, allow_negative_numbers = true)]
    exit: i32,
    #[arg(long, default_value = "")]
    result: String,
    #[arg(long)]
    turns: Option<u32>,
    /// In USD
    #[arg(long)]
    cost: Option<f64>,
    /// In seconds
    #[arg(long)]
    duration: Option<f64>,
    #[arg(long, value_name = "PATH")]
    log: Option<String>,
    #[arg(long, value_name = "PATH")]
    transcript: Option<String>,
}

impl Report {
    fn run_report(&self) -> WakeReport {
        WakeReport {
            wake: self.run.clone(),
            exit: self.exit,
            result: self.result.clone(),
            turns: self.turns,
            cost_usd: self.cost,
            duration_s: self.duration,
            log_path: self.log.clone(),
            transcript_path: self.transcript.clone(),
        }
    }
}

fn id(s: &str, what: &str) -> Result<i64, CliError> {
    s.trim_start_matches('#').parse().map_err(|_| usage(format!("{what} must be a number, not {s:?}")))
}

/// Opens the store and builds the services from the settings, as the server does.
pub(crate) async fn open_services(settings: &Settings) -> Result<Services, CliError> {
    let store = AnyStore::open(&settings.database_url)
        .await
        .map_err(|e| CliError { code: 1, message: format!("could not open the database: {e}") })?;
    Ok(Services::build(store.shared(), Arc::new(SystemClock), crate::startup::adapters(settings)))
}

/// Opens the store and builds the bots' side from the settings, as the server does.
pub async fn open_bots(settings: &Settings) -> Result<Bots, CliError> {
    Ok(open_services(settings).await?.bots)
}

/// Resolves `--as`: a bot on the roster by name, else a person of the directory by email or by
/// the part before @.
pub(crate) async fn caller(services: &Services, who: Option<&str>) -> Result<Caller, CliError> {
    let Some(who) = who else { return Ok(Caller::Operator) };
    if let Ok(roster) = services.bots.roster().await {
        if roster.get(who).is_some() {
            return Ok(Caller::Bot(who.to_string()));
        }
    }
    crate::cli::find_person(services.store.as_ref(), who)
        .await
        .map_err(|e| match e.starts_with("There is no person") {
            true => CliError { code: 1, message: format!("There is no person or agent called {who}") },
            false => CliError { code: 1, message: e },
        })
        .and_then(|p| match p.left_at {
            Some(_) => Err(CliError { code: 1, message: format!("{} has left and can no longer act here", p.name) }),
            None => Ok(Caller::Person(p)),
        })
}

fn person_caller(c: Caller) -> Result<Caller, CliError> {
    match c {
        Caller::Person(_) => Ok(c),
        _ => Err(usage("--as <person> is required: name the owner or lead who makes this change")),
    }
}

/// A bot token as a line: its name, who made it, when, and whether it still works.
fn agent_token_line(t: &AgentToken) -> String {
    let at = |d: &chrono::DateTime<chrono::Utc>| d.format("%Y-%m-%d %H:%M UTC").to_string();
    let mut s =
        format!("#{} {} — made by {} {}, expires {}", t.id, t.name, t.made_by, at(&t.created_at), at(&t.expires_at));
    if let Some(u) = &t.last_used_at {
        s.push_str(&format!(", last used {}", at(u)));
    }
    match (&t.revoked_at, t.revoked_why.as_deref()) {
        (Some(r), Some(REVOKED_OWNER_CHANGED)) => s.push_str(&format!(" — stopped {}: the owner changed", at(r))),
        (Some(r), _) => s.push_str(&format!(" — revoked {}", at(r))),
        (None, _) => {}
    }
    s
}

fn memory_line(r: &MemoryRow) -> String {
    let mut s = format!(
        "#{} [{}] {} (seen {}×, last {})",
        r.id,
        r.kind.as_str(),
        r.text,
        r.times_seen,
        r.last_seen.format("%Y-%m-%d")
    );
    if !r.evidence.is_empty() {
        s.push_str(&format!(
            " evidence: {}",
            r.evidence.iter().map(|e| format!("episode {e}")).collect::<Vec<_>>().join(", ")
        ));
    }
    if !r.active {
        s.push_str(&format!(
            " — closed {}: {}",
            r.closed_at.map(|t| t.format("%Y-%m-%d").to_string()).unwrap_or_default(),
            r.closed_reason.as_deref().unwrap_or("")
        ));
    }
    s
}

fn episode_line(e: &Episode) -> String {
    format!(
        "episode {} {} run {} {}{} turns {} cost {} — {}",
        e.id,
        e.created_at.format("%Y-%m-%d %H:%M"),
        e.wake,
        e.outcome.as_str(),
        if e.corrected { " (corrected)" } else { "" },
        e.turns.map(|t| t.to_string()).unwrap_or_else(|| "?".into()),
        e.cost_usd.map(|c| format!("${c:.2}")).unwrap_or_else(|| "?".into()),
        e.summary
    )
}

fn reflect_lines(r: &ReflectReport) -> Vec<String> {
    let on = match r.episode {
        Some(id) => format!("episode {id}"),
        None => "the run (no episode recorded)".to_string(),
    };
    let mut out = match &r.outcome {
        ReflectOutcome::Applied(a) if a.is_empty() => vec![format!("reflect on {on}: nothing new")],
        ReflectOutcome::Applied(a) => vec![format!(
            "reflect on {on}: {} added, {} seen again, {} reworded, {} retired",
            a.added.len(),
            a.repeated.len(),
            a.reworded.len(),
            a.deleted.len()
        )],
        ReflectOutcome::DryRun(ops) => {
            let mut v = vec![format!("reflect on {on} (dry run, nothing written):")];
            v.extend(ops.iter().map(|o| format!("  {o}")));
            v
        }
        ReflectOutcome::Skipped(why) => vec![format!("reflect on {on} skipped: {why}")],
    };
    out.extend(r.dropped.iter().map(|d| format!("dropped (names another agent): {d}")));
    out.extend(r.proposals.iter().cloned());
    out.extend(r.self_reflect.iter().flat_map(|c| c.lines()));
    out
}

fn recall_line(agent: &str, h: &engine::persona::recall::RecallHit) -> String {
    use engine::persona::recall::RecallPlace;
    match &h.place {
        RecallPlace::Core { line } => format!("{}:{line}: {}", engine::persona::vault::core_path(agent), h.text),
        RecallPlace::Row { id, kind, times_seen, .. } => format!("line #{id} [{kind}] seen {times_seen}×: {}", h.text),
        RecallPlace::HandWritten { line } => {
            format!("{}:{line}: {}", engine::persona::vault::hand_written_memory_path(agent), h.text)
        }
    }
}

fn wake_done_lines(r: &WakeDoneReport) -> Vec<String> {
    if r.duplicate {
        return vec![format!(
            "this run is already recorded (episode {}); nothing was done",
            r.episode.as_ref().map(|e| e.id).unwrap_or_default()
        )];
    }
    let mut out = vec![format!(
        "closed wakeup(s) {}{}",
        r.closed.iter().map(i64::to_string).collect::<Vec<_>>().join(", "),
        if r.fallback_posted { "; posted the fallback status" } else { "" }
    )];
    if let Some(e) = &r.episode {
        out.push(format!("recorded episode {}: {}", e.id, e.summary));
    }
    if let Some(rr) = &r.reflect {
        out.extend(reflect_lines(rr));
    }
    out.extend(r.self_reflect.iter().flat_map(|c| c.lines()));
    out.extend(r.notes.iter().cloned());
    out
}

/// Runs `engram org …`, writing what it prints to `out`.
pub async fn run(args: &OrgArgs, settings: &Settings, out: &mut impl Write) -> Result<(), CliError> {
    let services = open_services(settings).await?;
    let who = caller(&services, args.who.as_deref()).await?;
    let bots = &services.bots;
    let mut lines: Vec<String> = Vec::new();
    match &args.command {
        OrgCommand::Wake { agent, task, reason } => {
            let task = task.as_deref().map(|t| id(t, "--task")).transpose()?;
            let w = bots.wakes.wake(&who, agent, task, reason).await.map_err(refused)?;
            lines.push(w.id.to_string());
        }
        OrgCommand::WakeDone { ids, report } => {
            let ids = ids.split(',').map(|i| id(i.trim(), "a wakeup id")).collect::<Result<Vec<_>, _>>()?;
            let r = bots.wakes.wake_done(&who, &ids, &report.run_report()).await.map_err(refused)?;
            lines.extend(wake_done_lines(&r));
        }
        OrgCommand::Reflect { agent, report, reason, dry_run } => {
            let r = bots.reflect.reflect(&who, agent, reason, &report.run_report(), *dry_run).await.map_err(refused)?;
            lines.extend(reflect_lines(&r));
        }
        OrgCommand::Task(TaskCommand::New { agent, title, body }) => {
            let t = bots.wakes.create_task(&who, agent, title, body).await.map_err(refused)?;
            lines.push(t.id.to_string());
        }
        OrgCommand::Task(TaskCommand::Status { task, status, note }) => {
            bots.wakes.post_status(&who, id(task, "the task")?, status, note).await.map_err(refused)?;
            lines.push(format!("task #{task} is {status}"));
        }
        OrgCommand::Task(TaskCommand::Redo { task }) => {
            let e = bots.wakes.redo(&who, id(task, "the task")?).await.map_err(refused)?;
            lines.push(format!("marked episode {} ({}, run {}) as corrected", e.id, e.agent, e.wake));
        }
        OrgCommand::Memory(MemoryArgs { command: Some(MemoryCommand::Episodes { agent }), .. }) => {
            let eps = bots.wakes.episodes(&who, agent).await.map_err(refused)?;
            if eps.is_empty() {
                lines.push(format!("{agent} has no episodes yet"));
            }
            lines.extend(eps.iter().map(episode_line));
        }
        OrgCommand::Memory(MemoryArgs { command: Some(MemoryCommand::Stats { agent, days }), .. }) => {
            let s = bots.pages.stats(&who, agent, *days).await.map_err(refused)?;
            lines.extend(s.lines(agent));
        }
        OrgCommand::Memory(MemoryArgs { command: Some(MemoryCommand::Edit { id: row, text }), .. }) => {
            let who = person_caller(who)?;
            let new = bots.pages.edit_memory(&who, id(row, "the line")?, text).await.map_err(refused)?;
            lines.push(format!("line #{row} is closed; #{} supersedes it", new.id));
        }
        OrgCommand::Memory(MemoryArgs { command: Some(MemoryCommand::Retire { id: row, why }), .. }) => {
            let who = person_caller(who)?;
            bots.pages.retire_memory(&who, id(row, "the line")?, why).await.map_err(refused)?;
            lines.push(format!("line #{row} is retired"));
        }
        OrgCommand::Memory(MemoryArgs { command: None, agent, all }) => {
            let agent = agent.as_deref().ok_or_else(|| usage("name the bot whose memory to show"))?;
            let rows = bots.pages.memory(&who, agent, *all).await.map_err(refused)?;
            if rows.is_empty() {
                lines.push(format!("{agent} has no memory lines yet"));
            }
            lines.extend(rows.iter().map(memory_line));
        }
        OrgCommand::ProposeImprovement { agent, memory_id, dry_run } => {
            let row = id(memory_id, "--memory-id")?;
            match bots.improve.propose_improvement(&who, agent, row, *dry_run).await.map_err(refused)? {
                ProposalOutcome::Filed(t) => lines.push(format!("filed improve card #{}: {}", t.id, t.title)),
                ProposalOutcome::DryRun { path, diff, rationale, changed_lines } => {
                    lines.push(format!("dry run: {changed_lines} changed lines in {path}; nothing was filed"));
                    lines.push(rationale);
                    lines.push(diff);
                }
                // The seed's contract: exit 3 with the reason when refused, whatever refused it.
                ProposalOutcome::Refused(why) => {
                    return Err(CliError { code: 3, message: format!("no proposal: {why}") })
                }
                ProposalOutcome::Skipped(why) => {
                    return Err(CliError { code: 1, message: format!("no proposal: {why}") })
                }
            }
        }
        OrgCommand::Recall { agent, query } => {
            let hits = bots.pages.recall(&who, agent, query).await.map_err(refused)?;
            if hits.is_empty() {
                lines.push(format!("nothing in {agent}'s memory holds {query:?}"));
            }
            lines.extend(hits.iter().map(|h| recall_line(agent, h)));
        }
        OrgCommand::SelfEdit(cmd) => lines.extend(self_command(bots, &who, cmd).await?),
        OrgCommand::Token { agent, name } => {
            let Caller::Person(owner) = person_caller(who)? else { unreachable!("person_caller returns a person") };
            let (secret, _) =
                bots.tokens.create_agent_token(&owner, agent, name, settings.bot_token_days).await.map_err(refused)?;
            lines.push(secret);
        }
        OrgCommand::Tokens { agent } => {
            let tokens = bots.tokens.agent_tokens(&person_caller(who)?, agent).await.map_err(refused)?;
            if tokens.is_empty() {
                lines.push(format!("{agent} has no tokens"));
            }
            lines.extend(tokens.iter().map(agent_token_line));
        }
        OrgCommand::RevokeToken { agent, id: n } => {
            let n = id(n, "the token")?;
            bots.tokens.revoke_agent_token(&person_caller(who)?, agent, n).await.map_err(refused)?;
            lines.push(format!("revoked {agent}'s token #{n}; it no longer works"));
        }
    }
    for l in lines {
        writeln!(out, "{l}").map_err(io)?;
    }
    Ok(())
}

/// A self-edit as a line: what it meant to do beside what changed.
pub fn self_edit_line(e: &SelfEdit) -> String {
    let mut s = format!("self-edit #{} {} {} {}: {:?}", e.id, e.state.as_str(), e.action, e.target, e.reason);
    match (&e.before, &e.after) {
        (Some(b), Some(a)) => s.push_str(&format!(" — {b:?} → {a:?}")),
        (None, Some(a)) => s.push_str(&format!(" — adds {a:?}")),
        (Some(b), None) => s.push_str(&format!(" — closes {b:?}")),
        (None, None) => {}
    }
    if let Some(r) = &e.refusal {
        s.push_str(&format!(" — refused: {r}"));
    }
    if let (EditState::Waiting, Some(k)) = (e.state, &e.approval) {
        s.push_str(&format!(" — waits for its owner or lead ({k}, requireApproval)"));
    }
    if let (EditState::Applied, Some(u)) = (e.state, e.undo_until) {
        s.push_str(&format!(" — can be undone until {} UTC", u.format("%Y-%m-%d %H:%M")));
    }
    s
}

async fn self_command(bots: &Bots, who: &Caller, cmd: &SelfCommand) -> Result<Vec<String>, CliError> {
    Ok(match cmd {
        SelfCommand::Edit { action, .. } if action.trim() == "reflect" => {
            bots.reflect.self_reflect(who, None).await.map_err(refused)?.lines()
        }
        SelfCommand::Reflect { agent } => {
            bots.reflect.self_reflect(who, agent.as_deref()).await.map_err(refused)?.lines()
        }
        SelfCommand::Edit { action, target, content, reason } => {
            let req = EditRequest {
                action: action.clone(),
                target: target.clone(),
                content: content.clone(),
                reason: reason.clone(),
            };
            let e = bots.self_edits.self_edit(who, &req).await.map_err(refused)?;
            if e.state == EditState::Refused {
                return Err(CliError { code: 3, message: self_edit_line(&e) });
            }
            vec![self_edit_line(&e)]
        }
        SelfCommand::Profile { agent } => {
            bots.self_edits.self_profile(who, agent.as_deref()).await.map_err(refused)?.lines()
        }
        SelfCommand::Edits { agent } => {
            let edits = bots.self_edits.self_edits(who, agent).await.map_err(refused)?;
            if edits.is_empty() {
                vec![format!("{agent} has made no self-edits")]
            } else {
                edits.iter().map(self_edit_line).collect()
            }
        }
        SelfCommand::Undo { id: n } => {
            vec![self_edit_line(&bots.self_edits.undo_self_edit(who, id(n, "the self-edit")?).await.map_err(refused)?)]
        }
        SelfCommand::Approve { id: n } => {
            let who = person_caller(who.clone())?;
            vec![self_edit_line(
                &bots.self_edits.decide_self_edit(&who, id(n, "the self-edit")?, true, None).await.map_err(refused)?,
            )]
        }
        SelfCommand::Decline { id: n, reason } => {
            let who = person_caller(who.clone())?;
            let e = bots.self_edits.decide_self_edit(&who, id(n, "the self-edit")?, false, reason.as_deref()).await;
            vec![self_edit_line(&e.map_err(refused)?)]
        }
    })
}

#[cfg(test)]
mod tests {
    use crate::cli::{Cli, Command};
    use clap::Parser;

    fn org(args: &[&str]) -> Result<super::OrgArgs, clap::Error> {
        match Cli::try_parse_from(["engram", "org"].iter().chain(args))?.command {
            Some(Command::Org(org)) => Ok(org),
            other => panic!("not an org command: {other:?}"),
        }
    }

    #[test]
    fn options_and_words_are_told_apart() {
        let a = org(&["wake-done", "1,2", "--run", "r1", "--exit=3", "--dry-run", "--result", "ok"]);
        assert_eq!(a.unwrap_err().exit_code(), 2, "wake-done has no --dry-run");
        let a = org(&["wake-done", "1,2", "--run", "r1", "--exit=-3", "--result", "ok", "--as", "scout"]).unwrap();
        let super::OrgCommand::WakeDone { ids, report } = a.command else { panic!("{a:?}") };
        let r = report.run_report();
        assert_eq!((ids.as_str(), r.wake.as_str(), r.exit, r.result.as_str()), ("1,2", "r1", -3, "ok"));
        assert_eq!(a.who.as_deref(), Some("scout"));
        let m = org(&["memory", "episodes", "scout"]).unwrap();
        assert!(matches!(m.command, super::OrgCommand::Memory(super::MemoryArgs { command: Some(_), .. })));
        let m = org(&["memory", "scout", "--all"]).unwrap();
        assert!(
            matches!(m.command, super::OrgCommand::Memory(super::MemoryArgs { command: None, all: true, agent: Some(ref a) }) if a == "scout")
        );
        for bad in [&["--nope"][..], &["wake-done", "1", "--run"], &["wake-done", "1", "--turns", "many", "--run", "r"]]
        {
            assert_eq!(org(bad).unwrap_err().exit_code(), 2, "{bad:?}");
        }
    }
}
