//! The `engram` command line.

pub mod agents_cli;
pub mod archive;
pub mod bots_cli;
pub mod erase_cli;
pub mod init;
pub mod jobs_cli;
pub mod memory_audit_cli;
pub mod ops_cli;
pub mod password;
pub mod people_cli;
pub mod run;
pub mod runs_cli;

use crate::settings::{Settings, DEFAULT_DATABASE_URL};
use crate::store::{Backend, PgStore, SqliteStore};
use clap::{Parser, Subcommand};
use engine::cores::{core_status, CoreScope};
use engine::services::Services;
use engine::tokens::meter;
use engine::SystemClock;
use std::io::Write;
use std::sync::Arc;

/// A failed command: the exit code and the sentence for stderr. Every command refuses in this
/// shape: 1 unless a command says otherwise, 2 for bad input the parser could not see, 3 for a
/// rule's refusal where a command's contract says so.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CliError {
    pub code: u8,
    pub message: String,
}

impl CliError {
    /// Any other failure: exit 1 with the reason.
    pub fn failed(e: impl std::fmt::Display) -> Self {
        Self { code: 1, message: e.to_string() }
    }
}

/// `engram`: serves Engram, or runs one command against its database.
#[derive(Debug, Parser)]
#[command(
    name = "engram",
    about = "Engram: the company's memory, its people's cards and its bots' memory",
    after_help = "The database defaults to $ENGRAM_DATABASE_URL, else sqlite://data/engram.db."
)]
pub struct Cli {
    /// The database, sqlite://… or postgres://…
    #[arg(long, global = true, value_name = "URL")]
    pub database: Option<String>,
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// One variant, and one match arm in `Cli::run`, per command.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve Engram (the default)
    Serve,
    /// Seed the demo company if the database is empty, then serve it with its Acme ATS
    Demo,
    /// Read the company's memory; read-only
    #[command(subcommand)]
    Memory(Memory),
    /// The secret key that seals connector keys
    #[command(subcommand)]
    Keys(Keys),
    /// The timed jobs, run once by hand
    #[command(subcommand)]
    Jobs(crate::cli::jobs_cli::Jobs),
    /// The bots' wakes, episodes and memory
    Org(crate::cli::bots_cli::OrgArgs),
    /// How a company agent runs unasked: its schedule, pause and trigger
    Agents(crate::cli::agents_cli::AgentsArgs),
    /// What memory costs, for operators
    #[command(subcommand)]
    Ops(crate::cli::ops_cli::Ops),
    /// Write the whole organisation as an archive file, read-only; no keys, passwords, tokens or
    /// sessions
    Export {
        /// The archive file to write
        #[arg(long, value_name = "FILE")]
        to: std::path::PathBuf,
    },
    /// Load an archive into an empty database (SQLite or PostgreSQL); everyone then sets a new
    /// password
    Import {
        /// The archive file to load
        #[arg(value_name = "FILE")]
        from: std::path::PathBuf,
    },
    /// Ask one of the company's agents as a person; prints the answer and the Memory used lines
    Ask {
        /// The person asking, by email or the part before the @
        #[arg(long = "as", value_name = "PERSON")]
        who: String,
        /// The agent, by name ("Sales Assistant") or id
        agent: String,
        /// The question
        question: String,
    },
    /// Set up an empty database: the company and its first admin. The password is read from
    /// stdin, or from a prompt that does not echo it
    Init {
        /// The company's name
        #[arg(long, value_name = "NAME")]
        company: String,
        /// The company's time zone, an IANA name such as Asia/Kolkata
        #[arg(long, value_name = "ZONE")]
        zone: String,
        /// How numbers, amounts and dates read to people, a locale name such as en-IN; en-US
        /// when left out
        #[arg(long, value_name = "LOCALE", default_value = "")]
        locale: String,
        /// The first admin's email
        #[arg(long, value_name = "EMAIL")]
        admin: String,
        /// The first admin's name; without it, made from the email ("ada.lovelace@…" is Ada Lovelace)
        #[arg(long, value_name = "NAME")]
        name: Option<String>,
    },
    /// People: import them from a CSV file
    People(crate::cli::people_cli::PeopleArgs),
    /// Set a person's password to the first line of stdin
    Password {
        /// The person's email
        email: String,
    },
    /// Erase a third party's email address or phone number from memory: every card, list
    /// snapshot, lesson and who's-who entry naming it, in any spelling. Cannot be undone
    Erase {
        /// The email address or phone number; without it, the first line of stdin, which keeps
        /// it out of the shell's history
        value: Option<String>,
        /// The admin the erasure is made as, by email; the host's operator when left out
        #[arg(long = "as", value_name = "ADMIN")]
        who: Option<String>,
    },
}

