//! The check after an answer: what it found, in the words a person reads under the answer.
//!
//! The reads themselves are `RunCards::check_cards`; this is the pure part that turns what
//! each record's read found into the answer's state, its change lines, and what the notice that a
//! limit may be too long counts.

use super::MemoryRef;
use crate::cards::facts::FactKind;
/// What each record's read found comes from the cards' area, which made the reads.
pub use crate::cards::loaded::{CardChecked, LimitNotice, ListChecked};
use crate::cards::service::RefreshOutcome;
use serde::{Deserialize, Serialize};

/// How many of a connector's latest checks on one kind of fact the notice looks at.
pub const NOTICE_WINDOW: u32 = 100;
/// Changes among those, in percent, above which admins are told the limit may be too long.
pub const NOTICE_PERCENT: u32 = 2;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckState {
    /// The answer is shown; its facts are being read again.
    Checking,
    /// Every due fact read again, and none changed.
    Checked,
    /// At least one fact changed, or a record is gone: each has its line.
    Changed,
    /// Nothing changed that could be read, and something could not be: the reason says what.
    NotChecked,
    /// Nothing the answer used was due.
    NotNeeded,
}

crate::string_enum!(CheckState {
    Checking => "checking",
    Checked => "checked",
    Changed => "changed",
    NotChecked => "not_checked",
    NotNeeded => "not_needed",
});

impl CheckState {
    /// As the thread page shows it under the answer.
    pub fn words(&self) -> &'static str {
        match self {
            CheckState::Checking => "Checking",
            CheckState::Checked => "Checked",
            CheckState::Changed => "Changed",
            CheckState::NotChecked => "Not checked",
            CheckState::NotNeeded => "Not needed",
        }
    }
}

/// A check's result, as the store records it in one write.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckEnd {
    pub state: CheckState,
    /// For "not checked": why, in words.
    pub reason: Option<String>,
    /// The step's line ("Checked 2 records against Acme ATS: 1 change").
    pub line: String,
    /// One line per change, gone record or record not checked.
    pub words: Vec<String>,
    /// Per record read and kind of fact compared: the connector, the kind and whether it changed.
    pub facts: Vec<(i64, FactKind, bool)>,
    /// The cards it read again, as refs: ids only.
    pub refs: Vec<MemoryRef>,
}

impl CheckEnd {
    /// A check that could not read what the answer used, with why.
    pub fn not_checked(reason: &str) -> Self {
        CheckEnd {
            state: CheckState::NotChecked,
            reason: Some(reason.to_string()),
            line: format!("Not checked: {reason}"),
            words: vec![],
            facts: vec![],
            refs: vec![],
        }
    }
}

/// Whether `changed` of the latest `of_checks` checks call for the notice.
pub fn limit_too_long(changed: u32, of_checks: u32) -> bool {
    of_checks >= NOTICE_WINDOW && changed * 100 > NOTICE_PERCENT * of_checks
}

