use super::*;
use crate::persona::memory_audit::split_entries;
use AuditFile::*;

fn texts(memory: &str, user: &str) -> Texts {
    Texts { memory: memory.into(), user: user.into() }
}

#[test]
fn markdown_edits_touch_only_the_entry_lines() {
    let memory = "# Scout\n\n- Compared leads in this session.\n- CRM at https://crm.example\n  (the API).\n- Drafts use model: old-1.\n\nSam prefers bullets.\n";
    let user = "# People\n- Sam's name is Sam Rao.";
    let actions = vec![
        AuditAction::Delete {
            file: Memory,
            entry: "Compared leads in this session.".into(),
            reason: "Session Note".into(),
        },
        AuditAction::Move { from: Memory, to: User, entry: "Sam prefers bullets.".into() },
        AuditAction::Correct { entry: "Drafts use model: old-1.".into(), corrected: "Drafts use model: new-2.".into() },
        AuditAction::MarkUnverified {
            entry: "CRM at https://crm.example (the API).".into(),
            url: "https://crm.example".into(),
        },
        AuditAction::Delete { file: User, entry: "Gone already.".into(), reason: "Stale".into() },
    ];
    let (out, results) = apply(&texts(memory, user), EntryFormat::Markdown, &actions);
    assert_eq!(
        out.memory,
        "# Scout\n\n- CRM at https://crm.example\n  (the API). [UNVERIFIED]\n- Drafts use model: new-2.\n\n"
    );
    assert_eq!(out.user, "# People\n- Sam's name is Sam Rao.\n- Sam prefers bullets.\n");
    assert_eq!(results[..4], [Ok(()), Ok(()), Ok(()), Ok(())]);
    assert_eq!(results[4], Err("USER.md no longer holds \"Gone already.\"".into()));
}

#[test]
fn hermes_edits_keep_the_delimiters_whole() {
    let memory = "First.\n§\nIn this session we met.\n§\nLast one.";
    let user = "";
    let actions = vec![
        AuditAction::Delete { file: Memory, entry: "In this session we met.".into(), reason: "Session Note".into() },
        AuditAction::Move { from: Memory, to: User, entry: "Last one.".into() },
        AuditAction::Compress { file: Memory, entry: "First.".into(), shorter: "1st.".into() },
    ];
    let (out, results) = apply(&texts(memory, user), EntryFormat::Hermes, &actions);
    assert!(results.iter().all(Result::is_ok), "{results:?}");
    assert_eq!(out.memory, "1st.");
    assert_eq!(out.user, "Last one.");
    let (out, _) =
        apply(&out, EntryFormat::Hermes, &[AuditAction::Move { from: Memory, to: User, entry: "1st.".into() }]);
    assert_eq!(split_entries(&out.user, EntryFormat::Hermes), vec!["Last one.", "1st."]);
    assert_eq!(out.user, "Last one.\n§\n1st.");
}

#[test]
fn two_marks_on_one_entry_mark_it_once() {
    let memory = "- A https://a.example and https://b.example\n";
    let actions = vec![
        AuditAction::MarkUnverified {
            entry: "A https://a.example and https://b.example".into(),
            url: "https://a.example".into(),
        },
        AuditAction::MarkUnverified {
            entry: "A https://a.example and https://b.example".into(),
            url: "https://b.example".into(),
        },
    ];
    let (out, results) = apply(&texts(memory, ""), EntryFormat::Markdown, &actions);
    assert_eq!(results, vec![Ok(()), Ok(())]);
    assert_eq!(out.memory, "- A https://a.example and https://b.example [UNVERIFIED]\n");
}

#[test]
fn markers_go_in_changed_files_only_and_replace_the_last_ones() {
    let params = AuditParams { max_memory_chars: 100, max_user_chars: 100, ..AuditParams::default() };
    let before = texts("- one\n- MEMORY.md rewritten. Utilization: 90%.\n- two\n", "- Sam.\n");
    let after = texts("- one\n- MEMORY.md rewritten. Utilization: 90%.\n", "- Sam.\n");
    let (out, m, u) = with_markers(&before, &after, EntryFormat::Markdown, &params);
    assert_eq!(out.memory, "- one\n- MEMORY.md rewritten. Utilization: 6%.\n");
    assert_eq!((m, u), (6, 7));
    assert_eq!(out.user, "- Sam.\n", "USER.md did not change, so it gets no marker");
    assert!(is_marker("USER.md rewritten. Utilization: 3%."));
    assert!(!is_marker("MEMORY.md is big"));
    let (out, _, _) = with_markers(&texts("", ""), &texts("A.", ""), EntryFormat::Hermes, &params);
    assert_eq!(out.memory, "A.\n§\nMEMORY.md rewritten. Utilization: 2%.");
}
