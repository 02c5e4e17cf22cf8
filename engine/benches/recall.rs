//! Recall of lessons: for each of the 300 labelled questions in `recall/recall_set.json` (50 people,
//! 6 questions each in six styles, 56 lessons each of which 50 are distractors), whether the
//! lesson it is about is among the 10 a run loads, and how many of those loaded are it. The
//! product's ranking is measured beside the word overlap it replaced, in the same run. Then the
//! selection's time for a person with 500 lessons. Run with `cargo bench -p engine --bench recall`;
//! the set is made by `recall/make_set.py`. Figures are printed, never asserted.
//!
//! The hybrid ranking (words and meaning) is measured with a STAND-IN embedder written for this
//! bench ([`stand_in`]): hashed character trigrams of each folded word. It is no language model
//! and knows no synonyms; its figures show what fusing a second signal does to recall, precision
//! and time on this set, not what a real embedding model would find. With
//! `ENGRAM_BENCH_RECALL_VECTORS` naming a file of a real model's vectors (made by
//! `recall/embed_set.py`), the hybrid is measured with those too. Both are measured again on the
//! same lessons asked about in other words (`recall/other_words.json`), where only meaning helps.

use chrono::{DateTime, Utc};
use engine::lessons::select::{lessons_for, lessons_for_meaning, LessonTerms, Meaning};
use engine::lessons::Lesson;
use std::collections::HashMap;
use std::hint::black_box;
use std::time::Instant;

// The allocator the `engram` binary uses, so the figures are the server's.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[path = "recall/set.rs"]
mod set;
use set::{lesson, percentile, Tally};
#[path = "recall/meaning.rs"]
mod meaning;

/// The baseline: the selection before ranking, word overlap. Words of three letters or more that
/// are not stop words, a plural "s" dropped; a lesson loads when it shares one, most shared first.
mod overlap {
    use super::Lesson;

    const STOP: &[&str] = &[
        "about", "all", "and", "any", "are", "been", "but", "can", "did", "does", "for", "from", "give", "has", "have",
        "how", "its", "list", "me", "my", "not", "now", "our", "please", "should", "show", "tell", "that", "the",
        "their", "there", "they", "this", "was", "were", "what", "when", "where", "which", "who", "will", "with",
        "would", "you", "your",
    ];

    fn meaning(text: &str) -> Vec<String> {
        let mut out: Vec<String> =
            text.split(|c: char| !(c.is_alphanumeric() || c == '-'))
                .map(|w| w.trim_matches('-').to_lowercase())
                .filter(|w| w.chars().count() >= 3 && !STOP.contains(&w.as_str()))
                .map(|w| {
                    if w.len() > 4 && w.ends_with('s') && !w.ends_with("ss") {
                        w[..w.len() - 1].to_string()
                    } else {
                        w
                    }
                })
                .collect();
        out.sort();
        out.dedup();
        out
    }

    pub fn lessons_for<'a>(question: &str, lessons: &'a [Lesson]) -> Vec<&'a Lesson> {
        let asked = meaning(question);
        let mut scored: Vec<(usize, &Lesson)> = lessons
            .iter()
            .map(|l| (meaning(&l.text).iter().filter(|w| asked.contains(w)).count(), l))
            .filter(|(shared, _)| *shared > 0)
            .collect();
        scored.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.id.cmp(&a.1.id)));
        scored.into_iter().take(10).map(|(_, l)| l).collect()
    }
}

/// The bench's STAND-IN embedder, not a model: each folded word's character trigrams (with the
/// word's edges marked) hashed into 256 numbers, then scaled to unit length. Texts sharing word
/// pieces come out alike; texts meaning the same in other words do not.
mod stand_in {
    const DIMS: usize = 256;

    fn hash(s: &str) -> usize {
        // FNV-1a: fixed, so the figures are the same on every run.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in s.bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x100_0000_01b3);
        }
        (h % DIMS as u64) as usize
    }

    pub fn embed(text: &str) -> Vec<f32> {
        let mut v = vec![0.0f32; DIMS];
        for w in engine::terms::words(text) {
            let marked: Vec<char> = format!("<{w}>").chars().collect();
            for g in marked.windows(3) {
                v[hash(&g.iter().collect::<String>())] += 1.0;
            }
        }
        engine::kernel::embed::unit(&v).unwrap_or(v)
    }
}

/// A person's lessons, as a run would load them, and the questions asked of them.
struct Asking<'a> {
    lessons: Vec<Lesson>,
    /// Each question's style, words and the id of the lesson it is about.
    questions: Vec<(&'a str, &'a str, i64)>,
}

/// The hybrid ranking's trials: each weight of meaning with each floor of similarity. The
/// product's defaults (0.5, 0.5) are the fifth.
const TRIALS: [(f64, f32); 9] =
    [(0.3, 0.3), (0.3, 0.5), (0.3, 0.7), (0.5, 0.3), (0.5, 0.5), (0.5, 0.7), (0.7, 0.3), (0.7, 0.5), (0.7, 0.7)];
