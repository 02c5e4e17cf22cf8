//! `engram org …`: the commands the dispatcher runs after each wake, and the memory commands for
//! people. The command line on the host is the operator; `--as` names the person (or bot) a
//! command speaks for where the rules depend on who asks.

use crate::llm::ConfiguredModels;
use crate::settings::Settings;
use crate::startup::build_bots;
use crate::store::AnyStore;
use engine::persona::backlog::{Episode, MemoryRow};
use engine::persona::service::{
    Bots, Caller, PersonaError, ProposalOutcome, ReflectOutcome, ReflectReport, WakeDoneReport, WakeReport,
};
use engine::SystemClock;
use std::collections::HashMap;
use std::io::Write;
use std::sync::Arc;

pub const ORG_USAGE: &str = "\
usage (each also takes --database URL; the vault is $ENGRAM_VAULT):
  engram org wake <agent> [--task T] --reason R
  engram org wake-done <ids> --run R --exit N --result \"…\" [--turns N] [--cost USD] [--duration S]
                       [--log path] [--transcript path]           <ids> is a comma-separated list
  engram org reflect <agent> --run R [--reason chat|task|…] [--dry-run]
  engram org task new <agent> \"<title>\" [--body B]
  engram org task status <task> <status> [--note N] [--as <agent>]
  engram org task redo <task>
  engram org memory <agent> [--all] [--as <person or agent>]
  engram org memory episodes <agent> [--as <person or agent>]
  engram org memory stats <agent> [--days N] [--as <person or agent>]
  engram org memory edit <id> \"<text>\" --as <person>
  engram org memory retire <id> \"<why>\" --as <person>
  engram org propose-improvement <agent> --memory-id <id> [--dry-run]
                       exits 3 with the reason when refused, 1 when no model gave a usable answer
  engram org token <agent> --as <owner> [--name N]       prints a token for the bot itself";

/// A failed command: the exit code and the sentence for stderr.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CliError {
    pub code: u8,
    pub message: String,
}

fn usage(m: impl Into<String>) -> CliError {
    CliError { code: 2, message: format!("{}\n\n{ORG_USAGE}", m.into()) }
}

fn refused(e: PersonaError) -> CliError {
    let code = if matches!(e, PersonaError::Refused(_) | PersonaError::TranscriptRefused { .. }) { 3 } else { 1 };
    if let PersonaError::Internal(detail) = &e {
        tracing::error!(%detail, "internal error in the command line");
    }
    CliError { code, message: e.to_string() }
}

fn io(e: std::io::Error) -> CliError {
    CliError { code: 1, message: e.to_string() }
}

const VALUED: [&str; 16] = [
    "--task",
    "--reason",
    "--run",
    "--exit",
    "--result",
    "--turns",
    "--cost",
    "--duration",
    "--log",
    "--transcript",
    "--as",
    "--days",
    "--memory-id",
    "--note",
    "--body",
    "--name",
];
const SWITCHES: [&str; 2] = ["--all", "--dry-run"];

struct Args {
    words: Vec<String>,
    opts: HashMap<String, String>,
    switches: Vec<String>,
}

impl Args {
    fn parse(args: &[String]) -> Result<Self, CliError> {
        let mut words = Vec::new();
        let mut opts = HashMap::new();
        let mut switches = Vec::new();
        let mut it = args.iter();
        while let Some(a) = it.next() {
            if let Some((k, v)) = a.split_once('=').filter(|(k, _)| VALUED.contains(k)) {
                opts.insert(k.to_string(), v.to_string());
            } else if VALUED.contains(&a.as_str()) {
                let v = it.next().ok_or_else(|| usage(format!("{a} needs a value")))?;
                opts.insert(a.clone(), v.clone());
            } else if SWITCHES.contains(&a.as_str()) {
                switches.push(a.clone());
            } else if a.starts_with("--") {
                return Err(usage(format!("unknown option {a}")));
            } else {
                words.push(a.clone());
            }
        }
        Ok(Self { words, opts, switches })
    }

    fn get(&self, k: &str) -> Option<&str> {
        self.opts.get(k).map(String::as_str)
    }

    fn need(&self, k: &str) -> Result<&str, CliError> {
        self.get(k).ok_or_else(|| usage(format!("{k} is required")))
    }

