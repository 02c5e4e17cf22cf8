//! `engram org recall <agent> "<query>"`: what a bot's memory holds about a query, searched in its
//! three places (seed 000's commands table): the generated core.md, its memory lines and its
//! hand-written `.agents/org/memory/<name>.md`.

use super::backlog::MemoryRow;
use serde::{Deserialize, Serialize};

/// Where a hit was found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum RecallPlace {
    /// A line of the generated core.md, by line number.
    Core { line: usize },
    /// A memory line, active or (asked for) closed.
    Row { id: i64, kind: String, active: bool, times_seen: u32 },
    /// A line of the hand-written file, by line number.
    HandWritten { line: usize },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecallHit {
    pub place: RecallPlace,
    pub text: String,
    /// How many of the query's words the text holds.
    pub matched: usize,
}

/// What one recall searches: the bot's files as read now and its rows.
pub struct RecallSources<'a> {
    pub core: Option<&'a str>,
    pub rows: &'a [MemoryRow],
    pub hand_written: Option<&'a str>,
}

/// The words a query searches by, lowercased, each once. Words of one or two letters are left out
/// unless the query has nothing else, so "is the CRM up" searches by "crm".
pub fn query_words(query: &str) -> Vec<String> {
    let all: Vec<String> = query
        .to_lowercase()
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'))
        .filter(|w| !w.is_empty())
        .map(String::from)
        .collect();
    let long: Vec<String> = all.iter().filter(|w| w.chars().count() > 2).cloned().collect();
    let mut words = if long.is_empty() { all } else { long };
    let mut seen = std::collections::HashSet::new();
    words.retain(|w| seen.insert(w.clone()));
    words
}

fn matched(words: &[String], text: &str) -> usize {
    let text = text.to_lowercase();
    words.iter().filter(|w| text.contains(w.as_str())).count()
}

/// Every line holding a word of the query, the most words first, then in the order the places
/// are read: core.md, the rows (most seen first), the hand-written file. Blank lines, headings
/// and the generated file's markers never match on their own.
pub fn recall(query: &str, sources: &RecallSources) -> Vec<RecallHit> {
    let words = query_words(query);
    if words.is_empty() {
        return vec![];
    }
    let mut hits = Vec::new();
    let file_lines = |text: &str, place: fn(usize) -> RecallPlace, hits: &mut Vec<RecallHit>| {
        for (i, line) in text.lines().enumerate() {
            let t = line.trim();
            if t.is_empty() || t.starts_with('#') || t.starts_with("<!--") {
                continue;
            }
            let m = matched(&words, t);
            if m > 0 {
                hits.push(RecallHit { place: place(i + 1), text: t.to_string(), matched: m });
            }
        }
    };
    if let Some(core) = sources.core {
        file_lines(core, |line| RecallPlace::Core { line }, &mut hits);
    }
    let mut rows: Vec<&MemoryRow> = sources.rows.iter().collect();
    rows.sort_by(|a, b| b.active.cmp(&a.active).then(b.times_seen.cmp(&a.times_seen)).then(a.id.cmp(&b.id)));
    for r in rows {
        let m = matched(&words, &r.text);
        if m > 0 {
            hits.push(RecallHit {
                place: RecallPlace::Row {
                    id: r.id,
                    kind: r.kind.as_str().to_string(),
                    active: r.active,
                    times_seen: r.times_seen,
                },
                text: r.text.clone(),
                matched: m,
            });
        }
    }
    if let Some(hand) = sources.hand_written {
        file_lines(hand, |line| RecallPlace::HandWritten { line }, &mut hits);
    }
    // A stable sort keeps the places' order among equal matches.
    hits.sort_by_key(|h| std::cmp::Reverse(h.matched));
    hits
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::persona::render::MemoryKind;
    use chrono::Utc;

    fn row(id: i64, text: &str, times_seen: u32, active: bool) -> MemoryRow {
        MemoryRow {
            id,
            agent: "scout".into(),
            kind: MemoryKind::Lesson,
            text: text.into(),
            times_seen,
            worth: 0,
            first_seen: Utc::now(),
            last_seen: Utc::now(),
            active,
            closed_at: None,
            closed_reason: None,
            closed_by: None,
            superseded_by: None,
            promoted_to_proposal: false,
            proposal_task_id: None,
            evidence: vec![],
        }
    }

    #[test]
    fn query_words_drop_short_words_unless_nothing_else_is_left() {
        assert_eq!(query_words("Is the CRM up?"), vec!["the", "crm"]);
        assert_eq!(query_words("is it up"), vec!["is", "it", "up"]);
        assert_eq!(query_words("CRM crm, Crm"), vec!["crm"]);
        assert!(query_words("  ?! ").is_empty());
    }

    #[test]
    fn searches_the_three_places_most_words_first() {
        let core = "# scout's memory\n<!-- generated -->\n- I check the CRM before adding a lead.\n\n- I say when I am unsure.\n";
        let hand = "# Notes\nThe CRM export runs at night.\nLeads from the fair go to Ada.\n";
        let rows = vec![
            row(1, "I check the CRM before adding a lead.", 4, true),
            row(2, "I wait on CRM exports.", 1, true),
            row(3, "I used the old CRM login.", 9, false),
        ];
        let hits = recall("crm export", &RecallSources { core: Some(core), rows: &rows, hand_written: Some(hand) });
        let places: Vec<_> = hits.iter().map(|h| (h.place.clone(), h.matched)).collect();
        assert_eq!(
            places,
            vec![
                (RecallPlace::Row { id: 2, kind: "lesson".into(), active: true, times_seen: 1 }, 2),
                (RecallPlace::HandWritten { line: 2 }, 2),
                (RecallPlace::Core { line: 3 }, 1),
                (RecallPlace::Row { id: 1, kind: "lesson".into(), active: true, times_seen: 4 }, 1),
                (RecallPlace::Row { id: 3, kind: "lesson".into(), active: false, times_seen: 9 }, 1),
            ]
        );
        assert_eq!(hits[1].text, "The CRM export runs at night.");
        // Headings and the generated marker never match, though they hold the agent's name.
        let none = recall("scout generated", &RecallSources { core: Some(core), rows: &[], hand_written: None });
        assert!(none.is_empty(), "{none:?}");
        assert!(recall("", &RecallSources { core: Some(core), rows: &rows, hand_written: Some(hand) }).is_empty());
    }
}