const DEFAULTS: usize = 4;

fn ids(found: Vec<&Lesson>) -> Vec<i64> {
    found.iter().map(|l| l.id).collect()
}

/// The product's ranking by words, and the word overlap it replaced.
fn by_words(asking: &[Asking]) -> (Tally, Tally) {
    let (mut ranked, mut baseline) = (Tally::default(), Tally::default());
    for person in asking {
        for &(style, question, expect) in &person.questions {
            ranked.add(style, &ids(lessons_for(question, &person.lessons)), expect);
            baseline.add(style, &ids(overlap::lessons_for(question, &person.lessons)), expect);
        }
    }
    (ranked, baseline)
}

/// The hybrid ranking at each trial, with `embed`'s vectors for lessons and questions.
fn with_meaning(asking: &[Asking], embed: &dyn Fn(&str) -> Vec<f32>) -> Vec<Tally> {
    let mut tallies: Vec<Tally> = TRIALS.iter().map(|_| Tally::default()).collect();
    for person in asking {
        let vectors: HashMap<i64, Vec<f32>> = person.lessons.iter().map(|l| (l.id, embed(&l.text))).collect();
        for &(style, question, expect) in &person.questions {
            let asked = embed(question);
            for ((weight, floor), tally) in TRIALS.iter().zip(tallies.iter_mut()) {
                let m = Meaning { weight: *weight, ..Meaning::new(&asked, &vectors, *floor) };
                tally.add(style, &ids(lessons_for_meaning(question, &person.lessons, Some(m))), expect);
            }
        }
    }
    tallies
}

fn table(rows: &[(String, &Tally)]) {
    println!("| selection | recall@10 | precision@10 | lessons loaded per question | loads first (recall@1) | MRR |");
    println!("|---|---|---|---|---|---|");
    for (name, t) in rows {
        println!(
            "| {name} | {:.3} | {:.3} | {:.1} | {:.3} | {:.3} |",
            t.recall(),
            t.precision(),
            t.per_question(),
            t.at_one(),
            t.mrr()
        );
    }
}

/// The real model's row at each trial, when its vectors were given; `false` without them.
fn real_model_rows<'a>(
    rows: &mut Vec<(String, &'a Tally)>,
    model: &Option<meaning::Vectors>,
    real: &'a Option<Vec<Tally>>,
) -> bool {
    let (Some(m), Some(real)) = (model, real) else { return false };
    for ((weight, floor), t) in TRIALS.iter().zip(real) {
        rows.push((format!("words and meaning, {}, weight {weight}, similarity floor {floor}", m.model), t));
    }
    true
}

