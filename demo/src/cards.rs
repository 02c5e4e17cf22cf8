//! The demo's connected system: the Acme ATS connector with confirmed record shapes, each role's
//! "my work" queries, and the first cards, kept through the real pipeline (a read as each person).

use crate::acme_ats::AtsConfig;
use crate::company::demo_email;
use engine::cards::access::DataLabel;
use engine::cards::service::PersonMemory;
use engine::cards::source::{FactLimits, Freshness, KeyMode, RecordShape, ShapeField};
use engine::cards::store::{MyWorkQuery, NewCard, NewConnector, OpenWhen, PrepareSetting};
use engine::org::{PersonId, RoleId, RoleSlug};
use engine::store::{Actor, Store};
use engine::Clock;
use std::sync::Arc;

pub const CONNECTOR_NAME: &str = "Acme ATS";

fn fields(list: &[(&str, bool)]) -> Vec<ShapeField> {
    list.iter().map(|(n, free)| ShapeField::new(n.to_string(), *free)).collect()
}

/// The shapes an admin confirmed on the setup sheet, with what makes a record open work.
pub fn shapes(connector: i64) -> Vec<(RecordShape, Option<OpenWhen>)> {
    let lead = fields(&[
        ("company", false),
        ("contact_name", false),
        ("stage", false),
        ("value_inr", false),
        ("next_follow_up", false),
        ("city", false),
        ("notes", true),
    ]);
    let ticket =
        fields(&[("subject", true), ("customer", false), ("status", false), ("priority", false), ("body", true)]);
    let contact = fields(&[("name", false), ("email", false), ("phone", false), ("company", false), ("title", false)]);
    let deal = OpenWhen { field: "stage".into(), values: vec!["Proposal".into()] };
    let escalated = OpenWhen { field: "status".into(), values: vec!["escalated".into()] };
    let shape = |tool: &str, kind: &str, f: &[ShapeField], get: &str| RecordShape {
        connector,
        tool: tool.into(),
        kind: kind.into(),
        id_field: "id".into(),
        version_field: Some("updated_at".into()),
        fields: f.to_vec(),
        get_tool: get.into(),
        confirmed: true,
    };
    vec![
        (shape("list_leads", "lead", &lead, "get_lead"), Some(deal.clone())),
        (shape("get_lead", "lead", &lead, "get_lead"), Some(deal.clone())),
        (shape("search_leads", "lead", &lead, "get_lead"), Some(deal)),
        (shape("list_tickets", "ticket", &ticket, "get_ticket"), Some(escalated.clone())),
        (shape("get_ticket", "ticket", &ticket, "get_ticket"), Some(escalated)),
        (shape("list_contacts", "contact", &contact, "get_contact"), None),
        (shape("get_contact", "contact", &contact, "get_contact"), None),
    ]
}

pub const TICKED: [&str; 7] =
    ["list_leads", "get_lead", "search_leads", "list_tickets", "get_ticket", "list_contacts", "get_contact"];

