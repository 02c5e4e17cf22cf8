//! The demo company: seeded once into an empty database, never over people's edits.

use chrono::Utc;
use engine::auth::hash_password;
use engine::org::{Company, LocaleName, RoleSlug, TimeZoneName};
use engine::store::{Actor, NewAgent, NewPerson, Store};

pub const DEMO_PASSWORD: &str = "engram-demo";

/// The demo's people: (login, name, team, admin).
pub const DEMO_PEOPLE: &[(&str, &str, Option<&str>, bool)] = &[
    ("ada", "Ada Lovelace", Some("Founders' Office"), true),
    ("alice", "Alice Chen", Some("Sales Bengaluru"), false),
    ("sam", "Sam Rao", Some("Sales Bengaluru"), false),
    ("sue", "Sue Park", Some("Support Desk"), false),
    ("bob", "Bob Diaz", Some("Support Desk"), false),
    ("eli", "Eli Novak", Some("Platform"), false),
    ("eve", "Eve Moreau", Some("Platform"), false),
];

/// Whether the database holds the demo company: its name and its admin, as the demo seeds them.
pub async fn is_demo(store: &dyn Store) -> bool {
    let named = matches!(store.company().await, Ok(Some(c)) if c.name == "Acme");
    named && matches!(store.credentials(&demo_email("ada")).await, Ok(Some(_)))
}

pub fn demo_email(login: &str) -> String {
    format!("{login}@acme.example")
}

#[derive(Debug, thiserror::Error)]
#[error("could not seed the demo company: {0}")]
pub struct SeedError(String);

fn err(e: impl std::fmt::Display) -> SeedError {
    SeedError(e.to_string())
}

/// Seeds the demo company if the database has no company yet. Returns whether it seeded.
pub async fn seed_if_empty(store: &dyn Store) -> Result<bool, SeedError> {
    if store.company().await.map_err(err)?.is_some() {
        return Ok(false);
    }
    let actor = Actor { person: None, at: Utc::now() };
    store
        .create_company(
            &Company {
                name: "Acme".to_string(),
                time_zone: TimeZoneName::parse("Asia/Kolkata").map_err(err)?,
                // Acme sells in rupees: its deal values read "₹18,50,000".
                locale: LocaleName::parse("en-IN").map_err(err)?,
            },
            actor,
        )
        .await
        .map_err(err)?;
    let mut roles = Vec::new();
    for name in ["Engineering", "Finance", "Marketing", "Sales", "Support"] {
        let slug = RoleSlug::from_name(name).map_err(err)?;
        roles.push(store.create_role(&slug, name, engine::cores::COMPANY_CORE_LIMIT, actor).await.map_err(err)?);
    }
    let role = |name: &str| roles.iter().find(|r| r.name == name).map(|r| r.id);
    let mut teams = Vec::new();
    for (name, r) in [
        ("Sales Bengaluru", role("Sales")),
        ("Support Desk", role("Support")),
        ("Platform", role("Engineering")),
        ("Founders' Office", None),
    ] {
        teams.push(store.create_team(name, r, actor).await.map_err(err)?);
    }
    let team = |name: &str| teams.iter().find(|t| t.name == name).map(|t| t.id);
    let mut people = Vec::new();
    for (login, name, team_name, admin) in DEMO_PEOPLE {
        let hash = hash_password(DEMO_PASSWORD.to_string()).await.map_err(err)?;
        let p = NewPerson {
            name: name.to_string(),
            email: demo_email(login),
            password_hash: hash,
            is_admin: *admin,
            main_team: team_name.and_then(team),
        };
        people.push(store.create_person(&p, actor).await.map_err(err)?);
    }
    let person = |login: &str| people.iter().find(|p| p.email == demo_email(login)).map(|p| p.id);
    for (t, lead) in [("Sales Bengaluru", "sam"), ("Support Desk", "sue"), ("Platform", "eli")] {
        if let Some(t) = team(t) {
            store.set_team_lead(t, person(lead), actor).await.map_err(err)?;
        }
    }
    let ada = person("ada").ok_or_else(|| err("ada missing"))?;
    for (name, template, r, owner) in [
        ("Sales Assistant", "sales pack", role("Sales"), ada),
        ("Support Agent", "support pack", role("Support"), person("sue").unwrap_or(ada)),
    ] {
        let a = NewAgent { name: name.to_string(), template: template.to_string(), role: r, owner, team_copy: None };
        store.create_agent(&a, actor).await.map_err(err)?;
    }
    // No cores and no suggestions: people write cores, and the nightly job suggests lines from
    // the demo's first day of work (`history.rs`).
    tracing::info!("seeded the demo company");
    Ok(true)
}
