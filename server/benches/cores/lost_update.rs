//! The lost-update check: 64 writers each make 200 saves on one core, each save based on the
//! version the writer read just before it, retrying after a refusal. Every save's text is tagged
//! with its writer and number, so the history can be checked against what was acknowledged:
//! a save acknowledged but absent is lost, one present twice is duplicated.
//!
//! The same run drives the last-write-wins save (`append_core_version_unchecked`, compiled only
//! for this benchmark), which never refuses; the checker must find the saves it loses there.

use crate::report;
use chrono::Utc;
use engine::cores::{CoreScope, NewCoreVersion};
use engine::org::{Person, RoleSlug};
use engine::store::StoreError;
use server::store::AnyStore;
use std::collections::HashMap;
use std::time::Instant;

const WRITERS: u32 = 64;
const SAVES: u32 = 200;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Path {
    Checked,
    LastWriteWins,
}

#[derive(Default)]
struct Tally {
    acknowledged: Vec<(u32, u32)>,
    refusals: u64,
    errors: u64,
}

fn tag(writer: u32, seq: u32) -> String {
    format!("writer {writer} save {seq}")
}

fn untag(text: &str) -> Option<(u32, u32)> {
    let rest = text.strip_prefix("writer ")?;
    let (writer, seq) = rest.split_once(" save ")?;
    Some((writer.parse().ok()?, seq.parse().ok()?))
}

async fn writer(store: AnyStore, path: Path, scope: CoreScope, author: Person, w: u32) -> Tally {
    let shared = store.shared();
    let mut tally = Tally::default();
    for seq in 0..SAVES {
        loop {
            let based_on = match shared.current_core(&scope).await {
                Ok(current) => current.map_or(0, |v| v.version),
                Err(_) => {
                    tally.errors += 1;
                    continue;
                }
            };
            let text = tag(w, seq);
            let new = NewCoreVersion {
                scope: scope.clone(),
                based_on,
                tokens: engine::tokens::count_tokens(&text),
                text,
                author: author.id,
                note: String::new(),
                restored_from: None,
                at: Utc::now(),
            };
            let saved = match path {
                Path::Checked => shared.append_core_version(&new).await.map(|v| v.version),
                Path::LastWriteWins => store.append_core_version_unchecked(&new).await,
            };
            match saved {
                Ok(_) => {
                    tally.acknowledged.push((w, seq));
                    break;
                }
                Err(StoreError::Changed { .. }) => tally.refusals += 1,
                Err(_) => tally.errors += 1,
            }
        }
    }
    tally
}

async fn history(store: &AnyStore, scope: &CoreScope) -> Vec<(u32, String)> {
    let shared = store.shared();
    let mut all = Vec::new();
    let mut before = None;
    loop {
        let page = shared.core_versions(scope, before, 1_000).await.expect("read the history");
        let Some(last) = page.last() else { break };
        before = Some(last.version);
        all.extend(page.into_iter().map(|v| (v.version, v.text)));
    }
    all
}

async fn check(store: &AnyStore, author: &Person, path: Path, role: &str) {
    let scope = CoreScope::Company(RoleSlug::parse(role).unwrap());
    let start = Instant::now();
    let tasks: Vec<_> =
        (0..WRITERS).map(|w| tokio::spawn(writer(store.clone(), path, scope.clone(), author.clone(), w))).collect();
    let mut total = Tally::default();
    for t in tasks {
        let t = t.await.expect("a writer");
        total.acknowledged.extend(t.acknowledged);
        total.refusals += t.refusals;
        total.errors += t.errors;
    }
    let elapsed = start.elapsed();

    let versions = history(store, &scope).await;
    let mut seen: HashMap<(u32, u32), u32> = HashMap::new();
    let mut untagged = 0;
    for (_, text) in &versions {
        match untag(text) {
            Some(t) => *seen.entry(t).or_default() += 1,
            None => untagged += 1,
        }
    }
    let lost = total.acknowledged.iter().filter(|t| !seen.contains_key(t)).count();
    let duplicated = seen.values().filter(|&&n| n > 1).count();
    let mut numbers: Vec<u32> = versions.iter().map(|(v, _)| *v).collect();
    numbers.sort();
    let gaps = numbers.iter().enumerate().filter(|(i, v)| **v != *i as u32 + 1).count();
    let name = match path {
        Path::Checked => "checked save (the product's)",
        Path::LastWriteWins => "last-write-wins save (test-only)",
    };
    report(format_args!(
        "lost-update check, {name}: {WRITERS} writers x {SAVES} saves in {:.1} s; {} acknowledged, {} versions, \
         {lost} lost, {duplicated} duplicated, {} refusals retried, {} errors, {gaps} version numbers out of place, \
         {untagged} untagged",
        elapsed.as_secs_f64(),
        total.acknowledged.len(),
        versions.len(),
        total.refusals,
        total.errors,
    ));
}

pub async fn bench_lost_updates(store: &AnyStore, author: &Person) {
    check(store, author, Path::Checked, "support").await;
    check(store, author, Path::LastWriteWins, "marketing").await;
}
