//! The benchmark's company: one sales role with its company core, 200 sales teams of 50 with their
//! team cores, 10,000 people, an agent that holds Acme ATS, and 300 lead cards per person with a
//! synthetic history of use (daily, weekly or bulk reads), kept as the store keeps it: the summary.
//! The sampled people's every use is also logged, one row each, for the naive baseline.

use chrono::{DateTime, Duration, Utc};
use engine::cards::access::{DataLabel, KeyKind};
use engine::cards::activation::{use_weight, Use, UseSummary};
use engine::cards::source::{CardField, Freshness, KeyMode};
use engine::cards::store::{Card, CardUse, NewConnector};
use engine::cores::{CoreScope, NewCoreVersion};
use engine::org::{Agent, Company, Person, PersonId, RoleSlug, TimeZoneName};
use engine::store::{Actor, NewAgent, NewPerson};
use engine::tokens::count_tokens;
use server::store::bench_seed::{LoggedUse, SeedPerson};
use server::store::AnyStore;

pub const PEOPLE: i64 = 10_000;
pub const CARDS_EACH: i64 = 300;
pub const TEAM_SIZE: i64 = 50;
/// People whose runs are timed; their uses are logged for the baseline.
pub const SAMPLED: i64 = 200;

/// A small, fixed pseudo-random sequence, so every run measures the same population.
pub struct Lcg(pub u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

pub const COMPANIES: [&str; 12] =
    ["Nimbus", "Kaveri", "Zeta", "Hebbal", "Indus", "Lotus", "Peenya", "Sarjapur", "Vega", "Orion", "Tulsi", "Cubbon"];
pub const STAGES: [&str; 5] = ["New", "Qualified", "Proposal", "Won", "Lost"];
pub const CITIES: [&str; 4] = ["Bengaluru", "Mysuru", "Chennai", "Pune"];

pub struct Seeded {
    pub agent: Agent,
    pub sampled: Vec<Person>,
    pub cards: i64,
    pub logged: usize,
}

fn history(rng: &mut Lcg, now: DateTime<Utc>) -> Vec<Use> {
    let n = 1 + rng.below(40) as i64;
    let every_hours = [6, 24, 24 * 7][rng.below(3) as usize];
    let bulk = rng.below(5) == 0;
    (0..n)
        .map(|k| Use {
            at: now - Duration::hours(k * every_hours + rng.below(every_hours as u64) as i64 + 1),
            weight: if bulk { use_weight(500) } else { 1.0 },
        })
        .collect()
}

fn email(n: i64) -> String {
    format!("p{n}@bench.example")
}

pub async fn company(store: &AnyStore, now: DateTime<Utc>) -> Seeded {
    let actor = Actor { person: None, at: now };
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
    let slug = RoleSlug::parse("sales").unwrap();
    let role = shared.create_role(&slug, "Sales", 2_000, actor).await.expect("create the role");
    let admin = shared
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
        .expect("create the admin");
    let core = "Stages: New, Qualified, Proposal, Won, Lost. Discounts over 15% need the lead's approval. \
                Every lead gets a reply within one working day; a proposal names its price in INR. "
        .repeat(8);
    shared
        .append_core_version(&NewCoreVersion {
            scope: CoreScope::Company(slug.clone()),
            based_on: 0,
            tokens: count_tokens(&core),
            text: core,
            author: admin.id,
            note: String::new(),
            restored_from: None,
            at: now,
        })
        .await
        .expect("save the company core");

    let mut teams = Vec::new();
    for t in 0..PEOPLE / TEAM_SIZE {
        let team = shared.create_team(&format!("Sales team {t:03}"), Some(role.id), actor).await.expect("a team");
        let text = format!("Team {t:03} covers its own territory; hand-offs go through the lead. ").repeat(4);
        shared
            .append_core_version(&NewCoreVersion {
                scope: CoreScope::Team(team.id),
                based_on: 0,
                tokens: count_tokens(&text),
                text,
                author: admin.id,
                note: String::new(),
                restored_from: None,
                at: now,
            })
            .await
            .expect("save a team core");
        teams.push(team.id);
    }

    let first = admin.id.0 + 1;
    let people: Vec<i64> = (first..first + PEOPLE).collect();
    let team_of = |n: i64| teams[((n - first) / TEAM_SIZE) as usize];
    let seed: Vec<SeedPerson> = people
        .iter()
        .map(|&id| SeedPerson { id, name: format!("Person {id}"), email: email(id), main_team: Some(team_of(id).0) })
        .collect();
    store.bench_insert_people(&seed, now).await.expect("insert the people");
    for (i, team) in teams.iter().enumerate() {
        let lead = PersonId(first + i as i64 * TEAM_SIZE);
        shared.set_team_lead(*team, Some(lead), actor).await.expect("set a lead");
    }

    let connector = shared
        .create_connector(
            &NewConnector {
                name: "Acme ATS".into(),
                base_url: "http://127.0.0.1:9".into(),
                key_mode: KeyMode::Company,
                ticked: vec!["list_leads".into()],
                label: DataLabel::Internal,
                admits_roles: vec!["sales".into()],
                keep_cards: true,
                facts: engine::cards::source::FactLimits::DEFAULT,
                free_text: Freshness { soft_mins: 60, hard_mins: 24 * 60 },
                hourly_limit: 1_000,
            },
            None,
            actor,
        )
        .await
        .expect("create the connector");
    let agent = shared
        .create_agent(
            &NewAgent {
                name: "Sales Assistant".into(),
                template: "sales-assistant".into(),
                role: Some(role.id),
                owner: admin.id,
                team_copy: None,
            },
            actor,
        )
        .await
        .expect("create the agent");
    shared
        .set_agent_access(agent.id, DataLabel::Internal, &[connector.id], actor)
        .await
        .expect("give the agent Acme ATS");

    // Spread over the company, one in every 50 people, so each is in a different team.
    let sampled_ids: Vec<i64> = (0..SAMPLED).map(|k| first + k * (PEOPLE / SAMPLED) + 7).collect();
    for &id in &sampled_ids {
        let lead = PersonId(first + (id - first) / TEAM_SIZE * TEAM_SIZE);
        shared.set_manager(PersonId(id), Some(lead), actor).await.expect("set a manager");
    }

    let mut card_id = 1i64;
    let mut logged_total = 0;
    for batch in people.chunks(100) {
        let mut cards = Vec::with_capacity(batch.len() * CARDS_EACH as usize);
        let mut uses = Vec::with_capacity(cards.capacity());
        let mut logged = Vec::new();
        for &person in batch {
            let log = sampled_ids.contains(&person);
            let team_first = first + (person - first) / TEAM_SIZE * TEAM_SIZE;
            for n in 0..CARDS_EACH {
                let mut rng = Lcg((person * CARDS_EACH + n) as u64 * 2_654_435_761 + 1);
                let i = (person * CARDS_EACH + n) as usize;
                let f = |name: &str, value: String, free_text: bool| CardField { name: name.into(), value, free_text };
                let stage = STAGES[i % STAGES.len()];
                cards.push(Card {
                    id: card_id,
                    connector: connector.id,
                    tool: "list_leads".into(),
                    kind: "lead".into(),
                    record_id: format!("L-{}", 100_000 + i),
                    version: Some(format!("{}", rng.below(1_000_000))),
                    fields: vec![
                        f("company", format!("{} {}", COMPANIES[i % COMPANIES.len()], i / COMPANIES.len()), false),
                        f("stage", stage.into(), false),
                        f("value_inr", format!("{}", 50_000 + (i * 7919) % 5_000_000), false),
                        f("city", CITIES[i % CITIES.len()].into(), false),
                        f("owner", email(team_first + rng.below(TEAM_SIZE as u64) as i64), false),
                        f(
                            "notes",
                            format!("Asked about pricing for site {i}; call back after the budget review."),
                            true,
                        ),
                    ],
                    read_with: KeyKind::Company,
                    read_as: None,
                    label_when_read: DataLabel::Internal,
                    open_work: stage == "Proposal",
                    read_at: now - Duration::minutes(rng.below(60 * 24 * 14) as i64),
                    not_returned: vec![],
                });
                let mut summary = UseSummary::default();
                let mut last = now - Duration::days(365);
                for u in history(&mut rng, now) {
                    last = last.max(u.at);
                    if log {
                        logged.push(LoggedUse { person, card: card_id, at: u.at, weight: u.weight });
                    }
                    summary.record(u);
                }
                uses.push(CardUse {
                    person: PersonId(person),
                    card: card_id,
                    summary,
                    pinned: rng.below(50) == 0,
                    last_use: last,
                });
                card_id += 1;
            }
        }
        store.bench_insert_cards(&cards).await.expect("insert cards");
        store.bench_insert_uses(&uses).await.expect("insert uses");
        logged_total += logged.len();
        if !logged.is_empty() {
            store.bench_log_uses(&logged).await.expect("log uses");
        }
    }

    let mut sampled = Vec::new();
    for id in sampled_ids {
        sampled.push(shared.person(PersonId(id)).await.expect("read a person").expect("the person exists"));
    }
    Seeded { agent, sampled, cards: card_id - 1, logged: logged_total }
}

/// The same company from a database an earlier run kept (`ENGRAM_BENCH_KEEP`), without seeding:
/// the first agent, and the sampled people as `company` picks them.
pub async fn existing(store: &AnyStore) -> Seeded {
    use engine::org::AgentId;
    let shared = store.shared();
    let agent = shared.agent(AgentId(1)).await.expect("read the agent").expect("the kept database has its agent");
    let first = 2;
    let mut sampled = Vec::new();
    for k in 0..SAMPLED {
        let id = PersonId(first + k * (PEOPLE / SAMPLED) + 7);
        sampled.push(shared.person(id).await.expect("read a person").expect("the person exists"));
    }
    Seeded { agent, sampled, cards: PEOPLE * CARDS_EACH, logged: 0 }
}
