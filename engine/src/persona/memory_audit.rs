//! Seed 004's memory audit, its pure part: splitting a memory file into entries, the plain-rule
//! categories (the fallback when no model categorises), when an audit is due, and the plan of
//! actions from categorised entries. Reading the files, asking the model, checking URLs and
//! models, and writing are the service's; nothing here does input or output.

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};
use std::ops::Range;

/// Hermes' entry delimiter (`tools/memory_tool.py`, `ENTRY_DELIMITER`): entries may span lines.
pub const HERMES_DELIMITER: &str = "\n§\n";
/// Temporary state and a re-audit both have this shelf life.
pub const SHELF_LIFE_DAYS: i64 = 14;
/// The seed's skip rule: both files under this share, and an audit younger than the shelf life.
pub const SKIP_BELOW_PERCENT: u32 = 75;
pub const UNVERIFIED: &str = "[UNVERIFIED]";
/// What marking an entry adds at its end.
pub const UNVERIFIED_MARK: &str = " [UNVERIFIED]";
/// What a person may ask for in words to start an audit.
pub const REQUEST_PHRASES: [&str; 4] = ["memory audit", "memory maintenance", "clean up memory", "memory is full"];

/// The seed's parameters, with its defaults.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AuditParams {
    pub memory_threshold: u32,
    pub max_memory_chars: u32,
    pub max_user_chars: u32,
    pub compress_entries: bool,
    pub dry_run: bool,
}

impl Default for AuditParams {
    fn default() -> Self {
        Self {
            memory_threshold: 85,
            max_memory_chars: 2_200,
            max_user_chars: 1_375,
            compress_entries: true,
            dry_run: false,
        }
    }
}

/// The two files an audit keeps: what the bot knows (MEMORY.md) and about its people (USER.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum AuditFile {
    Memory,
    User,
}

crate::string_enum!(AuditFile { Memory => "MEMORY.md", User => "USER.md" });

/// How a file's entries are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryFormat {
    /// Hermes' memories folder: entries joined by `\n§\n`.
    Hermes,
    /// Engram's hand-written markdown: each list item (with its indented lines) or paragraph is an
    /// entry; headings are not.
    Markdown,
}

/// Each entry's bytes in the text (its whole lines for markdown, trimmed for Hermes) and its
/// text as `split_entries` gives it.
pub fn entry_spans(text: &str, format: EntryFormat) -> Vec<(Range<usize>, String)> {
    match format {
        EntryFormat::Hermes => {
            let mut out = Vec::new();
            let mut start = 0;
            loop {
                let end = text[start..].find(HERMES_DELIMITER).map_or(text.len(), |i| start + i);
                let raw = &text[start..end];
                let lead = raw.len() - raw.trim_start().len();
                let trimmed = raw.trim();
                if !trimmed.is_empty() {
                    out.push((start + lead..start + lead + trimmed.len(), trimmed.to_string()));
                }
                if end == text.len() {
                    return out;
                }
                start = end + HERMES_DELIMITER.len();
            }
        }
        EntryFormat::Markdown => {
            let mut out = Vec::new();
            // The entry being read: its start, its end so far, its text, and whether it is a list item.
            let mut current: Option<(usize, usize, String, bool)> = None;
            let mut at = 0;
            for line in text.split_inclusive('\n') {
                let (start, end) = (at, at + line.trim_end_matches(['\n', '\r']).len());
                at += line.len();
                let t = line.trim();
                let flush = |c: &mut Option<(usize, usize, String, bool)>, out: &mut Vec<_>| {
                    if let Some((s, e, text, _)) = c.take() {
                        out.push((s..e, text));
                    }
                };
                if t.is_empty() || t.starts_with('#') {
                    flush(&mut current, &mut out);
                    continue;
                }
                // An entry's span starts at its text, after the indent and the list marker.
                let content = start + (line.len() - line.trim_start().len());
                if let Some(item) = t.strip_prefix("- ").or_else(|| t.strip_prefix("* ")) {
                    flush(&mut current, &mut out);
                    let item_at = content + 2 + (item.len() - item.trim_start().len());
                    current = Some((item_at, end, item.trim().to_string(), true));
                    continue;
                }
                let indented = line.starts_with([' ', '\t']);
                match current.take() {
                    Some((s, _, c, is_item)) if indented || !is_item => {
                        current = Some((s, end, format!("{c} {t}"), is_item))
                    }
                    Some((s, e, c, _)) => {
                        out.push((s..e, c));
                        current = Some((content, end, t.to_string(), false));
                    }
                    None => current = Some((content, end, t.to_string(), false)),
                }
            }
            if let Some((s, e, c, _)) = current {
                out.push((s..e, c));
            }
            out
        }
    }
}