/// `engram keys …`.
#[derive(Debug, Clone, PartialEq, Eq, Subcommand)]
pub enum Keys {
    /// Re-seal every connector key under a new secret key; the new key replaces the key file, or
    /// is printed once for ENGRAM_SECRET_KEY
    Rotate,
}

/// `engram memory …`: each opens the database read-only and changes nothing, except `audit`.
#[derive(Debug, Clone, PartialEq, Eq, Subcommand)]
pub enum Memory {
    /// Audit a bot's MEMORY.md and USER.md, or a Hermes memories folder (seed 004); writes unless --dry-run
    Audit(crate::cli::memory_audit_cli::AuditArgs),
    /// Each role's company core
    Roles,
    /// One core's text, version and who saved it
    Core {
        /// company:role:<role> or team:<id>
        scope: String,
    },
    /// The cards kept for a person's work, one line each; with --person, counts only
    Cards {
        /// The person asking, by email or the part before the @
        #[arg(long = "as", value_name = "PERSON")]
        who: String,
        /// Whose cards to count: what they say is theirs alone
        #[arg(long, value_name = "PERSON")]
        person: Option<String>,
    },
    /// Your own lessons, one line each; with --person, counts only
    Lessons {
        /// The person asking, by email or the part before the @
        #[arg(long = "as", value_name = "PERSON")]
        who: String,
        /// Whose lessons to count: what they say is theirs alone
        #[arg(long, value_name = "PERSON")]
        person: Option<String>,
    },
}