/// The state, its reason and its lines from what each record's read found and what each list's
/// query found when it ran once more. `checked` holds only the records that were due; nothing due
/// and no list is "not needed". A list with something new or gone gets a line ("Leads with a
/// follow-up today: 1 new (L-1009) (Acme ATS, read just now)").
pub fn summarise(checked: &[CardChecked], lists: &[ListChecked]) -> CheckEnd {
    let mut words = Vec::new();
    let mut changes = 0;
    let mut gone = 0;
    let mut new = 0;
    let mut reasons: Vec<String> = Vec::new();
    let mut facts = Vec::new();
    for l in lists {
        match &l.outcome {
            Ok(change) if change.is_empty() => {}
            Ok(change) => {
                words.push(format!("{}: {} ({}, read just now)", l.asked, change.words(), l.source));
                new += change.new.len();
                gone += change.gone.len();
            }
            Err(why) => {
                let why = why.to_string();
                words.push(format!("{}: not checked: {why}", l.asked));
                if !reasons.contains(&why) {
                    reasons.push(why);
                }
            }
        }
    }
    for c in checked {
        let record = format!("{} {}", c.kind, c.record_id);
        match &c.outcome {
            RefreshOutcome::Changed(list) => {
                for ch in list {
                    let show = |v: &str| if v.is_empty() { "(empty)".to_string() } else { v.to_string() };
                    words.push(format!(
                        "{}: {} → {} ({}, read just now)",
                        ch.name,
                        show(&ch.before),
                        show(&ch.after),
                        c.source
                    ));
                    changes += 1;
                }
            }
            RefreshOutcome::NoChange => {}
            RefreshOutcome::Gone(source) => {
                words.push(format!("{record} is no longer at {source}: removed from memory"));
                gone += 1;
            }
            RefreshOutcome::NotChecked(why) => {
                words.push(format!("{record}: not checked: {why}"));
                if !reasons.contains(why) {
                    reasons.push(why.clone());
                }
            }
        }
        if !matches!(c.outcome, RefreshOutcome::NotChecked(_) | RefreshOutcome::Gone(_)) {
            facts.extend(c.compared.iter().map(|(k, changed)| (c.connector, *k, *changed)));
        }
    }
    let refs = checked
        .iter()
        .map(|c| MemoryRef::Card(format!("card:{}", c.card)))
        .chain(lists.iter().map(|l| MemoryRef::Snapshot(l.snapshot.to_string())))
        .collect();
    if checked.is_empty() && lists.is_empty() {
        return CheckEnd {
            state: CheckState::NotNeeded,
            reason: None,
            line: "Nothing this answer used was due for a check".into(),
            words,
            facts,
            refs,
        };
    }
    let mut sources: Vec<&str> = Vec::new();
    for s in checked.iter().map(|c| c.source.as_str()).chain(lists.iter().map(|l| l.source.as_str())) {
        if !sources.contains(&s) {
            sources.push(s);
        }
    }
    let mut what = Vec::new();
    match checked.len() {
        0 => {}
        1 => what.push("1 record".to_string()),
        n => what.push(format!("{n} records")),
    }
    match lists.len() {
        0 => {}
        1 => what.push("1 list".to_string()),
        n => what.push(format!("{n} lists")),
    }
    let against = format!("Checked {} against {}", what.join(" and "), sources.join(", "));
    let (state, reason, line) = if changes + gone + new > 0 {
        let mut found = Vec::new();
        if changes > 0 {
            found.push(if changes == 1 { "1 change".to_string() } else { format!("{changes} changes") });
        }
        if new > 0 {
            found.push(format!("{new} new"));
        }
        if gone > 0 {
            found.push(format!("{gone} gone"));
        }
        (CheckState::Changed, None, format!("{against}: {}", found.join(", ")))
    } else if !reasons.is_empty() {
        let reason = reasons.join("; ");
        (CheckState::NotChecked, Some(reason.clone()), format!("Not checked: {reason}"))
    } else {
        (CheckState::Checked, None, format!("{against}: no change"))
    };
    CheckEnd { state, reason, line, words, facts, refs }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cards::service::FieldChange;

    fn checked(record: &str, source: &str, outcome: RefreshOutcome) -> CardChecked {
        CardChecked {
            card: 1,
            connector: 1,
            kind: "lead".into(),
            record_id: record.into(),
            source: source.into(),
            compared: vec![(FactKind::State, matches!(outcome, RefreshOutcome::Changed(_)))],
            outcome,
        }
    }

    #[test]
    fn a_change_is_a_line_with_its_source_and_the_answer_reads_changed() {
        let stage = FieldChange { name: "stage".into(), before: "Proposal".into(), after: "Won".into() };
        let end = summarise(
            &[
                checked("L-1001", "Acme ATS", RefreshOutcome::Changed(vec![stage])),
                checked("L-1002", "Acme ATS", RefreshOutcome::NoChange),
            ],
            &[],
        );
        assert_eq!(end.state, CheckState::Changed);
        assert_eq!(end.words, vec!["stage: Proposal → Won (Acme ATS, read just now)"]);
        assert_eq!(end.line, "Checked 2 records against Acme ATS: 1 change");
        assert_eq!(end.facts, vec![(1, FactKind::State, true), (1, FactKind::State, false)]);
    }

    #[test]
    fn a_list_with_a_record_new_or_gone_is_a_change_with_its_line() {
        use crate::cards::snapshots::ListChange;
        let list = |outcome| ListChecked {
            snapshot: 7,
            asked: "Leads with a follow-up today".into(),
            source: "Acme ATS".into(),
            outcome,
        };
        let new = ListChange { new: vec!["L-1009".into()], gone: vec![] };
        let end = summarise(&[], &[list(Ok(new))]);
        assert_eq!(end.state, CheckState::Changed);
        assert_eq!(end.words, vec!["Leads with a follow-up today: 1 new (L-1009) (Acme ATS, read just now)"]);
        assert_eq!(end.line, "Checked 1 list against Acme ATS: 1 new");
        assert_eq!(end.refs, vec![MemoryRef::Snapshot("7".into())]);

        let same =
            summarise(&[checked("L-1", "Acme ATS", RefreshOutcome::NoChange)], &[list(Ok(ListChange::default()))]);
        assert_eq!(
            (same.state, same.line.as_str()),
            (CheckState::Checked, "Checked 1 record and 1 list against Acme ATS: no change")
        );

        let down = summarise(
            &[],
            &[list(Err(crate::cards::service::MemoryError::Invalid(
                "Acme ATS: the source could not be reached".into(),
            )))],
        );
        assert_eq!(down.state, CheckState::NotChecked);
        assert_eq!(down.reason.as_deref(), Some("Acme ATS: the source could not be reached"));
    }

    #[test]
    fn nothing_due_is_not_needed_and_all_the_same_is_checked() {
        assert_eq!(summarise(&[], &[]).state, CheckState::NotNeeded);
        let end = summarise(&[checked("L-1", "Acme ATS", RefreshOutcome::NoChange)], &[]);
        assert_eq!(
            (end.state, end.line.as_str()),
            (CheckState::Checked, "Checked 1 record against Acme ATS: no change")
        );
        assert!(end.words.is_empty());
    }

    #[test]
    fn a_source_that_is_down_leaves_the_answer_not_checked_with_its_reason() {
        let down = RefreshOutcome::NotChecked("Acme ATS: the source could not be reached".into());
        let end = summarise(&[checked("L-1", "Acme ATS", down.clone()), checked("L-2", "Acme ATS", down)], &[]);
        assert_eq!(end.state, CheckState::NotChecked);
        assert_eq!(end.reason.as_deref(), Some("Acme ATS: the source could not be reached"));
        assert_eq!(end.line, "Not checked: Acme ATS: the source could not be reached");
        assert!(end.facts.is_empty(), "a read that did not happen counts in no notice");
    }

    #[test]
    fn a_gone_record_is_a_change_and_says_it_was_removed() {
        let end = summarise(&[checked("L-9", "Acme ATS", RefreshOutcome::Gone("Acme ATS".into()))], &[]);
        assert_eq!(end.state, CheckState::Changed);
        assert_eq!(end.words, vec!["lead L-9 is no longer at Acme ATS: removed from memory"]);
        assert_eq!(end.line, "Checked 1 record against Acme ATS: 1 gone");
    }

    #[test]
    fn the_notice_needs_a_full_window_and_more_than_two_percent() {
        assert!(!limit_too_long(3, 99), "fewer than 100 checks say nothing yet");
        assert!(!limit_too_long(2, 100), "2% is not more than 2%");
        assert!(limit_too_long(3, 100));
        let n =
            LimitNotice { connector: 1, kind: FactKind::Moving, changed: 3, of_checks: 100, at: chrono::Utc::now() };
        assert_eq!(
            n.sentence("Acme ATS"),
            "Amounts and dates: 3 of the last 100 checks of amounts and dates on Acme ATS found a change, so its limit may be too long"
        );
        for s in ["checking", "checked", "changed", "not_checked", "not_needed"] {
            assert_eq!(CheckState::parse(s).map(|k| k.as_str()), Some(s));
        }
    }
}