    fn num<T: std::str::FromStr>(&self, k: &str) -> Result<Option<T>, CliError> {
        self.get(k).map(|v| v.parse::<T>().map_err(|_| usage(format!("{k} must be a number, not {v:?}")))).transpose()
    }

    fn on(&self, k: &str) -> bool {
        self.switches.iter().any(|s| s == k)
    }

    fn report(&self) -> Result<WakeReport, CliError> {
        Ok(WakeReport {
            wake: self.need("--run")?.to_string(),
            exit: self.num("--exit")?.unwrap_or(0),
            result: self.get("--result").unwrap_or("").to_string(),
            turns: self.num("--turns")?,
            cost_usd: self.num("--cost")?,
            duration_s: self.num("--duration")?,
            log_path: self.get("--log").map(str::to_string),
            transcript_path: self.get("--transcript").map(str::to_string),
        })
    }
}

fn id(s: &str, what: &str) -> Result<i64, CliError> {
    s.trim_start_matches('#').parse().map_err(|_| usage(format!("{what} must be a number, not {s:?}")))
}

/// Opens the store and builds the bots' side from the settings, as the server does.
pub async fn open_bots(settings: &Settings) -> Result<Bots, CliError> {
    let store = AnyStore::open(&settings.database_url)
        .await
        .map_err(|e| CliError { code: 1, message: format!("could not open the database: {e}") })?;
    Ok(build_bots(
        settings,
        store.shared(),
        Arc::new(SystemClock),
        Arc::new(ConfiguredModels::start(settings.models.clone())),
    ))
}

/// Resolves `--as`: a bot on the roster by name, else a person by email or by the part before @.
async fn caller(bots: &Bots, who: Option<&str>) -> Result<Caller, CliError> {
    let Some(who) = who else { return Ok(Caller::Operator) };
    if let Ok(roster) = bots.roster().await {
        if roster.get(who).is_some() {
            return Ok(Caller::Bot(who.to_string()));
        }
    }
    let dir = bots.store().directory().await.map_err(|e| CliError { code: 1, message: e.to_string() })?;
    dir.people
        .into_iter()
        .find(|p| {
            p.email.eq_ignore_ascii_case(who) || p.email.split('@').next().is_some_and(|l| l.eq_ignore_ascii_case(who))
        })
        .ok_or_else(|| CliError { code: 1, message: format!("There is no person or agent called {who}") })
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
    let mut out = match &r.outcome {
        ReflectOutcome::Applied(a) if a.is_empty() => vec![format!("reflect on episode {}: nothing new", r.episode)],
        ReflectOutcome::Applied(a) => vec![format!(
            "reflect on episode {}: {} added, {} seen again, {} reworded, {} retired",
            r.episode,
            a.added.len(),
            a.repeated.len(),
            a.reworded.len(),
            a.deleted.len()
        )],
        ReflectOutcome::DryRun(ops) => {
            let mut v = vec![format!("reflect on episode {} (dry run, nothing written):", r.episode)];
            v.extend(ops.iter().map(|o| format!("  {o}")));
            v
        }
        ReflectOutcome::Skipped(why) => vec![format!("reflect on episode {} skipped: {why}", r.episode)],
    };
    out.extend(r.dropped.iter().map(|d| format!("dropped (names another agent): {d}")));
    out.extend(r.proposals.iter().cloned());
    out
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
    out.extend(r.notes.iter().cloned());
    out
}

