//! What the demo's Sales role has already written down, for Draft from what exists: the Sales
//! Assistant's playbook, the Acme ATS connector's notes for agents and a short glossary Ada
//! agreed for the company.

use crate::company::demo_email;
use engine::lessons::{LessonScope, NewLesson};
use engine::store::{Actor, Store};
use engine::Clock;

pub const SALES_PLAYBOOK: &str = "\
Greet the buyer by name and confirm which company they speak for.
Quote in INR first, and in USD only when asked.
Read a lead's stage from the Acme ATS before every follow-up; never quote it from memory.
Log each call's outcome on the lead the same day.";

pub const ATS_NOTES: &str = "\
Lead ids look like L-1001; each lead names its owner by email.
A lead's stage moves often: read it again before acting on it.";

/// Company knowledge a person wrote and accepted: the glossary.
pub const GLOSSARY: [&str; 3] = [
    "ACV means annual contract value, counted in INR before tax.",
    "A deal counts as Won only once the contract is signed.",
    "Discounts above 10% require a second signature from Finance.",
];

/// Writes the playbook, the notes (when the connector is there) and the glossary, as Ada.
pub async fn seed(store: &dyn Store, clock: &dyn Clock) -> Result<(), String> {
    let e = |e: engine::store::StoreError| e.to_string();
    let dir = store.directory().await.map_err(e)?;
    let ada = dir.people.iter().find(|p| p.email == demo_email("ada")).ok_or("no admin")?;
    let actor = Actor { person: Some(ada.id), at: clock.now() };
    let sales = dir.agents.iter().find(|a| a.name == "Sales Assistant").ok_or("no Sales Assistant")?;
    store.save_playbook(sales.id, SALES_PLAYBOOK, actor).await.map_err(e)?;
    if let Some(ats) = store.connectors().await.map_err(e)?.iter().find(|c| c.name == crate::cards::CONNECTOR_NAME) {
        store.save_connector_notes(ats.id, ATS_NOTES, actor).await.map_err(e)?;
    }
    for text in GLOSSARY {
        // An admin wrote and accepted it for the company.
        let lesson = NewLesson::in_own_words(ada.id, LessonScope::Company, text.into(), clock.now());
        store.add_lesson(&lesson, actor).await.map_err(e)?;
    }
    Ok(())
}