/// Recall@10 and precision@10 of each selection over the set, overall and by style; then over the
/// questions in other words.
fn main() {
    let set = set::read();
    let other_words = meaning::read_other_words();
    let model = meaning::read_vectors();
    let at: DateTime<Utc> = "2026-11-01T09:00:00Z".parse().expect("a time");
    let lessons = |p: &set::Person| p.lessons.iter().enumerate().map(|(i, t)| lesson(i, t, None, at)).collect();
    let asking: Vec<Asking> = set
        .people
        .iter()
        .map(|p| Asking {
            lessons: lessons(p),
            questions: p.questions.iter().map(|q| (q.style.as_str(), q.question.as_str(), q.expect as i64)).collect(),
        })
        .collect();
    let asking_other: Vec<Asking> = set
        .people
        .iter()
        .enumerate()
        .map(|(i, p)| Asking {
            lessons: lessons(p),
            questions: other_words
                .iter()
                .filter(|q| q.person == i)
                .map(|q| ("other words", q.question.as_str(), q.expect as i64))
                .collect(),
        })
        .collect();

    let (ranked, baseline) = by_words(&asking);
    let stand_in = with_meaning(&asking, &stand_in::embed);
    let real = model.as_ref().map(|m| with_meaning(&asking, &|t| m.of(t)));
    println!(
        "recall set: {} questions over {} people, {} lessons each",
        ranked.asked,
        set.people.len(),
        set.people[0].lessons.len()
    );
    let mut rows: Vec<(String, &Tally)> =
        vec![("word overlap (before)".into(), &baseline), ("ranked by words (now, no embedder)".into(), &ranked)];
    for ((weight, floor), t) in TRIALS.iter().zip(&stand_in) {
        rows.push((format!("words and meaning, STAND-IN embedder, weight {weight}, similarity floor {floor}"), t));
    }
    real_model_rows(&mut rows, &model, &real);
    table(&rows);
    let mut styles: Vec<_> = ranked.by_style.keys().cloned().collect();
    styles.sort();
    println!("\n| style | recall@10 before | recall@10 now | stand-in, weight 0.5, floor 0.5 | real model, weight 0.5, floor 0.5 |");
    println!("|---|---|---|---|---|");
    let share = |x: (usize, usize)| format!("{:.2}", x.1 as f64 / x.0 as f64);
    for s in styles {
        let real = real.as_ref().map_or("(no vectors)".to_string(), |r| share(r[DEFAULTS].by_style[&s]));
        let (b, r, h) = (baseline.by_style[&s], ranked.by_style[&s], stand_in[DEFAULTS].by_style[&s]);
        println!("| {s} | {} | {} | {} | {real} |", share(b), share(r), share(h));
    }

    // The same lessons asked about in other words: what meaning adds where words cannot.
    let (ranked, baseline) = by_words(&asking_other);
    let stand_in = with_meaning(&asking_other, &stand_in::embed);
    let real = model.as_ref().map(|m| with_meaning(&asking_other, &|t| m.of(t)));
    println!("\nthe same lessons, {} questions in other words:", ranked.asked);
    let mut rows: Vec<(String, &Tally)> = vec![
        ("word overlap (before)".into(), &baseline),
        ("ranked by words (now, no embedder)".into(), &ranked),
        ("words and meaning, STAND-IN embedder, weight 0.5, similarity floor 0.5".into(), &stand_in[DEFAULTS]),
    ];
    if !real_model_rows(&mut rows, &model, &real) {
        println!("(no real model's vectors: set ENGRAM_BENCH_RECALL_VECTORS to a file made by recall/embed_set.py)")
    }
    table(&rows);

    // One person with 500 lessons: the first 500 of the set's, asked all 300 questions, ten times.
    let many: Vec<Lesson> = set
        .people
        .iter()
        .flat_map(|p| p.lessons.iter())
        .take(500)
        .enumerate()
        .map(|(i, t)| lesson(i, t, None, at))
        .collect();
    let questions: Vec<&str> =
        set.people.iter().flat_map(|p| p.questions.iter().map(|q| q.question.as_str())).collect();
    for q in questions.iter().take(50) {
        black_box(lessons_for(q, &many));
    }
    // As the store reads them: each lesson with the terms kept when it was written.
    let kept: Vec<Lesson> = many
        .iter()
        .cloned()
        .map(|mut l| {
            l.terms = Some(LessonTerms::of(&l.text));
            l
        })
        .collect();
    let many_vectors: HashMap<i64, Vec<f32>> = many.iter().map(|l| (l.id, stand_in::embed(&l.text))).collect();
    let asked: Vec<Vec<f32>> = questions.iter().map(|q| stand_in::embed(q)).collect();
    // As wide as a real model's (1,536 numbers, OpenAI's text-embedding-3-small), the numbers made
    // up: the time of comparing them, not what they find.
    let wide_of = |seed: u64| {
        let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        let v: Vec<f32> = (0..1536)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x % 2_000) as f32 / 1_000.0 - 1.0
            })
            .collect();
        engine::kernel::embed::unit(&v).expect("not zero")
    };
    let wide: HashMap<i64, Vec<f32>> = many.iter().map(|l| (l.id, wide_of(l.id as u64 + 1))).collect();
    let wide_question = wide_of(7);
    let (mut now, mut made, mut before, mut fused) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut fused_wide = Vec::new();
    for _ in 0..10 {
        for (q, v) in questions.iter().zip(&asked) {
            // The ranking's own time with the vectors in hand: the question's one call to a real
            // endpoint, and reading the kept vectors, come on top.
            let m = Meaning::new(v, &many_vectors, 0.5);
            let t = Instant::now();
            black_box(lessons_for_meaning(black_box(q), &kept, Some(m)));
            fused.push(t.elapsed());
            let m = Meaning::new(&wide_question, &wide, 0.5);
            let t = Instant::now();
            black_box(lessons_for_meaning(black_box(q), &kept, Some(m)));
            fused_wide.push(t.elapsed());
            let t = Instant::now();
            black_box(lessons_for(black_box(q), &kept));
            now.push(t.elapsed());
            let t = Instant::now();
            black_box(lessons_for(black_box(q), &many));
            made.push(t.elapsed());
            let t = Instant::now();
            black_box(overlap::lessons_for(black_box(q), &many));
            before.push(t.elapsed());
        }
    }
    for v in [&mut now, &mut made, &mut before, &mut fused, &mut fused_wide] {
        v.sort();
    }
    println!("\nselection for a person with 500 lessons, {} questions:", now.len());
    println!("| selection | p50 | p99 |");
    println!("|---|---|---|");
    for (name, v) in [
        ("ranked, terms kept with each lesson (now)", &now),
        ("words and meaning, 256-number stand-in vectors in hand", &fused),
        ("words and meaning, 1,536-number vectors in hand", &fused_wide),
        ("ranked, terms made on read (lessons kept before)", &made),
        ("word overlap (before)", &before),
    ] {
        println!("| {name} | {:.2?} | {:.2?} |", percentile(v, 0.5), percentile(v, 0.99));
    }
}
