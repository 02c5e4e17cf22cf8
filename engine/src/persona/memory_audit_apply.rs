//! Seed 004's Phase 5 and 6, pure: carrying an audit's actions out on the two files' texts as
//! patch-level edits (an entry's own lines are cut, marked or corrected; every other byte stays as
//! it was), then the summary markers. The service writes the results through a temporary file
//! and a rename, and keeps the texts before as the audit's version.

use super::memory_audit::{chars, utilisation, AuditAction, AuditFile, AuditParams, EntryFormat, HERMES_DELIMITER};
use super::memory_audit::{entry_spans, UNVERIFIED, UNVERIFIED_MARK};
use std::ops::Range;

/// The seed's summary markers start so; a marker is the audit's own note, never an entry.
pub fn marker(file: AuditFile, percent: u32) -> String {
    format!("{} rewritten. Utilization: {percent}%.", file.as_str())
}

pub fn is_marker(entry: &str) -> bool {
    [AuditFile::Memory, AuditFile::User]
        .iter()
        .any(|f| entry.starts_with(&format!("{} rewritten. Utilization:", f.as_str())))
}

/// The two files as an audit changes them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Texts {
    pub memory: String,
    pub user: String,
}

impl Texts {
    pub fn get(&self, file: AuditFile) -> &str {
        match file {
            AuditFile::Memory => &self.memory,
            AuditFile::User => &self.user,
        }
    }

    fn get_mut(&mut self, file: AuditFile) -> &mut String {
        match file {
            AuditFile::Memory => &mut self.memory,
            AuditFile::User => &mut self.user,
        }
    }
}

fn find(text: &str, format: EntryFormat, entry: &str) -> Option<Range<usize>> {
    entry_spans(text, format).into_iter().find(|(_, t)| t == entry).map(|(r, _)| r)
}

/// Cuts an entry out with what joins it to the rest: its line ending in markdown, a delimiter
/// in Hermes.
fn cut(text: &mut String, format: EntryFormat, span: Range<usize>) {
    let range = match format {
        EntryFormat::Markdown => {
            let start = text[..span.start].rfind('\n').map_or(0, |i| i + 1);
            let end = text[span.end..].find('\n').map_or(text.len(), |i| span.end + i + 1);
            start..end
        }
        EntryFormat::Hermes => {
            if text[span.end..].starts_with(HERMES_DELIMITER) {
                span.start..span.end + HERMES_DELIMITER.len()
            } else if text[..span.start].ends_with(HERMES_DELIMITER) {
                span.start - HERMES_DELIMITER.len()..span.end
            } else {
                span
            }
        }
    };
    text.replace_range(range, "");
}

fn append(text: &mut String, format: EntryFormat, entry: &str) {
    let has_entries = text.chars().any(|c| !c.is_whitespace());
    match format {
        EntryFormat::Markdown => {
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str(&format!("- {entry}\n"));
        }
        EntryFormat::Hermes => {
            let kept = text.trim_end().len();
            text.truncate(kept);
            if has_entries {
                text.push_str(HERMES_DELIMITER);
            }
            text.push_str(entry);
        }
    }
}

/// Carries out each action that changes a file, in order, and says for each whether it was
/// applied or why not (its entry is no longer there as the audit read it). Operating rules are
/// the service's: they go to a person as an improve card, and stay until the rule is in a skill file.
pub fn apply(texts: &Texts, format: EntryFormat, actions: &[AuditAction]) -> (Texts, Vec<Result<(), String>>) {
    let mut out = texts.clone();
    let mut results = Vec::new();
    for action in actions {
        let missing = |file: AuditFile, entry: &str| format!("{} no longer holds {entry:?}", file.as_str());
        let result = match action {
            AuditAction::Delete { file, entry, .. } => match find(out.get(*file), format, entry) {
                Some(span) => {
                    cut(out.get_mut(*file), format, span);
                    Ok(())
                }
                None => Err(missing(*file, entry)),
            },
            AuditAction::Move { from, to, entry } => match find(out.get(*from), format, entry) {
                Some(span) => {
                    cut(out.get_mut(*from), format, span);
                    append(out.get_mut(*to), format, entry);
                    Ok(())
                }
                None => Err(missing(*from, entry)),
            },
            AuditAction::ToSkill { .. } => Ok(()),
            AuditAction::MarkUnverified { entry, .. } => match find(out.get(AuditFile::Memory), format, entry) {
                Some(span) if !entry.contains(UNVERIFIED) => {
                    out.memory.insert_str(span.end, UNVERIFIED_MARK);
                    Ok(())
                }
                // Marked already by an earlier action for another of its URLs.
                Some(_) => Ok(()),
                None => match find(out.get(AuditFile::Memory), format, &format!("{entry}{UNVERIFIED_MARK}")) {
                    Some(_) => Ok(()),
                    None => Err(missing(AuditFile::Memory, entry)),
                },
            },
            AuditAction::Correct { entry, corrected } | AuditAction::Compress { entry, shorter: corrected, .. } => {
                let file = match action {
                    AuditAction::Compress { file, .. } => *file,
                    _ => AuditFile::Memory,
                };
                match find(out.get(file), format, entry) {
                    Some(span) => {
                        out.get_mut(file).replace_range(span, corrected);
                        Ok(())
                    }
                    None => Err(missing(file, entry)),
                }
            }
        };
        results.push(result);
    }
    (out, results)
}

/// Phase 6: the seed's marker in each file the audit changed, replacing the last audit's, and
/// each file's utilisation as it stands without the marker.
pub fn with_markers(before: &Texts, after: &Texts, format: EntryFormat, params: &AuditParams) -> (Texts, u32, u32) {
    let mut out = after.clone();
    let mut percents = [0u32; 2];
    for (i, file) in [AuditFile::Memory, AuditFile::User].into_iter().enumerate() {
        let text = out.get_mut(file);
        for (span, entry) in entry_spans(text, format).into_iter().rev() {
            if is_marker(&entry) {
                cut(text, format, span);
            }
        }
        let limit = match file {
            AuditFile::Memory => params.max_memory_chars,
            AuditFile::User => params.max_user_chars,
        };
        percents[i] = utilisation(chars(text, format), limit);
        if after.get(file) != before.get(file) {
            append(text, format, &marker(file, percents[i]));
        }
    }
    (out, percents[0], percents[1])
}

#[cfg(test)]
#[path = "memory_audit_apply_tests.rs"]
mod tests;
