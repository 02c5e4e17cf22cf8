//! Messages carried across the redirect that follows a form post, so the page that shows the
//! outcome works the same with JavaScript on and off.

use serde::{Deserialize, Serialize};

/// A one-line outcome shown at the top of a page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Notice {
    pub text: String,
    pub ok: bool,
}

impl Notice {
    pub fn ok(text: impl Into<String>) -> Self {
        Self { text: text.into(), ok: true }
    }
    pub fn refused(text: impl Into<String>) -> Self {
        Self { text: text.into(), ok: false }
    }
}

/// The flash key for the notice of the page at `path`.
pub fn notice_key(path: &str) -> String {
    format!("notice:{path}")
}

/// The editor's text kept across a refused save or a reload, so nothing typed is lost.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Draft {
    pub text: String,
    pub note: String,
    pub based_on: u32,
    pub message: String,
    /// The save was refused because someone saved first; offer Reload.
    pub changed: bool,
    /// The person pressed Reload: the editor holds the newest version and this text goes below.
    pub reloaded: bool,
    /// Draft from what exists wrote it: the message says so, and nothing was refused.
    #[serde(default)]
    pub drafted: bool,
}

pub fn draft_key(scope: &str) -> String {
    format!("draft:{scope}")
}

/// A question kept across a refused ask, with the refusal, so nothing typed is lost.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuestionDraft {
    /// The agent chosen on the Ask page, as the form sent it; empty in a thread.
    pub agent: String,
    pub question: String,
    pub message: String,
}

/// The flash key for the question kept on the page at `path` (the Ask page, or a thread).
pub fn question_draft_key(path: &str) -> String {
    format!("question:{path}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_page_and_core_has_its_own_flash() {
        assert_ne!(notice_key("/company/roles"), notice_key("/company/teams"));
        assert_ne!(draft_key("company:role:sales"), draft_key("team:1"));
        assert_ne!(question_draft_key("/ask"), question_draft_key("/threads/1"));
        assert!(Notice::ok("x").ok && !Notice::refused("x").ok);
    }
}