/// Sets up the connector to the demo source at `base_url`, and keeps the first cards.
pub async fn seed(
    store: &dyn Store,
    memory: &PersonMemory,
    clock: Arc<dyn Clock>,
    base_url: &str,
) -> Result<(), String> {
    let e = |e: engine::store::StoreError| e.to_string();
    let dir = store.directory().await.map_err(e)?;
    let ada = dir.people.iter().find(|p| p.email == demo_email("ada")).ok_or("no admin")?.clone();
    let actor = Actor { person: Some(ada.id), at: clock.now() };
    let config = AtsConfig::demo();
    let connector = store
        .create_connector(
            &NewConnector {
                name: CONNECTOR_NAME.into(),
                base_url: base_url.into(),
                key_mode: KeyMode::Company,
                ticked: TICKED.iter().map(|t| t.to_string()).collect(),
                label: DataLabel::Internal,
                admits_roles: vec![],
                keep_cards: true,
                // Cards seeded days ago still load; a stage past its hour is checked after the answer.
                facts: FactLimits {
                    reference: Freshness { soft_mins: 24 * 60, hard_mins: 30 * 24 * 60 },
                    state: Freshness { soft_mins: 60, hard_mins: 14 * 24 * 60 },
                    moving: Freshness { soft_mins: 15, hard_mins: 14 * 24 * 60 },
                },
                free_text: Freshness { soft_mins: 30, hard_mins: 7 * 24 * 60 },
                hourly_limit: 600,
            },
            Some(&config.company_key),
            actor,
        )
        .await
        .map_err(e)?;
    // The Sales Assistant may be given internal cards; the Support Agent's model only public ones.
    for (name, cleared) in [("Sales Assistant", DataLabel::Internal), ("Support Agent", DataLabel::Public)] {
        if let Some(a) = dir.agents.iter().find(|a| a.name == name) {
            store.set_agent_access(a.id, cleared, &[connector.id], actor).await.map_err(e)?;
        }
    }
    for (shape, open) in shapes(connector.id) {
        store.save_shape(&shape, open.as_ref(), actor).await.map_err(e)?;
    }
    for (email, key) in &config.person_keys {
        if let Some(p) = dir.people.iter().find(|p| &p.email == email) {
            store.set_person_key(connector.id, p.id, key, actor).await.map_err(e)?;
        }
    }
    let role = |slug: &str| -> Result<RoleId, String> {
        let slug = RoleSlug::parse(slug).map_err(|e| e.to_string())?;
        dir.roles.iter().find(|r| r.slug == slug).map(|r| r.id).ok_or_else(|| format!("no role {slug}"))
    };
    let queries = [
        ("sales", "list_leads", r#"{"owner": "{me}", "follow_up_on": "{today}"}"#, "Leads with a follow-up today"),
        ("sales", "list_leads", r#"{"owner": "{me}", "stage": "Proposal"}"#, "My open deals"),
        ("support", "list_tickets", r#"{"assignee": "{me}", "status": "escalated"}"#, "My escalated tickets"),
    ];
    for (slug, tool, args, label) in queries {
        let q = MyWorkQuery {
            id: 0,
            role: role(slug)?,
            connector: connector.id,
            tool: tool.into(),
            arguments: args.into(),
            label: label.into(),
        };
        store.add_my_work_query(&q, actor).await.map_err(e)?;
    }
    for login in ["alice", "sam", "sue", "bob"] {
        let Some(p) = dir.people.iter().find(|p| p.email == demo_email(login)) else { continue };
        let Some(role_id) = memory_role(&dir, p) else { continue };
        for q in store.my_work_queries(role_id).await.map_err(e)? {
            if let Err(err) = memory.prepare.run_query(p, &q).await {
                tracing::warn!(login, query = q.label, error = ?err, "a demo read was skipped");
            }
        }
    }
    if let Some(alice) = dir.people.iter().find(|p| p.email == demo_email("alice")) {
        store
            .save_prepare_setting(alice.id, &PrepareSetting { enabled: true, ..PrepareSetting::default() })
            .await
            .map_err(e)?;
        pin_first(store, alice.id).await?;
        read_this_morning(store, memory, alice, connector.id, clock.now()).await?;
    }
    Ok(())
}

/// The lead Alice read this morning, kept as it was then.
pub const READ_THIS_MORNING: &str = "L-1004";
/// Its stage when she read it; at Acme ATS it has been Won since.
pub const STAGE_THIS_MORNING: &str = "Qualified";

/// Alice read Hebbal Biotech's lead three hours ago, when it was still Qualified; it was signed
/// since. Asked about it, her answer is checked against Acme ATS and shows the change.
async fn read_this_morning(
    store: &dyn Store,
    memory: &PersonMemory,
    alice: &engine::org::Person,
    connector: i64,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<(), String> {
    let args = serde_json::json!({ "id": READ_THIS_MORNING });
    memory.reads.read_as(alice, connector, "get_lead", &args, "demo").await.map_err(|e| format!("{e:?}"))?;
    let kept = store.kept(alice.id).await.map_err(|e| e.to_string())?;
    let Some((card, _)) = kept.into_iter().find(|(c, _)| c.record_id == READ_THIS_MORNING) else {
        return Err(format!("{READ_THIS_MORNING} was not kept for Alice"));
    };
    let fields = card
        .fields
        .iter()
        .map(|f| match f.name.as_str() {
            "stage" => engine::cards::source::CardField { value: STAGE_THIS_MORNING.into(), ..f.clone() },
            _ => f.clone(),
        })
        .collect();
    let then = NewCard {
        connector,
        open_when: store.open_when(connector, &card.tool).await.map_err(|e| e.to_string())?,
        tool: card.tool,
        kind: card.kind,
        record_id: card.record_id,
        version: card.version,
        fields,
        missing: vec![],
        read_with: card.read_with,
        read_as: card.read_as,
        label_when_read: card.label_when_read,
        read_at: now - chrono::Duration::hours(3),
    };
    store.upsert_card(&then).await.map_err(|e| e.to_string())?;
    Ok(())
}

fn memory_role(dir: &engine::org::Directory, p: &engine::org::Person) -> Option<RoleId> {
    match p.department_role(&dir.teams) {
        engine::org::RoleSource::Own(r) | engine::org::RoleSource::FromTeam(r) => Some(r),
        engine::org::RoleSource::None => None,
    }
}

async fn pin_first(store: &dyn Store, person: PersonId) -> Result<(), String> {
    let kept = store.kept(person).await.map_err(|e| e.to_string())?;
    if let Some((_, mut u)) = kept.into_iter().next() {
        u.pinned = true;
        store.save_use(&u).await.map_err(|e| e.to_string())?;
    }
    Ok(())
}
