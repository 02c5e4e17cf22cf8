//! The naive baseline: the same block for the same run, with each card ranked by the exact ACT-R
//! sum over every use the person made of it, read row by row from the use log, instead of the
//! stored summary. Every other read is the product's own, so the difference is the ranking's. It
//! also returns each shown card's exact rank score, to weigh the cards where the two differ.

use chrono::{DateTime, Utc};
use engine::cards::access::{decide, Decision, Reader, RunningAgent};
use engine::cards::activation::{exact_activation, rank_score, Use};
use engine::cards::select::{select_cards, Candidate};
use engine::cores::CoreScope;
use engine::org::{Agent, Person, RoleSource};
use engine::runs::block::{assemble, Block, BlockCard, BlockInput, LoadedCore, SLICE_TOKENS};
use engine::runs::lists::ReferenceLists;
use engine::runs::whoswho::{build_slice, SliceInput};
use server::store::AnyStore;
use std::collections::HashMap;

pub async fn block(
    store: &AnyStore,
    lists: &ReferenceLists,
    agent: &Agent,
    person: &Person,
    question: &str,
    now: DateTime<Utc>,
) -> (Block, HashMap<i64, f64>) {
    let shared = store.shared();
    let (cleared_for, holds_toolsets) = shared.agent_access(agent.id).await.unwrap().expect("the agent");
    let running = RunningAgent { holds_toolsets, cleared_for };

    let mut cores = Vec::new();
    let role = shared.role_by_id(agent.role.expect("a role")).await.unwrap().expect("the role");
    if let Some(v) = shared.current_core(&CoreScope::Company(role.slug.clone())).await.unwrap() {
        cores.push(LoadedCore { scope: v.scope, name: role.name.clone(), version: v.version, text: v.text });
    }
    if let Some(team) = person.main_team {
        let team = shared.team(team).await.unwrap().expect("the team");
        if team.role == Some(role.id) {
            if let Some(v) = shared.current_core(&CoreScope::Team(team.id)).await.unwrap() {
                cores.push(LoadedCore { scope: v.scope, name: team.name.clone(), version: v.version, text: v.text });
            }
        }
    }

    let dir = shared.directory().await.unwrap();
    let reader_role = match person.department_role(&dir.teams) {
        RoleSource::Own(r) | RoleSource::FromTeam(r) => dir.role(r).map(|r| r.slug.as_str().to_string()),
        RoleSource::None => None,
    };
    let reader = Reader { person: person.id, role: reader_role, work_for: Some(person.id) };
    let connectors = shared.connectors().await.unwrap();
    let kept = shared.kept(person.id).await.unwrap();
    let mut every_use: HashMap<i64, Vec<Use>> = HashMap::new();
    for u in store.bench_logged_uses(person.id.0).await.unwrap() {
        every_use.entry(u.card).or_default().push(Use { at: u.at, weight: u.weight });
    }
    let mut shown = Vec::new();
    for (card, u) in kept {
        let Some(c) = connectors.iter().find(|c| c.id == card.connector) else { continue };
        if let Decision::Show(class) = decide(&card.origin(), &c.toolset_now(&card.tool), &reader, Some(&running)) {
            let activation = exact_activation(every_use.get(&card.id).map_or(&[][..], |v| v), now);
            shown.push((rank_score(activation, u.pinned, card.open_work), card, c.name.clone(), class, u.pinned));
        }
    }
    let candidates: Vec<Candidate> = shown
        .iter()
        .map(|(score, card, _, _, pinned)| Candidate {
            card_id: card.id,
            record_id: card.record_id.clone(),
            fields: card.fields.clone(),
            score: *score,
            pinned: *pinned,
            open_work: card.open_work,
        })
        .collect();
    let exact: HashMap<i64, f64> = candidates.iter().map(|c| (c.card_id, c.score)).collect();
    let selection = select_cards(question, &candidates);
    let cards: Vec<BlockCard> = selection
        .cards
        .into_iter()
        .filter_map(|s| {
            let (_, card, source, class, _) = shown.iter().find(|(_, card, ..)| card.id == s.card_id)?;
            Some(BlockCard {
                card: card.id,
                kind: card.kind.clone(),
                record_id: card.record_id.clone(),
                source: source.clone(),
                read_at: card.read_at,
                fields: s.fields,
                label: *class,
                not_read: None,
            })
        })
        .collect();

    let around = shared.around(person.id, 60).await.unwrap();
    let mut emails: Vec<String> = cards
        .iter()
        .flat_map(|c| c.fields.iter())
        .filter(|f| !f.free_text && f.value.contains('@'))
        .map(|f| f.value.to_lowercase())
        .filter(|e| *e != person.email.to_lowercase())
        .collect();
    emails.sort();
    emails.dedup();
    let owners = if emails.is_empty() { vec![] } else { shared.people_by_emails(&emails).await.unwrap() };
    let entries = lists.entries_for(person, &[]).await.unwrap_or_default();
    let slice = build_slice(&SliceInput { person: person.clone(), around, owners, entries, now }, SLICE_TOKENS);
    let block = assemble(BlockInput {
        cores,
        slice: Some(slice),
        cards,
        lessons: vec![],
        snapshots: vec![],
        cleared_for: running.cleared_for,
        now,
    });
    (block, exact)
}
