//! The `engram` command line.

use crate::settings::{Settings, DEFAULT_DATABASE_URL};
use crate::store::{Backend, PgStore, SqliteStore};
use engine::cores::service::CoreService;
use engine::cores::{core_status, CoreScope};
use engine::org::service::OrgService;
use engine::tokens::meter;
use engine::SystemClock;
use std::io::Write;
use std::sync::Arc;

pub const USAGE: &str = "\
usage:
  engram [serve] [--database URL]           serve Engram
  engram demo [--database URL]              seed the demo company if the database is empty, then serve
  engram memory roles [--database URL]      each role's company core, read-only
  engram memory core <scope> [--database URL]
                                            one core's text, version and who saved it, read-only;
                                            <scope> is company:role:<role> or team:<id>
  engram memory cards --as <person>         the cards kept for that person's work, one line each,
                                            read-only
  engram memory cards --person <person> --as <admin>
                                            counts only: what they say is theirs alone, read-only
  engram keys rotate [--database URL]       re-seal every connector key under a new secret key; the new key
                                            replaces the key file, or is printed once for ENGRAM_SECRET_KEY
  engram org …                              the bots' wakes, episodes and memory (engram org --help)
  engram export --to FILE [--database URL]  the whole organisation as an archive file, read-only;
                                            no keys, passwords, tokens or sessions
  engram import FILE [--database URL]       load an archive into an empty database (SQLite or
                                            PostgreSQL); everyone then sets a new password
  engram password <email> [--database URL]  set that person's password to the first line of stdin

The database defaults to $ENGRAM_DATABASE_URL, else sqlite://data/engram.db.";

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    Serve { demo: bool },
    MemoryRoles,
    MemoryCore(String),
    MemoryCards { who: String, person: Option<String> },
    KeysRotate,
    Export { to: String },
    Import { from: String },
    Password { email: String },
    Help,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invocation {
    pub command: Command,
    pub database: Option<String>,
}

/// Parses the arguments after the program name.
pub fn parse(args: &[String]) -> Result<Invocation, String> {
    let mut database = None;
    let mut who = None;
    let mut person = None;
    let mut to = None;
    let mut words = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--database" => database = Some(it.next().ok_or("--database needs a URL")?.clone()),
            "--as" => who = Some(it.next().ok_or("--as needs a person")?.clone()),
            "--person" => person = Some(it.next().ok_or("--person needs a person")?.clone()),
            "--to" => to = Some(it.next().ok_or("--to needs a file")?.clone()),
            s if s.starts_with("--database=") => database = Some(s["--database=".len()..].to_string()),
            "-h" | "--help" => words.push("help".to_string()),
            s if s.starts_with('-') => return Err(format!("unknown option {s}")),
            s => words.push(s.to_string()),
        }
    }
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    let command = match words.as_slice() {
        [] | ["serve"] => Command::Serve { demo: false },
        ["demo"] => Command::Serve { demo: true },
        ["memory", "roles"] => Command::MemoryRoles,
        ["memory", "core", scope] => Command::MemoryCore(scope.to_string()),
        ["memory", "cards"] => {
            Command::MemoryCards { who: who.clone().ok_or("memory cards needs --as <person>")?, person: person.clone() }
        }
        ["keys", "rotate"] => Command::KeysRotate,
        ["export"] => Command::Export { to: to.clone().ok_or("export needs --to FILE")? },
        ["import", from] => Command::Import { from: from.to_string() },
        ["import"] => return Err("import needs the archive FILE".to_string()),
        ["password", email] => Command::Password { email: email.to_string() },
        ["help"] => Command::Help,
        other => return Err(format!("unknown command: {}", other.join(" "))),
    };
    Ok(Invocation { command, database })
}

/// Runs a memory command against the database, which it opens read-only and never changes.
pub async fn run_memory(command: &Command, database: Option<String>, out: &mut impl Write) -> Result<(), String> {
    let url = database
        .or_else(|| std::env::var("ENGRAM_DATABASE_URL").ok())
        .unwrap_or_else(|| DEFAULT_DATABASE_URL.to_string());
    let backend = Backend::of(&url).map_err(|e| e.to_string())?;
    let path = match backend {
        Backend::Sqlite => url.strip_prefix("sqlite://").unwrap_or(&url).split('?').next().unwrap_or(""),
        Backend::Postgres => "the PostgreSQL database",
    };
    if backend == Backend::Sqlite && !std::path::Path::new(path).exists() {
        return Err(format!("There is no database at {path}; start Engram (or the demo) first."));
    }
    // Every memory command reads only: no migration, no clean-up of what a read would remove.
    let store: Arc<dyn engine::store::Store> = match backend {
        Backend::Sqlite => {
            Arc::new(SqliteStore::open_read_only(&url).await.map_err(|e| format!("could not open {path}: {e}"))?)
        }
        Backend::Postgres => {
            Arc::new(PgStore::open_read_only(&url).await.map_err(|e| format!("could not open {path}: {e}"))?)
        }
    };
    if let Command::MemoryCards { who, person } = command {
        return cards(store, who, person.as_deref(), out).await;
    }
    let org = OrgService::new(store.clone(), Arc::new(SystemClock));
    let cores = CoreService::new(store, Arc::new(SystemClock));
    let w = |e: std::io::Error| e.to_string();
    match command {
        Command::MemoryRoles => {
            let dir = org.directory().await.map_err(|e| e.to_string())?;
            for role in &dir.roles {
                let (_, current) =
                    cores.current_core(&CoreScope::Company(role.slug.clone())).await.map_err(|e| e.to_string())?;
                let status = core_status(
                    "company core",
                    current.as_ref().map(|c| c.version),
                    current.as_ref().map(|c| c.tokens).unwrap_or(0),
                    role.company_core_limit,
                );
                writeln!(out, "{} ({}): {status}", role.name, role.slug).map_err(w)?;
            }
        }
        Command::MemoryCore(key) => {
            let scope = CoreScope::parse(key).map_err(|e| e.to_string())?;
            let (subject, current) = cores.current_core(&scope).await.map_err(|e| e.to_string())?;
            match current {
                Some(c) => {
                    writeln!(
                        out,
                        "{}, version {}, saved by {} on {} ({})",
                        subject.title(),
                        c.version,
                        c.author,
                        c.saved_at.format("%Y-%m-%d %H:%M UTC"),
                        meter(c.tokens, subject.limit())
                    )
                    .map_err(w)?;
                    writeln!(out, "{}", c.text).map_err(w)?;
                }
                None => writeln!(
                    out,
                    "{}: {}",
                    subject.title(),
                    core_status(
                        if matches!(scope, CoreScope::Team(_)) { "team core" } else { "company core" },
                        None,
                        0,
                        subject.limit()
                    )
                )
                .map_err(w)?,
            }
        }
        _ => return Err("not a memory command".to_string()),
    }
    Ok(())
}

