//! Keeping a private note: the person's own, read only by them and by their own asks.

use super::*;
use crate::runs::notes::{note_text, Note};

impl Runs {
    /// Keeps a note for the person's own runs. Only `private` knowledge is kept for now; what a
    /// team or the company knows comes with lessons and their review.
    pub async fn keep_note(&self, person: &Person, scope: &str, text: &str) -> Result<Note, RunError> {
        if scope != "private" {
            return Err(RunError::Invalid(format!(
                "Only private knowledge can be kept here: the scope is \u{201c}private\u{201d}, not \u{201c}{scope}\u{201d}"
            )));
        }
        let text = note_text(text).map_err(RunError::Invalid)?;
        let note = self.store.add_note(person.id, &text, self.now()).await?;
        tracing::info!(note = note.id, person = %person.id, "a private note was kept");
        Ok(note)
    }

    /// The person's own notes, newest first.
    pub async fn my_notes(&self, person: &Person) -> Result<Vec<Note>, RunError> {
        Ok(self.store.notes_of(person.id).await?)
    }

    /// The person's own notes as their Memory page lists them: each text with its age, "kept
    /// 2 h ago", newest first.
    pub async fn my_note_lines(&self, person: &Person) -> Result<Vec<(String, String)>, RunError> {
        let now = self.now();
        Ok(self
            .my_notes(person)
            .await?
            .into_iter()
            .map(|n| (n.text, format!("kept {}", crate::cards::service::age_words(n.created_at, now))))
            .collect())
    }
}
