//! The record of seed 004's audits: each audit that was applied, with the files' texts before
//! (its version, which Undo restores) and after, an audit row per action, what it left
//! unresolved, and when each entry was first seen, which is how old a temporary state is.

use super::memory_audit::{AuditAction, AuditFile};
use crate::kernel::StoreError;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// An entry the audit could not place, left as it was.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unresolved {
    pub file: AuditFile,
    pub entry: String,
    pub reason: String,
}

/// One action of an audit and what became of it: "applied", or why not.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActionRecord {
    pub action: AuditAction,
    pub outcome: String,
}

/// An applied audit: what started it, both files before (its version) and after, and each action.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Audit {
    /// The agent's name, or `dir:<path>` for a Hermes memories folder.
    pub subject: String,
    /// What started it, in words: requested, a file past the threshold, 14 days, or a first audit.
    pub trigger: String,
    pub by: String,
    pub at: DateTime<Utc>,
    pub memory_before: String,
    pub user_before: String,
    pub memory_after: String,
    pub user_after: String,
    pub memory_percent: u32,
    pub user_percent: u32,
    pub actions: Vec<ActionRecord>,
    pub unresolved: Vec<Unresolved>,
    pub summary: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NewAudit {
    #[serde(flatten)]
    pub audit: Audit,
    /// Every entry it read, so that the next audit knows how long each has been there.
    pub seen: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditRecord {
    pub id: i64,
    #[serde(flatten)]
    pub audit: Audit,
    pub undone_at: Option<DateTime<Utc>>,
    pub undone_by: Option<String>,
}

#[async_trait]
pub trait MemoryAuditStore: Send + Sync {
    /// Records an applied audit, its action rows and its entries first seen, in one transaction.
    async fn record_memory_audit(&self, audit: &NewAudit) -> Result<AuditRecord, StoreError>;
    /// The subject's audits, newest first, at most `limit`.
    async fn memory_audits(&self, subject: &str, limit: u32) -> Result<Vec<AuditRecord>, StoreError>;
    async fn memory_audit(&self, id: i64) -> Result<Option<AuditRecord>, StoreError>;
    /// Marks an audit undone; `StoreError::Changed` when it already was.
    async fn mark_memory_audit_undone(&self, id: i64, by: &str, at: DateTime<Utc>) -> Result<AuditRecord, StoreError>;
    /// When each entry was first seen in the subject's files by an audit, if ever.
    async fn entries_first_seen(
        &self,
        subject: &str,
        entries: &[String],
    ) -> Result<Vec<Option<DateTime<Utc>>>, StoreError>;
}
