//! The demo's first day of work: two people ask their agents to remember something, and the
//! nightly job, through the demo model, turns those runs into their lessons and suggests the
//! core lines their owners then Accept or Dismiss. Nothing here is written by hand: it all goes
//! through the runs and the job, as it would in a company.

use engine::learning::nightly::{Nightly, NightlyOutcome};
use engine::runs::service::{Asker, Runs};
use engine::store::Store;

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
    match nightly.run_now(None).await.map_err(|e| e.to_string())? {
        NightlyOutcome::Ran(report) => Ok(report.summary()),
        NightlyOutcome::AlreadyRan(day) => Ok(format!("the nightly job already ran for {day}")),
        NightlyOutcome::NotDue => Ok("the nightly job was not due".into()),
    }
}
