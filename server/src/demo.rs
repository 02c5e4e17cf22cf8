//! The demo company: seeded once into an empty database, never over people's edits.

use chrono::Utc;
use engine::auth::hash_password;
use engine::cores::service::CoreService;
use engine::cores::CoreScope;
use engine::org::{Company, RoleSlug, TimeZoneName};
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
pub async fn seed_if_empty(store: &dyn Store, cores: &CoreService) -> Result<bool, SeedError> {
    if store.company().await.map_err(err)?.is_some() {
        return Ok(false);
    }
    let actor = Actor { person: None, at: Utc::now() };
    store
        .create_company(
            &Company { name: "Acme".to_string(), time_zone: TimeZoneName::parse("Asia/Kolkata").map_err(err)? },
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
    // No cores: people write them. The nightly job has left two suggestions for their owners.
    cores
        .suggest_core_line(
            &CoreScope::Company(RoleSlug::parse("support").map_err(err)?),
            "Refunds over $500 need the team lead's approval before they are promised.",
            "Three refunds over $500 were promised in October and then reversed by a lead.",
            "Decisions by Sue Park on tickets T-1042, T-1057 and T-1090.",
            "nightly job",
        )
        .await
        .map_err(err)?;
    if let Some(t) = team("Sales Bengaluru") {
        cores
            .suggest_core_line(
                &CoreScope::Team(t),
                "Quote prices in INR first, then USD.",
                "Customers in Bengaluru asked for INR in four of the last five proposals.",
                "Decisions by Sam Rao on deals D-311, D-318, D-322 and D-340.",
                "nightly job",
            )
            .await
            .map_err(err)?;
    }
    tracing::info!("seeded the demo company");
    Ok(true)
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::{Path, PathBuf};

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
