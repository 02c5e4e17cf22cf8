//! Prints p50 and p99 of the provenance gate (never act from memory) over a plan of 20 steps, with
//! a block of about 10,000 tokens of cards and lessons: building what the run remembers, adding
//! each read as it returns, and checking every acting step. Run with
//! `cargo bench -p engine --bench provenance`. Figures are printed, never asserted.

use engine::cards::source::CardField;
use engine::runs::provenance::{Provenance, RememberedCard, RememberedLesson, StepKind};
use engine::tokens::count_tokens;
use serde_json::{json, Value};
use std::hint::black_box;

// The allocator the `engram` binary uses, so the figures are the server's.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
use std::time::{Duration, Instant};

const RUNS: usize = 2_000;
const STEPS: usize = 20;

const COMPANIES: [&str; 8] =
    ["Litware", "Contoso", "Fabrikam", "Northwind", "Tailspin", "Wingtip", "Adatum", "Proseware"];
const STAGES: [&str; 5] = ["New", "Qualified", "Proposal", "Won", "Lost"];

fn field(name: &str, value: String, free_text: bool) -> CardField {
    CardField { name: name.into(), value, free_text }
}

fn card(i: usize) -> RememberedCard {
    let company = format!("{} {}", COMPANIES[i % COMPANIES.len()], i);
    RememberedCard {
        card: i as i64,
        source: "Acme ATS".into(),
        record_id: format!("L-{}", 10_000 + i),
        fields: vec![
            field("company", company.clone(), false),
            field("contact_name", format!("Dana Brooks {i}"), false),
            field("email", format!("contact{i}@{}.example", COMPANIES[i % COMPANIES.len()].to_lowercase()), false),
            field("phone", format!("+1 (425) 555-{:04}", i), false),
            field("account", format!("ACC-{}", 700 + i), false),
            field("stage", STAGES[i % STAGES.len()].to_string(), false),
            field("amount", format!("{}", 12_000 + i * 250), false),
            field("city", "Bengaluru".to_string(), false),
            field(
                "notes",
                format!(
                    "Spoke with the buyer at {company} about quote Q-{} and the renewal; they want the \
                     proposal before the quarter closes and asked for a reference call.",
                    5_000 + i
                ),
                true,
            ),
        ],
    }
}

fn lesson(i: usize) -> RememberedLesson {
    RememberedLesson {
        id: format!("lesson:{i}"),
        claim: None,
        source: None,
        text: format!(
            "Renewals at {} over {} need the finance lead's sign-off before a quote goes out; write to \
             finance{i}@acme.example and keep the thread on the lead.",
            COMPANIES[i % COMPANIES.len()],
            40_000 + i * 1_000
        ),
    }
}

/// Cards and lessons until the block holds about 10,000 tokens, counted as the meters count.
fn block() -> (Vec<RememberedCard>, Vec<RememberedLesson>, u32) {
    let (mut cards, mut lessons, mut tokens) = (Vec::new(), Vec::new(), 0u32);
    let mut i = 0;
    while tokens < 10_000 {
        let c = card(i);
        tokens += c.fields.iter().map(|f| count_tokens(&format!("{}: {}", f.name, f.value))).sum::<u32>();
        tokens += count_tokens(&c.record_id);
        cards.push(c);
        let l = lesson(i);
        tokens += count_tokens(&l.text);
        lessons.push(l);
        i += 1;
    }
    (cards, lessons, tokens)
}

/// A plan of 20 steps: reads of records, then writes, sends and hand-ons using what was read and,
/// now and then, what was only remembered.
fn plan(cards: &[RememberedCard]) -> Vec<(StepKind, Value, Option<Value>)> {
    (0..STEPS)
        .map(|s| {
            // Four steps a record: read it, then write, send and hand on about it.
            let c = &cards[(s / 4 * 7) % cards.len()];
            let email = c.fields[2].value.clone();
            match s % 4 {
                0 => (
                    StepKind::Read,
                    json!({"lead_id": c.record_id}),
                    Some(json!({"records": [{"id": c.record_id, "company": c.fields[0].value, "email": email, "stage": "Won"}]})),
                ),
                1 => (StepKind::Write, json!({"lead_id": c.record_id, "stage": "Won", "note": "moved after the call"}), None),
                2 => (StepKind::Send, json!({"to": email, "subject": "Your proposal", "body": format!("Hello, the proposal for {} is ready.", c.fields[0].value)}), None),
                _ => (StepKind::HandOn, json!({"task": format!("Follow up with {}", c.fields[1].value)}), None),
            }
        })
        .collect()
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

/// The same number of runs of fixed arithmetic, timed the same way: the machine's own spread, so
/// a slow tail of the gate's can be told from a busy machine's.
fn baseline() -> Vec<Duration> {
    let mut times = Vec::with_capacity(RUNS);
    for _ in 0..RUNS {
        let t = Instant::now();
        let mut x = 0u64;
        for i in 0..400_000u64 {
            x = black_box(x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(i));
        }
        times.push(t.elapsed());
    }
    times.sort();
    times
}

fn main() {
    let (cards, lessons, tokens) = block();
    let steps = plan(&cards);
    println!("block: {} cards and {} lessons, {tokens} tokens; plan: {STEPS} steps", cards.len(), lessons.len());
    let mut times = Vec::with_capacity(RUNS);
    let mut refused = 0usize;
    for _ in 0..RUNS {
        let t = Instant::now();
        let mut p = Provenance::new(&cards, &lessons, Some(("person:3", "alice@acme.example")), "follow up my leads");
        let mut n = 0;
        for (kind, args, read) in &steps {
            let checked = match kind {
                StepKind::Read => p.check_read("Acme ATS", black_box(args)),
                _ => p.check(*kind, black_box(args)),
            };
            n += usize::from(checked.is_err());
            if let Some(r) = read {
                p.read_value(r);
            }
        }
        times.push(t.elapsed());
        refused = n;
    }
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "provenance gate, whole plan ({RUNS} runs): p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms; {refused} of {STEPS} steps refused",
        ms(percentile(&times, 0.5)),
        ms(percentile(&times, 0.99)),
        ms(times[RUNS - 1])
    );
    let base = baseline();
    println!(
        "baseline, fixed arithmetic ({RUNS} runs): p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms",
        ms(percentile(&base, 0.5)),
        ms(percentile(&base, 0.99)),
        ms(base[RUNS - 1])
    );
}
