//! The labelled recall set and what both recall benches build from it: the engine's
//! (`benches/recall.rs`, the product's ranking beside word overlap) and the server's
//! (`server/benches/recall_fts.rs`, beside the databases' own text search). Each includes this file
//! by path, so the set is read, and its lessons made and tallied, one way.

use chrono::{DateTime, Utc};
use engine::kernel::{DataLabel, PersonId};
use engine::lessons::select::LessonTerms;
use engine::lessons::{Lesson, LessonScope, LessonState, WrittenBy};
use serde::Deserialize;
use std::collections::HashMap;
use std::time::Duration;

#[derive(Deserialize)]
pub struct Set {
    pub people: Vec<Person>,
}

#[derive(Deserialize)]
pub struct Person {
    pub lessons: Vec<String>,
    pub questions: Vec<Question>,
}

#[derive(Deserialize)]
pub struct Question {
    pub style: String,
    pub question: String,
    pub expect: usize,
}

/// A file committed beside the set.
pub fn committed(name: &str) -> String {
    let path = format!("{}/../engine/benches/recall/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The committed set, `engine/benches/recall/recall_set.json`.
pub fn read() -> Set {
    serde_json::from_str(&committed("recall_set.json")).expect("its shape")
}

/// A person's accepted, confirmed lesson as a run would load it; `terms` as kept when it was written,
/// or `None` for one kept before terms were (they are made on read).
pub fn lesson(id: usize, text: &str, terms: Option<LessonTerms>, at: DateTime<Utc>) -> Lesson {
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
        terms,
    }
}

/// recall@10 and precision@10 of one selection over the set, overall and by question style.
#[derive(Default)]
pub struct Tally {
    pub asked: usize,
    pub found: usize,
    pub loaded: usize,
    /// Questions whose lesson loads first.
    pub first: usize,
    /// The sum of 1 / the lesson's place among those loaded (0 when it does not load).
    pub reciprocal_ranks: f64,
    pub by_style: HashMap<String, (usize, usize)>,
}

impl Tally {
    pub fn add(&mut self, style: &str, loaded: &[i64], expect: i64) {
        let found = loaded.contains(&expect);
        let place = loaded.iter().position(|id| *id == expect);
        self.first += usize::from(place == Some(0));
        self.reciprocal_ranks += place.map_or(0.0, |p| 1.0 / (p + 1) as f64);
        self.asked += 1;
        self.found += usize::from(found);
        self.loaded += loaded.len();
        let s = self.by_style.entry(style.to_string()).or_default();
        s.0 += 1;
        s.1 += usize::from(found);
    }

    pub fn recall(&self) -> f64 {
        self.found as f64 / self.asked as f64
    }

    /// Of the lessons loaded, the share that is the one asked about.
    pub fn precision(&self) -> f64 {
        if self.loaded == 0 {
            0.0
        } else {
            self.found as f64 / self.loaded as f64
        }
    }

    /// The share of questions whose lesson loads first (recall@1).
    #[allow(dead_code)] // The server's bench does not print it.
    pub fn at_one(&self) -> f64 {
        self.first as f64 / self.asked as f64
    }

    /// Mean reciprocal rank: 1 when the lesson asked about always loads first.
    #[allow(dead_code)]
    pub fn mrr(&self) -> f64 {
        self.reciprocal_ranks / self.asked as f64
    }

    /// Lessons loaded per question.
    pub fn per_question(&self) -> f64 {
        self.loaded as f64 / self.asked as f64
    }
}

/// The `p` quantile (0 to 1) of sorted durations.
pub fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    sorted[(((sorted.len() as f64 - 1.0) * p).round() as usize).min(sorted.len() - 1)]
}