/// A person named by email or by the part before the @.
fn find_person<'a>(dir: &'a engine::org::Directory, who: &str) -> Result<&'a engine::org::Person, String> {
    dir.people
        .iter()
        .find(|p| {
            p.email.eq_ignore_ascii_case(who) || p.email.split('@').next().is_some_and(|l| l.eq_ignore_ascii_case(who))
        })
        .ok_or_else(|| format!("There is no person called {who}"))
}

async fn cards(
    store: Arc<dyn engine::store::Store>,
    who: &str,
    person: Option<&str>,
    out: &mut impl Write,
) -> Result<(), String> {
    use engine::cards::service::PersonMemory;
    let dir = store.directory().await.map_err(|e| e.to_string())?;
    let me = find_person(&dir, who)?;
    if me.left_at.is_some() {
        return Err(format!("{} has left and can no longer act here", me.name));
    }
    let memory =
        PersonMemory::new(store.clone(), Arc::new(SystemClock), Arc::new(crate::connector::HttpSource::default()));
    let w = |e: std::io::Error| e.to_string();
    match person {
        // Only the person reads their cards; anyone else (an admin) gets counts.
        Some(other) if !find_person(&dir, other)?.id.eq(&me.id) => {
            let them = find_person(&dir, other)?;
            let line = memory.counts_sentence(me, them).await.map_err(|e| e.to_string())?;
            writeln!(out, "{line}").map_err(w)?;
        }
        _ => {
            let cards = memory.my_cards_read_only(me).await.map_err(|e| e.to_string())?;
            if cards.is_empty() {
                writeln!(out, "{} has no cards kept", me.name).map_err(w)?;
            }
            for c in cards {
                let values = c
                    .fields
                    .iter()
                    .filter(|f| !f.free_text)
                    .map(|f| format!("{}: {}", f.name, f.value))
                    .collect::<Vec<_>>()
                    .join("; ");
                let pin = if c.pinned { " (pinned)" } else { "" };
                writeln!(out, "#{} {} {} · {values}{pin}", c.card, c.record_id, c.line).map_err(w)?;
            }
        }
    }
    Ok(())
}

/// The database a command names, else `$ENGRAM_DATABASE_URL`, else the default file.
pub fn database_url(database: Option<String>) -> String {
    database.or_else(|| std::env::var("ENGRAM_DATABASE_URL").ok()).unwrap_or_else(|| DEFAULT_DATABASE_URL.to_string())
}

/// The settings for serving, with the database chosen on the command line if given.
pub fn serve_settings(database: Option<String>) -> Settings {
    let mut settings = Settings::from_env();
    if let Some(db) = database {
        settings.database_url = db;
    }
    settings
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn parses_commands() {
        assert_eq!(parse(&args("")).unwrap().command, Command::Serve { demo: false });
        assert_eq!(parse(&args("demo")).unwrap().command, Command::Serve { demo: true });
        let inv = parse(&args("memory core company:role:sales --database sqlite://x.db")).unwrap();
        assert_eq!(inv.command, Command::MemoryCore("company:role:sales".into()));
        assert_eq!(inv.database.as_deref(), Some("sqlite://x.db"));
        assert_eq!(parse(&args("keys rotate")).unwrap().command, Command::KeysRotate);
        assert!(parse(&args("memory")).is_err());
        assert!(parse(&args("keys")).is_err());
        assert!(parse(&args("--nope")).is_err());
        let inv = parse(&args("export --to org.jsonl --database sqlite://x.db")).unwrap();
        assert_eq!(inv.command, Command::Export { to: "org.jsonl".into() });
        assert_eq!(parse(&args("import org.jsonl")).unwrap().command, Command::Import { from: "org.jsonl".into() });
        assert_eq!(parse(&args("export")).unwrap_err(), "export needs --to FILE");
        assert_eq!(parse(&args("import")).unwrap_err(), "import needs the archive FILE");
        let inv = parse(&args("password ada@acme.example")).unwrap();
        assert_eq!(inv.command, Command::Password { email: "ada@acme.example".into() });
    }
}