/// Runs `engram org <args>`, writing what it prints to `out`.
pub async fn run(args: &[String], settings: &Settings, out: &mut impl Write) -> Result<(), CliError> {
    let a = Args::parse(args)?;
    let words: Vec<&str> = a.words.iter().map(String::as_str).collect();
    let bots = open_bots(settings).await?;
    let who = caller(&bots, a.get("--as")).await?;
    let mut lines: Vec<String> = Vec::new();
    match words.as_slice() {
        ["wake", agent] => {
            let task = a.get("--task").map(|t| id(t, "--task")).transpose()?;
            let w = bots.wake(&who, agent, task, a.need("--reason")?).await.map_err(refused)?;
            lines.push(w.id.to_string());
        }
        ["wake-done", ids] => {
            let ids = ids.split(',').map(|i| id(i.trim(), "a wakeup id")).collect::<Result<Vec<_>, _>>()?;
            let r = bots.wake_done(&who, &ids, &a.report()?).await.map_err(refused)?;
            lines.extend(wake_done_lines(&r));
        }
        ["reflect", agent] => {
            let reason = a.get("--reason").unwrap_or("task");
            let r = bots.reflect(&who, agent, reason, &a.report()?, a.on("--dry-run")).await.map_err(refused)?;
            lines.extend(reflect_lines(&r));
        }
        ["task", "new", agent, title] => {
            let t = bots.create_task(&who, agent, title, a.get("--body").unwrap_or("")).await.map_err(refused)?;
            lines.push(t.id.to_string());
        }
        ["task", "status", task, status] => {
            bots.post_status(&who, id(task, "the task")?, status, a.get("--note").unwrap_or(""))
                .await
                .map_err(refused)?;
            lines.push(format!("task #{task} is {status}"));
        }
        ["task", "redo", task] => {
            let e = bots.redo(&who, id(task, "the task")?).await.map_err(refused)?;
            lines.push(format!("marked episode {} ({}, run {}) as corrected", e.id, e.agent, e.wake));
        }
        ["memory", "episodes", agent] => {
            let eps = bots.episodes(&who, agent).await.map_err(refused)?;
            if eps.is_empty() {
                lines.push(format!("{agent} has no episodes yet"));
            }
            lines.extend(eps.iter().map(episode_line));
        }
        ["memory", "stats", agent] => {
            let s = bots.stats(&who, agent, a.num("--days")?.unwrap_or(30)).await.map_err(refused)?;
            lines.extend(s.lines(agent));
        }
        ["memory", "edit", row, text] => {
            let who = person_caller(who)?;
            let new = bots.edit_memory(&who, id(row, "the line")?, text).await.map_err(refused)?;
            lines.push(format!("line #{row} is closed; #{} supersedes it", new.id));
        }
        ["memory", "retire", row, why] => {
            let who = person_caller(who)?;
            bots.retire_memory(&who, id(row, "the line")?, why).await.map_err(refused)?;
            lines.push(format!("line #{row} is retired"));
        }
        ["memory", agent] => {
            let rows = bots.memory(&who, agent, a.on("--all")).await.map_err(refused)?;
            if rows.is_empty() {
                lines.push(format!("{agent} has no memory lines yet"));
            }
            lines.extend(rows.iter().map(memory_line));
        }
        ["propose-improvement", agent] => {
            let row = id(a.need("--memory-id")?, "--memory-id")?;
            match bots.propose_improvement(&who, agent, row, a.on("--dry-run")).await.map_err(refused)? {
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
        ["token", agent] => {
            let Caller::Person(owner) = person_caller(who)? else { unreachable!("person_caller returns a person") };
            let secret = bots
                .create_agent_token(&owner, agent, a.get("--name").unwrap_or("dispatcher"))
                .await
                .map_err(refused)?;
            lines.push(secret);
        }
        _ => return Err(usage(format!("unknown command: org {}", words.join(" ")))),
    }
    for l in lines {
        writeln!(out, "{l}").map_err(io)?;
    }
    Ok(())
}

/// For main: the settings the org commands use, with `--database` applied.
pub fn settings(database: Option<String>) -> Settings {
    crate::cli::serve_settings(database)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &[&str]) -> Vec<String> {
        s.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn options_and_words_are_told_apart() {
        let a = Args::parse(&args(&["wake-done", "1,2", "--run", "r1", "--exit=3", "--dry-run", "--result", "ok"]))
            .unwrap();
        assert_eq!(a.words, vec!["wake-done", "1,2"]);
        let r = a.report().unwrap();
        assert_eq!((r.wake.as_str(), r.exit, r.result.as_str()), ("r1", 3, "ok"));
        assert!(a.on("--dry-run"));
        assert_eq!(Args::parse(&args(&["--nope"])).err().unwrap().code, 2);
        assert_eq!(Args::parse(&args(&["--run"])).err().unwrap().code, 2);
        let bad = Args::parse(&args(&["--turns", "many", "--run", "r"])).unwrap();
        assert_eq!(bad.report().unwrap_err().code, 2);
    }
}
