//! Prints how long the check after an answer takes for an answer that used 10 cards from 2
//! sources: `PersonMemory::check_cards` over Alice's 10 kept cards (5 leads from each of two
//! local Acme ATS servers), every one past its soft limit, so each record is read again once over
//! HTTP, compared, and kept. The store is SQLite in a temporary folder; the clock moves two hours
//! before each check so every card is due again and the hourly limit never stops a read.
//!
//! Run with `cargo bench -p server --bench check`. Figures are printed, never asserted.

use chrono::Duration;
use demo::acme_ats::AtsConfig;
use engine::cards::access::DataLabel;
use engine::cards::service::PersonMemory;
use engine::cards::source::KeyMode;
use engine::cards::store::NewConnector;
use engine::runs::block::BlockCard;
use engine::store::{Actor, Store};
use engine::{Clock, ManualClock};
use serde_json::json;
use server::secrets::{SecretBox, SecretKey};
use server::store::AnyStore;
use std::sync::Arc;
use std::time::{Duration as StdDuration, Instant};

const CHECKS: usize = 300;
const WARM_UP: usize = 20;
const LEADS: [&str; 5] = ["L-1001", "L-1002", "L-1003", "L-1004", "L-1009"];

fn report(line: std::fmt::Arguments) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = out.write_fmt(line);
    let _ = out.write_all(b"\n");
}

fn ms(d: StdDuration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// What Alice's block showed: her cards as they are now.
async fn shown(store: &dyn Store, alice: engine::org::PersonId, names: &[(i64, String)]) -> Vec<BlockCard> {
    store
        .kept(alice)
        .await
        .expect("her cards")
        .into_iter()
        .map(|(card, _)| BlockCard {
            card: card.id,
            kind: card.kind.clone(),
            record_id: card.record_id.clone(),
            source: names.iter().find(|(id, _)| *id == card.connector).map(|(_, n)| n.clone()).unwrap_or_default(),
            read_at: card.read_at,
            fields: card.fields.clone(),
            label: DataLabel::Internal,
            not_read: None,
        })
        .collect()
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let store = AnyStore::open(&format!("sqlite://{}/bench.db", dir.path().display())).await.expect("the store");
    // Connector keys are sealed with a secret key, as a served store seals them.
    let key = SecretKey::parse("YmVuY2gga2V5OiAzMiBieXRlcyBvZiBhIGtleSEhISE=").expect("the bench's key parses");
    let (store, _) = store.unlock(Arc::new(SecretBox::new(&key)), chrono::Utc::now()).await.expect("unlock the store");
    let store: Arc<dyn Store> = store.shared();
    let clock = Arc::new(ManualClock::new(chrono::Utc::now()));
    let source = Arc::new(server::connector::HttpSource::default());
    let memory = PersonMemory::new(store.clone(), clock.clone(), source);
    demo::company::seed_if_empty(store.as_ref()).await.expect("the demo company");

    // Two local Acme ATS servers: the demo's connector to the first, a second connector to the other.
    let (first, _first_task) = demo::acme_ats::spawn(AtsConfig::demo(), 0).await.expect("the first source");
    let (second, _second_task) = demo::acme_ats::spawn(AtsConfig::demo(), 0).await.expect("the second source");
    demo::cards::seed(store.as_ref(), &memory, clock.clone() as Arc<dyn Clock>, &first).await.expect("the connector");
    let dir_ = store.directory().await.expect("the directory");
    let ada = dir_.people.iter().find(|p| p.email == "ada@acme.example").expect("ada").clone();
    let alice = dir_.people.iter().find(|p| p.email == "alice@acme.example").expect("alice").clone();
    let agent = dir_.agents.iter().find(|a| a.name == "Sales Assistant").expect("the Sales Assistant").clone();
    let actor = Actor { person: Some(ada.id), at: clock.now() };
    let one = store.connector(1).await.expect("read").expect("the first connector");
    let other = store
        .create_connector(
            &NewConnector {
                name: "Acme ATS (second)".into(),
                base_url: second.clone(),
                key_mode: KeyMode::Company,
                ticked: demo::cards::TICKED.iter().map(|t| t.to_string()).collect(),
                label: DataLabel::Internal,
                admits_roles: vec![],
                keep_cards: true,
                facts: one.facts,
                free_text: one.free_text,
                hourly_limit: 600,
            },
            Some(&AtsConfig::demo().company_key),
            actor,
        )
        .await
        .expect("the second connector");
    for (shape, open) in demo::cards::shapes(other.id) {
        store.save_shape(&shape, open.as_ref(), actor).await.expect("a shape");
    }
    store.set_agent_access(agent.id, DataLabel::Internal, &[one.id, other.id], actor).await.expect("access");

    // Alice's 10 cards: her five leads, read from each source.
    for c in [one.id, other.id] {
        for id in LEADS {
            memory.reads.read_as(&alice, c, "get_lead", &json!({ "id": id }), "bench").await.expect("a read");
        }
    }
    let names = vec![(one.id, one.name.clone()), (other.id, other.name.clone())];
    let running = memory.runs.running_agent(agent.id).await.expect("the agent");
    let cards = shown(store.as_ref(), alice.id, &names).await;
    let sources = cards.iter().map(|c| c.source.clone()).collect::<std::collections::BTreeSet<_>>();
    report(format_args!("the check after an answer: {} cards from {} sources, SQLite", cards.len(), sources.len()));
    assert_eq!((cards.len(), sources.len()), (10, 2), "10 cards from 2 sources");

    let mut times = Vec::with_capacity(CHECKS);
    for i in 0..WARM_UP + CHECKS {
        clock.advance(Duration::hours(2));
        let cards = shown(store.as_ref(), alice.id, &names).await;
        let started = Instant::now();
        let checked = memory.runs.check_cards(&alice, &running, &cards).await.expect("the check");
        let took = started.elapsed();
        assert_eq!(checked.len(), 10, "every card due and read");
        if i >= WARM_UP {
            times.push(took);
        }
    }
    times.sort();
    let at = |q: f64| times[((times.len() as f64 * q).ceil() as usize).saturating_sub(1).min(times.len() - 1)];
    report(format_args!(
        "{CHECKS} checks of 10 records (10 reads over HTTP): p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        ms(at(0.5)),
        ms(at(0.99)),
        ms(*times.last().unwrap())
    ));
}
