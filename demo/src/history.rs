//! The demo's first day of work: two people ask their agents to remember something, the Support
//! Agent's schedule (the open escalated tickets, daily at 09:00) runs once for nobody, and the
//! nightly job, through the demo model, reads those runs (the scheduled one as shared work), turns
//! them into their lessons and suggests the core lines their owners then Accept or Dismiss.
//! Nothing here is written by hand: it all goes through the runs and the job, as it would in a
//! company.

use engine::learning::nightly::{Nightly, NightlyOutcome};
use engine::runs::schedules::{NewSchedule, When};
use engine::runs::service::{Asker, RunRequest, Runs};
use engine::runs::RunKind;
use engine::store::{Actor, Store};

/// The Support Agent's standing instruction, and when it runs: (agent, owner, instruction, time).
pub const SCHEDULED: (&str, &str, &str, &str) =
    ("Support Agent", "sue", "Summarise the open escalated tickets", "09:00");

/// (person, agent, question): runs with no outside text in them, so the job may suggest core
/// lines from them.
pub const FIRST_DAY: &[(&str, &str, &str)] = &[
    ("sue", "Support Agent", "Remember: refunds over $500 need the team lead's approval before they are promised."),
    ("sam", "Sales Assistant", "Remember for the team: quote prices in INR first, then USD."),
];

/// Asks the first day's questions, then runs the nightly job once. A failure is the caller's to
/// log: the demo serves without its history.
pub async fn seed(store: &dyn Store, runs: &Runs, nightly: &Nightly) -> Result<String, String> {
    let directory = store.directory().await.map_err(|e| e.to_string())?;
    for (login, agent, question) in FIRST_DAY {
        let email = crate::company::demo_email(login);
        let person = directory.people.iter().find(|p| p.email == email).ok_or(format!("{login} is missing"))?;
        let asker = Asker { person: person.clone(), unwatched: false };
        let agent = runs.find_agent(&asker.person, agent).await.map_err(|e| e.to_string())?;
        let started = runs.ask(&asker, agent, question).await.map_err(|e| e.to_string())?;
        runs.answering.execute(started.run).await.map_err(|e| e.to_string())?;
    }
    schedule(store, runs, &directory).await?;
    match nightly.run_now(None).await.map_err(|e| e.to_string())? {
        NightlyOutcome::Ran(report) => Ok(report.summary()),
        NightlyOutcome::AlreadyRan(day) => Ok(format!("the nightly job already ran for {day}")),
        NightlyOutcome::NotDue => Ok("the nightly job was not due".into()),
    }
}

/// Gives the Support Agent its schedule, daily at 09:00 in the company's zone from tomorrow, and
/// answers this morning's run of it (for nobody), so the first night has shared work to read.
async fn schedule(store: &dyn Store, runs: &Runs, directory: &engine::org::Directory) -> Result<(), String> {
    let (agent, owner, instruction, at) = SCHEDULED;
    let email = crate::company::demo_email(owner);
    let owner = directory.people.iter().find(|p| p.email == email).ok_or(format!("{owner} is missing"))?;
    let agent = runs.find_agent(owner, agent).await.map_err(|e| e.to_string())?;
    let zone: chrono_tz::Tz = match store.company().await.map_err(|e| e.to_string())? {
        Some(c) => c.time_zone.as_str().parse().unwrap_or(chrono_tz::UTC),
        None => chrono_tz::UTC,
    };
    let now = chrono::Utc::now();
    let when = When::parse("daily", at).map_err(|e| e.to_string())?;
    let s = NewSchedule { instruction: instruction.into(), when, next_due: when.next_due(zone, now) };
    store.set_schedule(agent, &s, Actor { person: Some(owner.id), at: now }).await.map_err(|e| e.to_string())?;
    let request = RunRequest { kind: RunKind::Schedule, agent, for_person: None, question: instruction.into() };
    let started = runs.start(request).await.map_err(|e| e.to_string())?;
    runs.answering.execute(started.run).await.map_err(|e| e.to_string())?;
    Ok(())
}