/// Runs a memory command against the database, which it opens read-only and never changes.
pub async fn run_memory(command: &Memory, database: Option<String>, out: &mut impl Write) -> Result<(), String> {
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
    let services =
        Services::build(store, Arc::new(SystemClock), crate::startup::reading_adapters(&Settings::from_env()));
    if let Memory::Cards { who, person } = command {
        return cards(&services, who, person.as_deref(), out).await;
    }
    if let Memory::Lessons { who, person } = command {
        return lessons(&services, who, person.as_deref(), out).await;
    }
    let Services { org, cores, .. } = services;
    let w = |e: std::io::Error| e.to_string();
    match command {
        Memory::Roles => {
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
        Memory::Core { scope: key } => {
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
        Memory::Cards { .. } | Memory::Lessons { .. } => unreachable!("answered above"),
        Memory::Audit(_) => return Err("engram memory audit writes; it runs through memory_audit_cli".into()),
    }
    Ok(())
}

/// A person named by email or by the part before the @.
pub(crate) async fn find_person(store: &dyn engine::store::Store, who: &str) -> Result<engine::org::Person, String> {
    // A bounded read whatever the organisation's size: the people whose email starts with the
    // login and its `@` (or is the email given), a few at most, rather than everyone.
    let who = who.trim();
    let wanted = |p: &engine::org::Person| {
        p.email.eq_ignore_ascii_case(who) || p.email.split('@').next().is_some_and(|l| l.eq_ignore_ascii_case(who))
    };
    let start = if who.contains('@') { who.to_string() } else { format!("{who}@") };
    let found = match engine::org::listing::PrefixSearch::parse(&start) {
        Some(search) if !who.is_empty() => store.people_page(Some(&search), 0, 20).await.map_err(|e| e.to_string())?,
        _ => Vec::new(),
    };
    found.into_iter().find(wanted).ok_or_else(|| format!("There is no person called {who}"))
}

/// The person a memory command acts as: named, and not someone who left.
async fn acting_person(store: &dyn engine::store::Store, who: &str) -> Result<engine::org::Person, String> {
    let me = find_person(store, who).await?;
    if me.left_at.is_some() {
        return Err(format!("{} has left and can no longer act here", me.name));
    }
    Ok(me)
}

async fn cards(services: &Services, who: &str, person: Option<&str>, out: &mut impl Write) -> Result<(), String> {
    let store = services.store.as_ref();
    let me = &acting_person(store, who).await?;
    let memory = &services.memory;
    let w = |e: std::io::Error| e.to_string();
    match person {
        // Only the person reads their cards; anyone else (an admin) gets counts.
        Some(other) if !find_person(store, other).await?.id.eq(&me.id) => {
            let them = &find_person(store, other).await?;
            let line = memory.mine.counts_sentence(me, them).await.map_err(|e| e.to_string())?;
            writeln!(out, "{line}").map_err(w)?;
        }
        _ => {
            let cards = memory.mine.my_cards_read_only(me).await.map_err(|e| e.to_string())?;
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

async fn lessons(services: &Services, who: &str, person: Option<&str>, out: &mut impl Write) -> Result<(), String> {
    let store = services.store.as_ref();
    let me = &acting_person(store, who).await?;
    let lessons = &services.lessons;
    let w = |e: std::io::Error| e.to_string();
    match person {
        // Only the person reads their lessons; anyone else (an admin) gets counts.
        Some(other) if find_person(store, other).await?.id != me.id => {
            let line =
                lessons.counts_sentence(me, &find_person(store, other).await?).await.map_err(|e| e.to_string())?;
            writeln!(out, "{line}").map_err(w)?;
        }
        _ => {
            let now = chrono::Utc::now();
            let own = lessons.own(me).await.map_err(|e| e.to_string())?;
            if own.is_empty() {
                writeln!(out, "{} has no lessons kept", me.name).map_err(w)?;
            }
            for l in own {
                let state = if l.in_use(now) { "in use".to_string() } else { l.state.words().to_string() };
                writeln!(out, "#{} {} · {state} · {}", l.id, l.scope.kind(), l.text).map_err(w)?;
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

/// Where the demo keeps its bots' vault: where `ENGRAM_VAULT` says, else beside a database file.
/// A database that is not a file has no "beside", so there `ENGRAM_VAULT` is required.
pub fn demo_vault(vault: Option<&std::path::Path>, database_url: &str) -> Result<std::path::PathBuf, String> {
    if let Some(v) = vault {
        return Ok(v.to_path_buf());
    }
    let backend = crate::store::Backend::of(database_url).map_err(|e| e.to_string())?;
    let is_file = backend == crate::store::Backend::Sqlite && !database_url.contains(":memory:");
    if !is_file {
        return Err("engram demo needs ENGRAM_VAULT, the folder for the demo bots' files, \
                    when the database is not a file"
            .to_string());
    }
    Ok(vault_beside(database_url))
}

/// The demo keeps its vault next to its database: ./data/vault beside ./data/engram.db.
pub fn vault_beside(database_url: &str) -> std::path::PathBuf {
    let path = database_url.strip_prefix("sqlite://").unwrap_or(database_url).split('?').next().unwrap_or("");
    std::path::Path::new(path)
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."))
        .join("vault")
}

/// What a command that writes works with: the unlocked store, and the settings with the demo's
/// scripted model in place when the database is the demo company and no provider is set up. The
/// demo model's task lives as long as the command holds it.
pub struct Opened {
    pub store: Arc<dyn engine::store::Store>,
    pub settings: Settings,
    pub demo_model: Option<tokio::task::JoinHandle<std::io::Result<()>>>,
}

pub async fn open_for_command(settings: &Settings) -> Result<Opened, String> {
    let mut settings = settings.clone();
    let opened = crate::store::AnyStore::open(&settings.database_url).await.map_err(|e| e.to_string())?;
    let now = engine::Clock::now(&SystemClock);
    let (opened, _) = crate::secrets::unlock_store(opened, &settings.secret_key, &settings.database_url, now)
        .await
        .map_err(|e| e.to_string())?;
    let store = opened.shared();
    let demo_model = if crate::adapters::agent_model::wants_demo_model(&settings.models)
        && demo::company::is_demo(store.as_ref()).await
    {
        let (url, task) = demo::model::spawn(0).await.map_err(|e| format!("could not start the demo model: {e}"))?;
        crate::adapters::agent_model::use_demo_model(&mut settings.models, &url);
        Some(task)
    } else {
        None
    };
    Ok(Opened { store, settings, demo_model })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::{Path, PathBuf};

    fn parse(s: &str) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("engram").chain(s.split_whitespace()))
    }

    #[test]
    fn parses_commands() {
        assert!(parse("").unwrap().command.is_none());
        assert!(matches!(parse("demo").unwrap().command, Some(Command::Demo)));
        let cli = parse("memory core company:role:sales --database sqlite://x.db").unwrap();
        assert!(matches!(cli.command, Some(Command::Memory(Memory::Core { scope })) if scope == "company:role:sales"));
        assert_eq!(cli.database.as_deref(), Some("sqlite://x.db"));
        let cli = parse("--database=sqlite://y.db memory cards --as alice").unwrap();
        assert_eq!(cli.database.as_deref(), Some("sqlite://y.db"));
        assert!(matches!(cli.command, Some(Command::Memory(Memory::Cards { who, person: None })) if who == "alice"));
        let cli = parse("memory lessons --as ada --person alice").unwrap();
        assert!(
            matches!(cli.command, Some(Command::Memory(Memory::Lessons { who, person: Some(p) })) if who == "ada" && p == "alice")
        );
        assert!(matches!(parse("keys rotate").unwrap().command, Some(Command::Keys(Keys::Rotate))));
        use crate::cli::agents_cli::{AgentsCommand, ScheduleCommand, TriggerCommand};
        let cli = parse("agents schedule set --as sue 7 daily 09:00 Summarise").unwrap();
        assert!(matches!(
            cli.command,
            Some(Command::Agents(a)) if matches!(&a.command, AgentsCommand::Schedule(ScheduleCommand::Set { target, kind, value, instruction })
                if target.who == "sue" && target.agent == "7" && kind == "daily" && value == "09:00" && instruction == "Summarise")
        ));
        let cli = parse("agents trigger rotate --as ada 7").unwrap();
        assert!(matches!(
            cli.command,
            Some(Command::Agents(a)) if matches!(&a.command, AgentsCommand::Trigger(TriggerCommand::Rotate(t)) if t.who == "ada")
        ));
        assert!(matches!(
            parse("erase dana@litware.example --as ada").unwrap().command,
            Some(Command::Erase { value: Some(v), who: Some(w) }) if v == "dana@litware.example" && w == "ada"
        ));
        assert!(matches!(parse("erase").unwrap().command, Some(Command::Erase { value: None, who: None })));
        assert!(
            matches!(parse("export --to org.jsonl").unwrap().command, Some(Command::Export { to }) if to == Path::new("org.jsonl"))
        );
        assert!(
            matches!(parse("import org.jsonl").unwrap().command, Some(Command::Import { from }) if from == Path::new("org.jsonl"))
        );
        assert!(
            matches!(parse("password ada@acme.example").unwrap().command, Some(Command::Password { email }) if email == "ada@acme.example")
        );
        use crate::cli::ops_cli::Ops;
        assert!(matches!(parse("ops report").unwrap().command, Some(Command::Ops(Ops::Report { json: false }))));
        assert!(matches!(parse("ops report --json").unwrap().command, Some(Command::Ops(Ops::Report { json: true }))));
        for bad in [
            "memory",
            "--nope",
            "memory cards",
            "memory lessons",
            "nope",
            "keys",
            "export",
            "import",
            "password",
            "ops",
            "ops report --yaml",
            "agents",
            "agents schedule set --as sue 7 daily 09:00",
            "agents trigger make 7",
        ] {
            assert_eq!(parse(bad).unwrap_err().exit_code(), 2, "{bad}");
        }
    }

    #[test]
    fn the_demo_vault_is_beside_a_file_where_engram_vault_does_not_say() {
        assert_eq!(demo_vault(None, "sqlite://data/engram.db").unwrap(), PathBuf::from("data/vault"));
        assert_eq!(demo_vault(Some(Path::new("/v")), "sqlite://data/engram.db").unwrap(), PathBuf::from("/v"));
        assert_eq!(demo_vault(Some(Path::new("/v")), "postgres://h/engram").unwrap(), PathBuf::from("/v"));
    }

    #[test]
    fn an_unknown_database_is_refused_before_the_vault_is_asked_for() {
        let e = demo_vault(None, "mysql://h/engram").unwrap_err();
        assert!(e.starts_with("the database URL must begin with sqlite://"), "{e}");
    }

    #[test]
    fn a_database_that_is_not_a_file_needs_engram_vault() {
        for url in ["postgres://h/engram", "postgresql://h/engram", "sqlite::memory:"] {
            let e = demo_vault(None, url).unwrap_err();
            assert_eq!(
                e,
                "engram demo needs ENGRAM_VAULT, the folder for the demo bots' files, when the database is not a file"
            );
        }
    }
}
