//! Recall of lessons: for each of the 300 labelled questions in `recall/recall_set.json` (50 people,
//! 6 questions each in six styles, 56 lessons each of which 50 are distractors), whether the
//! lesson it is about is among the 10 a run loads, and how many of those loaded are it. The
//! product's ranking is measured beside the word overlap it replaced, in the same run. Then the
//! selection's time for a person with 500 lessons. Run with `cargo bench -p engine --bench recall`;
//! the set is made by `recall/make_set.py`. Figures are printed, never asserted.

use chrono::{DateTime, Utc};
use engine::kernel::{DataLabel, PersonId};
use engine::lessons::select::{lessons_for, LessonTerms};
use engine::lessons::{Lesson, LessonScope, LessonState, WrittenBy};
use serde::Deserialize;
use std::collections::HashMap;
use std::hint::black_box;
use std::time::{Duration, Instant};

// The allocator the `engram` binary uses, so the figures are the server's.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Deserialize)]
struct Set {
    people: Vec<Person>,
}

#[derive(Deserialize)]
struct Person {
    lessons: Vec<String>,
    questions: Vec<Question>,
}

#[derive(Deserialize)]
struct Question {
    style: String,
    question: String,
    expect: usize,
}

fn lesson(id: usize, text: &str, at: DateTime<Utc>) -> Lesson {
    Lesson {
        id: id as i64,
        person: PersonId(1),
        scope: LessonScope::Personal,
        text: text.into(),
        evidence: vec![],
        label: DataLabel::Internal,
        checked_at: None,
        source_version: None,
        valid_from: at,
        valid_to: None,
        claim: None,
        state: LessonState::Accepted,
        state_at: at,
        state_reason: None,
        confirmed: true,
        supersedes: None,
        written_by: WrittenBy::Person,
        created_at: at,
        terms: None,
    }
}

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

/// Recall@10 and precision@10 of one selection over the set, overall and by style.
#[derive(Default)]
struct Tally {
    asked: usize,
    found: usize,
    loaded: usize,
    by_style: HashMap<String, (usize, usize)>,
}

impl Tally {
    fn add(&mut self, style: &str, loaded: &[i64], expect: i64) {
        let found = loaded.contains(&expect);
        self.asked += 1;
        self.found += usize::from(found);
        self.loaded += loaded.len();
        let s = self.by_style.entry(style.to_string()).or_default();
        s.0 += 1;
        s.1 += usize::from(found);
    }

    fn recall(&self) -> f64 {
        self.found as f64 / self.asked as f64
    }

    /// Of the lessons loaded, the share that is the one asked about.
    fn precision(&self) -> f64 {
        if self.loaded == 0 {
            0.0
        } else {
            self.found as f64 / self.loaded as f64
        }
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn main() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/benches/recall/recall_set.json");
    let set: Set = serde_json::from_str(&std::fs::read_to_string(path).expect("the recall set")).expect("its shape");
    let at: DateTime<Utc> = "2026-11-01T09:00:00Z".parse().expect("a time");

    let (mut ranked, mut baseline) = (Tally::default(), Tally::default());
    for person in &set.people {
        let lessons: Vec<Lesson> = person.lessons.iter().enumerate().map(|(i, t)| lesson(i, t, at)).collect();
        for q in &person.questions {
            let ids = |found: Vec<&Lesson>| found.iter().map(|l| l.id).collect::<Vec<_>>();
            ranked.add(&q.style, &ids(lessons_for(&q.question, &lessons)), q.expect as i64);
            baseline.add(&q.style, &ids(overlap::lessons_for(&q.question, &lessons)), q.expect as i64);
        }
    }
    println!(
        "recall set: {} questions over {} people, {} lessons each",
        ranked.asked,
        set.people.len(),
        set.people[0].lessons.len()
    );
    println!("| selection | recall@10 | precision@10 | lessons loaded per question |");
    println!("|---|---|---|---|");
    for (name, t) in [("word overlap (before)", &baseline), ("ranked (now)", &ranked)] {
        println!("| {name} | {:.3} | {:.3} | {:.1} |", t.recall(), t.precision(), t.loaded as f64 / t.asked as f64);
    }
    let mut styles: Vec<_> = ranked.by_style.keys().cloned().collect();
    styles.sort();
    println!("\n| style | recall@10 before | recall@10 now |");
    println!("|---|---|---|");
    for s in styles {
        let (b, r) = (baseline.by_style[&s], ranked.by_style[&s]);
        println!("| {s} | {:.2} | {:.2} |", b.1 as f64 / b.0 as f64, r.1 as f64 / r.0 as f64);
    }

    // One person with 500 lessons: the first 500 of the set's, asked all 300 questions, ten times.
    let many: Vec<Lesson> =
        set.people.iter().flat_map(|p| p.lessons.iter()).take(500).enumerate().map(|(i, t)| lesson(i, t, at)).collect();
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
    let (mut now, mut made, mut before) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..10 {
        for q in &questions {
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
    for v in [&mut now, &mut made, &mut before] {
        v.sort();
    }
    println!("\nselection for a person with 500 lessons, {} questions:", now.len());
    println!("| selection | p50 | p99 |");
    println!("|---|---|---|");
    for (name, v) in [
        ("ranked, terms kept with each lesson (now)", &now),
        ("ranked, terms made on read (lessons kept before)", &made),
        ("word overlap (before)", &before),
    ] {
        println!("| {name} | {:.2?} | {:.2?} |", percentile(v, 0.5), percentile(v, 0.99));
    }
}
