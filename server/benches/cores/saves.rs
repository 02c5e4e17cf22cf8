//! Core save latency through the engine: 1,000 sequential saves by an admin on one role's core.

use crate::{percentile, report};
use chrono::Utc;
use engine::cores::service::CoreService;
use engine::cores::CoreScope;
use engine::org::{Company, Person, RoleSlug, TimeZoneName};
use engine::store::{Actor, NewPerson};
use engine::SystemClock;
use server::store::AnyStore;
use std::time::Instant;

/// A company with three roles (sales for the sequential saves, support and marketing for the two
/// paths of the lost-update check) and an admin who may edit them all.
pub async fn company(store: &AnyStore) -> Person {
    let actor = Actor { person: None, at: Utc::now() };
    let shared = store.shared();
    shared
        .create_company(
            &Company {
                name: "Bench".into(),
                time_zone: TimeZoneName::parse("UTC").unwrap(),
                locale: Default::default(),
            },
            actor,
        )
        .await
        .expect("create the company");
    for (slug, title) in [("sales", "Sales"), ("support", "Support"), ("marketing", "Marketing")] {
        shared.create_role(&RoleSlug::parse(slug).unwrap(), title, 2_000, actor).await.expect("create a role");
    }
    shared
        .create_person(
            &NewPerson {
                name: "Admin".into(),
                email: "admin@bench.example".into(),
                password_hash: "unused".into(),
                is_admin: true,
                main_team: None,
            },
            actor,
        )
        .await
        .expect("create the admin")
}

pub async fn bench_core_saves(store: &AnyStore, admin: &Person, label: &str) {
    let cores = CoreService::new(store.shared(), std::sync::Arc::new(SystemClock));
    let scope = CoreScope::Company(RoleSlug::parse("sales").unwrap());
    let base =
        "Stages: New, Qualified, Proposal, Won, Lost.\nDiscounts over 15% need the lead's approval.\n".repeat(10);
    let saves = 1_000u32;
    let mut latencies = Vec::with_capacity(saves as usize);
    let start = Instant::now();
    for v in 0..saves {
        let text = format!("{base}Revision {v}.");
        let t = Instant::now();
        cores.save_core(admin, &scope, v, &text, "bench").await.expect("save");
        latencies.push(t.elapsed());
    }
    let total = start.elapsed();
    latencies.sort();
    report(format_args!(
        "core save on {label}, {saves} sequential saves: p50 {:?}, p99 {:?}, max {:?}, {:.0} saves/s",
        percentile(&latencies, 0.50),
        percentile(&latencies, 0.99),
        latencies.last().unwrap(),
        f64::from(saves) / total.as_secs_f64()
    ));
}
