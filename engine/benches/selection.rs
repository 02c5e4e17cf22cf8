//! Prints p50 and p99 of "select cards for a question" for one person among 10,000 people with
//! 300 cards each: ranked by the stored hybrid summary (what runs use), and, in the same run, by
//! the exact ACT-R sum over each card's whole history (the reference). Also prints how often the
//! two agree on the selected cards. Run with `cargo bench -p engine --bench selection`.
//! Figures are printed, never asserted.

use chrono::{DateTime, Duration, TimeZone, Utc};
use engine::cards::activation::{exact_activation, rank_score, use_weight, Use, UseSummary};
use engine::cards::select::{select_cards, Candidate};
use engine::cards::source::CardField;
use std::hint::black_box;
use std::time::Instant;

const PEOPLE: usize = 10_000;
const CARDS_EACH: usize = 300;
const RECORDS: usize = 20_000;
const SAMPLED: usize = 300;

/// A small, fixed pseudo-random sequence, so every run measures the same population.
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const COMPANIES: [&str; 12] =
    ["Nimbus", "Kaveri", "Zeta", "Hebbal", "Indus", "Lotus", "Peenya", "Sarjapur", "Vega", "Orion", "Tulsi", "Cubbon"];
const STAGES: [&str; 5] = ["New", "Qualified", "Proposal", "Won", "Lost"];

fn record_fields(i: usize) -> (String, Vec<CardField>) {
    let company = format!("{} {}", COMPANIES[i % COMPANIES.len()], i / COMPANIES.len());
    let f = |name: &str, value: String, free_text: bool| CardField { name: name.into(), value, free_text };
    (
        format!("L-{}", 100_000 + i),
        vec![
            f("company", company, false),
            f("stage", STAGES[i % STAGES.len()].to_string(), false),
            f("value_inr", format!("{}", 50_000 + (i * 7919) % 5_000_000), false),
            f("city", "Bengaluru".into(), false),
            f("notes", format!("Asked about pricing for site {i}; call back after the budget review."), true),
        ],
    )
}

fn seeded(person: usize, card: usize) -> Lcg {
    Lcg((person * CARDS_EACH + card) as u64 * 2_654_435_761 + 1)
}

/// One person's use of one card: a synthetic history (daily, weekly or bulk reads).
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

struct Kept {
    record: u32,
    summary: UseSummary,
    pinned: bool,
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn candidates(
    kept: &[Kept],
    records: &[(String, Vec<CardField>)],
    score: impl Fn(usize, &Kept) -> f64,
) -> Vec<Candidate> {
    kept.iter()
        .enumerate()
        .map(|(i, k)| {
            let (id, fields) = &records[k.record as usize];
            let open = fields[1].value == "Proposal";
            Candidate {
                card_id: i as i64,
                record_id: id.clone(),
                fields: fields.clone(),
                score: rank_score(score(i, k), k.pinned, open),
                pinned: k.pinned,
                open_work: open,
            }
        })
        .collect()
}

fn main() {
    let now = Utc.with_ymd_and_hms(2026, 11, 30, 9, 0, 0).unwrap();
    let records: Vec<_> = (0..RECORDS).map(record_fields).collect();
    let started = Instant::now();
    // The whole population keeps only the compact summary, as the store does.
    let population: Vec<Vec<Kept>> = (0..PEOPLE)
        .map(|person| {
            (0..CARDS_EACH)
                .map(|card| {
                    let mut rng = seeded(person, card);
                    let mut summary = UseSummary::default();
                    for u in history(&mut rng, now) {
                        summary.record(u);
                    }
                    Kept { record: rng.below(RECORDS as u64) as u32, summary, pinned: rng.below(60) == 0 }
                })
                .collect()
        })
        .collect();
    println!("built {PEOPLE} people × {CARDS_EACH} cards in {:.1} s", started.elapsed().as_secs_f64());

    let mut hybrid_ms = Vec::new();
    let mut exact_ms = Vec::new();
    let mut agree = 0usize;
    let mut compared = 0usize;
    let mut sample_rng = Lcg(7);
    for s in 0..SAMPLED {
        let person = sample_rng.below(PEOPLE as u64) as usize;
        let kept = &population[person];
        let target = &records[kept[s % CARDS_EACH].record as usize];
        let question = match s % 3 {
            0 => format!("What stage is {} at?", target.1[0].value),
            1 => format!("Any news on {}?", target.0),
            _ => "Which deals are at Proposal in Bengaluru?".to_string(),
        };
        // The exact reference needs each card's whole history: the same histories the summaries
        // were made from, regenerated outside the timing, as a store would have to keep them.
        let histories: Vec<Vec<Use>> = (0..CARDS_EACH).map(|card| history(&mut seeded(person, card), now)).collect();

        let t = Instant::now();
        let c = candidates(kept, &records, |_, k| k.summary.activation(now));
        let hybrid = black_box(select_cards(&question, &c));
        hybrid_ms.push(t.elapsed().as_secs_f64() * 1e3);

        let t = Instant::now();
        let c = candidates(kept, &records, |i, _| exact_activation(&histories[i], now));
        let exact = black_box(select_cards(&question, &c));
        exact_ms.push(t.elapsed().as_secs_f64() * 1e3);

        let a: Vec<_> = hybrid.cards.iter().map(|c| c.card_id).collect();
        let b: Vec<_> = exact.cards.iter().map(|c| c.card_id).collect();
        compared += a.len().max(b.len());
        agree += a.iter().filter(|id| b.contains(id)).count();
    }
    hybrid_ms.sort_by(f64::total_cmp);
    exact_ms.sort_by(f64::total_cmp);
    println!(
        "select cards, hybrid summary: p50 {:.3} ms, p99 {:.3} ms over {SAMPLED} questions",
        percentile(&hybrid_ms, 0.5),
        percentile(&hybrid_ms, 0.99)
    );
    println!(
        "select cards, exact history:  p50 {:.3} ms, p99 {:.3} ms over {SAMPLED} questions",
        percentile(&exact_ms, 0.5),
        percentile(&exact_ms, 0.99)
    );
    println!(
        "selected cards the hybrid and the exact ranking share: {:.1}%",
        100.0 * agree as f64 / compared.max(1) as f64
    );
}