/// The entries of a file, in order, each trimmed; empty ones dropped.
pub fn split_entries(text: &str, format: EntryFormat) -> Vec<String> {
    entry_spans(text, format).into_iter().map(|(_, t)| t).collect()
}

/// A file's size as the format counts it: Hermes counts its entries joined by the delimiter.
pub fn chars(text: &str, format: EntryFormat) -> usize {
    match format {
        EntryFormat::Hermes => split_entries(text, format).join(HERMES_DELIMITER).chars().count(),
        EntryFormat::Markdown => text.chars().count(),
    }
}

/// Utilisation as a whole percentage of the limit (a limit of 0 counts as full).
pub fn utilisation(chars: usize, limit: u32) -> u32 {
    if limit == 0 {
        return 100;
    }
    ((chars as u64 * 100) / limit as u64) as u32
}

/// The seed's seven categories.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Category {
    SessionNote,
    TemporaryState,
    HistoricalSnapshot,
    TechnicalConfig,
    Identity,
    Preference,
    OperatingRule,
}

pub const CATEGORIES: [Category; 7] = [
    Category::SessionNote,
    Category::TemporaryState,
    Category::HistoricalSnapshot,
    Category::TechnicalConfig,
    Category::Identity,
    Category::Preference,
    Category::OperatingRule,
];

impl Category {
    pub fn as_str(&self) -> &'static str {
        match self {
            Category::SessionNote => "Session Note",
            Category::TemporaryState => "Temporary State",
            Category::HistoricalSnapshot => "Historical Snapshot",
            Category::TechnicalConfig => "Technical Config",
            Category::Identity => "Identity",
            Category::Preference => "Preference",
            Category::OperatingRule => "Operating Rule",
        }
    }

    /// The category a model named, by the seed's words, case and spacing aside.
    pub fn parse(s: &str) -> Option<Self> {
        let key = |s: &str| s.chars().filter(|c| c.is_alphanumeric()).collect::<String>().to_lowercase();
        CATEGORIES.into_iter().find(|c| key(c.as_str()) == key(s))
    }

    /// The file an entry of this category belongs in, when it belongs in one of the two.
    fn home(&self) -> Option<AuditFile> {
        match self {
            Category::TechnicalConfig => Some(AuditFile::Memory),
            Category::Identity | Category::Preference => Some(AuditFile::User),
            _ => None,
        }
    }
}

/// Words that mark each category, for the plain rules.
const CUES: [(Category, &[&str]); 7] = [
    (Category::SessionNote, &["this session", "in this conversation", "earlier today", "session note", "just now"]),
    (
        Category::TemporaryState,
        &["verbal offer", "deal pending", "negotiation", "pending", "waiting on", "for now", "until further notice"],
    ),
    (Category::HistoricalSnapshot, &["as of ", "previously", "used to", "was at ", "snapshot", "last quarter"]),
    (
        Category::TechnicalConfig,
        &["http://", "https://", "model:", "endpoint", "api key", "port ", "config", "base url", "path:", ".yaml"],
    ),
    (
        Category::Identity,
        &["name is", "is called", "works at", "lives in", "time zone", "timezone", "pronouns", "their role is"],
    ),
    (Category::Preference, &["prefers", "likes", "dislikes", "would rather", "wants replies", "favourite", "favorite"]),
    (Category::OperatingRule, &["always ", "never ", "must ", "do not ", "don't ", "before you", "before i "]),
];

/// An entry's category by the plain rules, or why it has none: no cue, or cues of categories
/// whose files differ, so the choice would move it.
pub fn categorise_by_rules(entry: &str) -> Result<Category, String> {
    let lower = entry.to_lowercase();
    let hits: Vec<Category> =
        CUES.iter().filter(|(_, cues)| cues.iter().any(|c| lower.contains(c))).map(|(c, _)| *c).collect();
    match hits.as_slice() {
        [] => Err("no rule places it; a model did not categorise it".to_string()),
        [one] => Ok(*one),
        many => {
            // The first in the seed's order wins unless two of them would send it to different files.
            let homes: Vec<AuditFile> = many.iter().filter_map(Category::home).collect();
            if homes.windows(2).any(|w| w[0] != w[1]) {
                let names: Vec<&str> = many.iter().map(Category::as_str).collect();
                Err(format!("it could be {}, and the choice decides its file", names.join(" or ")))
            } else {
                Ok(many[0])
            }
        }
    }
}

