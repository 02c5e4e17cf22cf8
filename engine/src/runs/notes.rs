//! A person's private notes: what they keep for their own runs ("Dana Brooks at Litware reads
//! mail at dana@litware.example"). Until lessons come, a note loads into that person's asks as
//! quoted data, like a lesson, with the ref `{"lesson": "note:<id>"}`. Nobody else reads it, and
//! a value in it is remembered, never acted on without a read (see `provenance`).

use crate::cards::select::question_terms;
use crate::org::PersonId;
use crate::store::StoreError;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// The longest note a person may keep.
pub const NOTE_MAX_CHARS: usize = 1_000;
/// At most this many notes load into one run, newest first, within the lessons' budget.
pub const NOTES_PER_RUN: usize = 10;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Note {
    pub id: i64,
    pub person: PersonId,
    pub text: String,
    pub created_at: DateTime<Utc>,
}

impl Note {
    /// Its id as refs and provenance name it: `note:<id>`.
    pub fn ref_id(&self) -> String {
        format!("note:{}", self.id)
    }
}

#[async_trait]
pub trait NoteStore: Send + Sync {
    async fn add_note(&self, person: PersonId, text: &str, at: DateTime<Utc>) -> Result<Note, StoreError>;
    /// The person's notes, newest first.
    async fn notes_of(&self, person: PersonId) -> Result<Vec<Note>, StoreError>;
}

/// A note's text as kept: trimmed, not empty, not too long; `Err` is the sentence for the person.
pub fn note_text(text: &str) -> Result<String, String> {
    let t = text.trim();
    if t.is_empty() {
        return Err("Write the note first".into());
    }
    let n = t.chars().count();
    if n > NOTE_MAX_CHARS {
        return Err(format!("A note holds at most {NOTE_MAX_CHARS} characters; this one has {n}"));
    }
    Ok(t.to_string())
}

/// The notes a question loads: those sharing a word of three letters or more with it (an email
/// address counts whole and by its parts), newest first, at most `NOTES_PER_RUN`.
pub fn notes_for<'a>(question: &str, notes: &'a [Note]) -> Vec<&'a Note> {
    let asked: Vec<String> = question_terms(question).into_iter().filter(|t| t.chars().count() >= 3).collect();
    notes
        .iter()
        .filter(|n| {
            let words = question_terms(&n.text);
            words.iter().any(|w| {
                asked.contains(w) || w.split(['@', '.']).any(|part| part.len() >= 3 && asked.iter().any(|a| a == part))
            })
        })
        .take(NOTES_PER_RUN)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn note(id: i64, text: &str) -> Note {
        Note { id, person: PersonId(1), text: text.into(), created_at: Utc::now() }
    }

    #[test]
    fn a_note_loads_when_the_question_shares_a_word_with_it() {
        let notes = [
            note(2, "Dana Brooks at Litware reads mail at dana@litware.example"),
            note(1, "Kaveri Foods' CFO prefers calls before 10"),
        ];
        let ids = |q: &str| notes_for(q, &notes).iter().map(|n| n.id).collect::<Vec<_>>();
        assert_eq!(ids("email Dana that the proposal is ready"), [2]);
        assert_eq!(ids("when should I call Kaveri?"), [1]);
        assert_eq!(ids("what is at stake"), Vec::<i64>::new(), "two-letter words name nothing");
        assert_eq!(ids("what are our sales stages"), Vec::<i64>::new());
    }

    #[test]
    fn a_note_must_have_words_and_not_too_many() {
        assert_eq!(
            note_text("  Dana reads mail at dana@litware.example "),
            Ok("Dana reads mail at dana@litware.example".into())
        );
        assert_eq!(note_text("   "), Err("Write the note first".into()));
        assert_eq!(
            note_text(&"x".repeat(1_001)),
            Err("A note holds at most 1000 characters; this one has 1001".into())
        );
    }
}