/// An entry as the audit read it, with its category or why it has none.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    pub file: AuditFile,
    pub text: String,
    /// The earliest time the entry is known to have been in the file.
    pub since: DateTime<Utc>,
    pub category: Result<Category, String>,
    /// A shorter wording the model offered, when `compress_entries` is on.
    #[serde(default)]
    pub shorter: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum AuditAction {
    Delete {
        file: AuditFile,
        entry: String,
        reason: String,
    },
    Move {
        from: AuditFile,
        to: AuditFile,
        entry: String,
    },
    /// An operating rule goes into a skill file, which only a person changes: an improve card.
    ToSkill {
        file: AuditFile,
        entry: String,
    },
    MarkUnverified {
        entry: String,
        url: String,
    },
    Correct {
        entry: String,
        corrected: String,
    },
    /// `compress_entries`: the same entry in fewer characters.
    Compress {
        file: AuditFile,
        entry: String,
        shorter: String,
    },
}

/// What the checks against live systems found, for the plan.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Verified {
    /// URLs that did not answer within the bounded request.
    pub unreachable: Vec<String>,
    /// A configured model name that is not in the provider's list, and the one to use.
    pub models: Vec<(String, String)>,
}

/// The URLs an entry names.
pub fn urls(entry: &str) -> Vec<String> {
    entry
        .split_whitespace()
        .filter_map(|w| w.find("https://").or_else(|| w.find("http://")).map(|at| &w[at..]))
        .map(|w| w.trim_end_matches(['.', ',', ';', ')', ']', '>']).to_string())
        .collect()
}

/// The model an entry configures with `model: <name>`.
pub fn model_named(entry: &str) -> Option<String> {
    let at = entry.find("model:")?;
    let name = entry[at + "model:".len()..].split_whitespace().next()?;
    let name = name.trim_matches(['`', '"', '\'', ',', ';', '.']);
    (!name.is_empty()).then(|| name.to_string())
}

/// The seed's actions for categorised entries, in its order: deletions and moves per entry, then
/// duplicates across both files (the first kept), then the checks' marks and corrections. An
/// uncategorised entry gets no action: it is listed as unresolved instead.
pub fn plan(entries: &[Entry], verified: &Verified, now: DateTime<Utc>) -> Vec<AuditAction> {
    let mut actions = Vec::new();
    let mut gone: Vec<usize> = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        let Ok(category) = e.category else { continue };
        let (file, entry) = (e.file, e.text.clone());
        let action = match category {
            Category::SessionNote => Some(AuditAction::Delete { file, entry, reason: category.as_str().into() }),
            Category::TemporaryState if now - e.since >= Duration::days(SHELF_LIFE_DAYS) => {
                Some(AuditAction::Delete { file, entry, reason: format!("{} older than 14 days", category.as_str()) })
            }
            Category::TemporaryState => None,
            Category::HistoricalSnapshot => Some(AuditAction::Delete { file, entry, reason: "Stale".into() }),
            // The seed's condition reads `Identity or (Preference and in MEMORY.md)`; the intent is
            // both only from MEMORY.md, so an Identity entry in USER.md stays where it is.
            c => match c.home() {
                Some(to) if to != file => Some(AuditAction::Move { from: file, to, entry }),
                Some(_) => None,
                None => Some(AuditAction::ToSkill { file, entry }),
            },
        };
        if matches!(action, Some(AuditAction::Delete { .. })) {
            gone.push(i);
        }
        actions.extend(action);
    }
    for (j, b) in entries.iter().enumerate() {
        if gone.contains(&j) || b.category.is_err() {
            continue;
        }
        let first = entries[..j].iter().enumerate().find(|(i, a)| !gone.contains(i) && same(&a.text, &b.text));
        if let Some((_, a)) = first {
            // What the earlier plan would have done with the duplicate no longer applies.
            actions.retain(|x| !names(x, b.file, &b.text));
            actions.push(AuditAction::Delete {
                file: b.file,
                entry: b.text.clone(),
                reason: format!("Duplicate of {}", a.text),
            });
            gone.push(j);
        }
    }
    // The seed's order: corrections, then marks, each mark naming the entry as corrected.
    let mut marks = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        if gone.contains(&i) || e.category != Ok(Category::TechnicalConfig) {
            continue;
        }
        let mut text = e.text.clone();
        if let Some(model) = model_named(&e.text) {
            if let Some((_, right)) = verified.models.iter().find(|(wrong, _)| *wrong == model) {
                text = e.text.replacen(&model, right, 1);
                actions.push(AuditAction::Correct { entry: e.text.clone(), corrected: text.clone() });
            }
        }
        for url in urls(&e.text) {
            if verified.unreachable.contains(&url) && !e.text.contains(UNVERIFIED) {
                marks.push(AuditAction::MarkUnverified { entry: text.clone(), url });
            }
        }
    }
    actions.extend(marks);
    // Only an entry nothing else touches is reworded, so that no two actions patch one entry.
    for (i, e) in entries.iter().enumerate() {
        let Some(shorter) = e.shorter.as_deref().map(str::trim) else { continue };
        let touched = gone.contains(&i)
            || actions.iter().any(|a| match a {
                AuditAction::MarkUnverified { entry, .. } | AuditAction::Correct { entry, .. } => *entry == e.text,
                a => names(a, e.file, &e.text),
            });
        if !touched && e.category.is_ok() && compresses(&e.text, shorter) {
            actions.push(AuditAction::Compress { file: e.file, entry: e.text.clone(), shorter: shorter.to_string() });
        }
    }
    actions
}

/// Whether `shorter` only takes words away: fewer characters, and no word the entry lacks, so a
/// model's rewording can never add to what a person wrote.
pub fn compresses(entry: &str, shorter: &str) -> bool {
    let words = |s: &str| -> Vec<String> {
        s.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect()
    };
    let have = words(entry);
    let kept = words(shorter);
    !kept.is_empty() && shorter.chars().count() < entry.chars().count() && kept.iter().all(|w| have.contains(w))
}

fn same(a: &str, b: &str) -> bool {
    let norm = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase();
    norm(a) == norm(b)
}

fn names(action: &AuditAction, file: AuditFile, text: &str) -> bool {
    match action {
        AuditAction::Delete { file: f, entry, .. } | AuditAction::ToSkill { file: f, entry } => {
            *f == file && entry == text
        }
        AuditAction::Move { from, entry, .. } => *from == file && entry == text,
        AuditAction::Compress { file: f, entry, .. } => *f == file && entry == text,
        AuditAction::MarkUnverified { .. } | AuditAction::Correct { .. } => false,
    }
}

/// Why an audit runs now, or why it does not.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Due {
    Requested,
    OverThreshold {
        file: AuditFile,
        percent: u32,
    },
    Never,
    Fortnightly,
    /// Audited within the fortnight, but a file is at 75% or more.
    Filling {
        file: AuditFile,
        percent: u32,
    },
    Skip(String),
}

/// Whether a person's words ask for an audit.
pub fn asks_for_audit(words: &str) -> bool {
    let w = words.to_lowercase();
    REQUEST_PHRASES.iter().any(|p| w.contains(p))
}

/// The seed's triggers, with its skip rule read as meant: it skips only when the last audit is
/// younger than 14 days and both files are under 75%. (As written, "last_audit > 14 days and …"
/// would skip exactly the audits that are due.)
pub fn due(
    requested: bool,
    last_audit: Option<DateTime<Utc>>,
    memory_percent: u32,
    user_percent: u32,
    params: &AuditParams,
    now: DateTime<Utc>,
) -> Due {
    if requested {
        return Due::Requested;
    }
    let files = [(AuditFile::Memory, memory_percent), (AuditFile::User, user_percent)];
    if let Some((file, percent)) = files.into_iter().find(|(_, p)| *p > params.memory_threshold) {
        return Due::OverThreshold { file, percent };
    }
    let Some(last) = last_audit else { return Due::Never };
    if now - last >= Duration::days(SHELF_LIFE_DAYS) {
        return Due::Fortnightly;
    }
    match files.into_iter().filter(|(_, p)| *p >= SKIP_BELOW_PERCENT).max_by_key(|(_, p)| *p) {
        Some((file, percent)) => Due::Filling { file, percent },
        None => Due::Skip("No audit needed".into()),
    }
}

#[cfg(test)]
#[path = "memory_audit_tests.rs"]
mod tests;
