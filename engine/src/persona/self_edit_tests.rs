use super::*;
use chrono::{TimeZone, Utc};

fn row(id: i64, kind: MemoryKind, text: &str, worth: i32) -> MemoryRow {
    let at = Utc.with_ymd_and_hms(2026, 11, 1, 9, 0, 0).unwrap();
    MemoryRow {
        id,
        agent: "scout".into(),
        kind,
        text: text.into(),
        times_seen: 2,
        worth,
        first_seen: at,
        last_seen: at,
        active: true,
        closed_at: None,
        closed_reason: None,
        closed_by: None,
        superseded_by: None,
        promoted_to_proposal: false,
        proposal_task_id: None,
        evidence: vec![1],
    }
}

fn rows() -> Vec<MemoryRow> {
    let mut other = row(9, MemoryKind::Lesson, "Someone else's.", 0);
    other.agent = "builder".into();
    vec![
        row(1, MemoryKind::Lesson, "I run the tests first.", 0),
        row(2, MemoryKind::Preference, "I keep cards small.", 1),
        row(3, MemoryKind::AntiPattern, "I never guess a path.", 0),
        row(4, MemoryKind::Friction, "I wait on exports.", 0),
        other,
    ]
}

fn req(action: &str, target: &str, content: Option<&str>, reason: &str) -> EditRequest {
    EditRequest {
        action: action.into(),
        target: target.into(),
        content: content.map(str::to_string),
        reason: reason.into(),
    }
}

fn run(r: EditRequest) -> Decision {
    decide(&SelfEditPolicy::default(), "scout", &r, &rows(), Some("I scout."), Counts::default())
}

fn refusal(d: Decision) -> String {
    match d {
        Decision::Refuse(s) => s,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[test]
fn each_action_becomes_its_change_and_what_waits_for_approval_waits() {
    let cases: Vec<(EditRequest, Change, bool)> = vec![
        (
            req("append", "fact", Some("I read the README first."), "learned"),
            Change::Insert { kind: MemoryKind::Lesson, text: "I read the README first.".into() },
            false,
        ),
        (
            req("append", "strategy:anti_pattern", Some("I never force-push."), "burned"),
            Change::Insert { kind: MemoryKind::AntiPattern, text: "I never force-push.".into() },
            false,
        ),
        (
            req("replace", "1", Some("I run the fast tests first."), "typo"),
            Change::Supersede { row: 1, text: "I run the fast tests first.".into() },
            false,
        ),
        (req("strengthen", "strategy:1", None, "it worked"), Change::Worth { row: 1, delta: 1 }, false),
        (req("weaken", "2", None, "less true now"), Change::Worth { row: 2, delta: -1 }, false),
        // Replacing a strategy changes a decision; forgetting a fact deletes one; the profile is the entity.
        (
            req("replace", "strategy:3", Some("I ask for a path."), "better"),
            Change::Supersede { row: 3, text: "I ask for a path.".into() },
            true,
        ),
        (req("forget", "2", None, "wrong"), Change::Close { row: 2 }, true),
        (req("forget", "strategy:3", None, "obsolete"), Change::Close { row: 3 }, true),
        (
            req("append", "profile", Some("I hand off to builder."), "new handoff"),
            Change::Profile { text: "I scout.\nI hand off to builder.".into() },
            true,
        ),
    ];
    for (r, change, waits) in cases {
        let what = format!("{} {}", r.action, r.target);
        match (run(r), waits) {
            (Decision::Apply(p), false) | (Decision::Wait(p), true) => assert_eq!(p.change, change, "{what}"),
            (other, _) => panic!("{what}: {other:?}"),
        }
    }
    assert_eq!(run(req("reflect", "profile", None, "ten runs")), Decision::Reflect);
}

#[test]
fn the_audit_keeps_before_and_after() {
    let Decision::Apply(p) = run(req("strengthen", "2", None, "held again")) else { panic!() };
    assert_eq!(p.before.as_deref(), Some("I keep cards small. (worth 1)"));
    assert_eq!(p.after.as_deref(), Some("I keep cards small. (worth 2)"));
    assert_eq!(p.row, Some(2));
    let Decision::Wait(p) = run(req("replace", "profile", Some("I find sources."), "sharper")) else { panic!() };
    assert_eq!((p.before.as_deref(), p.after.as_deref()), (Some("I scout."), Some("I find sources.")));
    assert_eq!(p.approval, Some("edit_entity"));
}

#[test]
fn an_empty_approval_list_applies_at_once() {
    let policy = SelfEditPolicy { require_approval: vec![], ..SelfEditPolicy::default() };
    let d = decide(&policy, "scout", &req("forget", "2", None, "wrong"), &rows(), None, Counts::default());
    assert!(matches!(d, Decision::Apply(Planned { approval: None, .. })), "{d:?}");
}

#[test]
fn each_rule_refuses_with_a_sentence_naming_it() {
    let table: Vec<(EditRequest, &str)> = vec![
        (req("append", "fact", Some("x"), "  "), "requireReason"),
        (req("rewrite", "1", None, "r"), "Unknown action \"rewrite\""),
        (req("strengthen", "fact:9x", None, "r"), "Unknown target \"fact:9x\""),
        (req("strengthen", "9", None, "r"), "scout has no active line #9 of its own"),
        (req("strengthen", "77", None, "r"), "scout has no active line #77 of its own"),
        (req("strengthen", "4", None, "r"), "Line #4 is a friction"),
        (req("strengthen", "strategy:2", None, "r"), "Line #2 is a preference, a fact: name it 2"),
        (req("forget", "3", None, "r"), "name it strategy:3"),
        (req("append", "fact", None, "r"), "append needs content"),
        (req("replace", "1", Some("two\nlines"), "r"), "must be one line"),
        (req("replace", "1", Some(&"x".repeat(301)), "r"), "at most 300 characters"),
        (req("append", "1", Some("x"), "r"), "append adds a new line"),
        (req("forget", "fact", None, "r"), "forget needs an existing line"),
        (req("weaken", "profile", None, "r"), "not weakened"),
    ];
    for (r, says) in table {
        let what = format!("{r:?}");
        let s = refusal(run(r));
        assert!(s.contains(says), "{what}: {s}");
    }
}

#[test]
fn limits_refuse_with_the_policy_key_and_its_value() {
    let p = SelfEditPolicy::default();
    let full = Counts { edits_this_session: 5, deletes_today: 0 };
    let s = refusal(decide(&p, "scout", &req("strengthen", "1", None, "r"), &rows(), None, full));
    assert_eq!(s, "maxEditsPerSession is 5, and this session has made 5; the next edit waits for the next session");
    let deleted = Counts { edits_this_session: 1, deletes_today: 3 };
    let s = refusal(decide(&p, "scout", &req("forget", "1", None, "r"), &rows(), None, deleted));
    assert_eq!(s, "maxDeletesPerDay is 3, and 3 were made today; the next forget waits until tomorrow (UTC)");
    assert!(matches!(decide(&p, "scout", &req("weaken", "1", None, "r"), &rows(), None, deleted), Decision::Apply(_)));
    let narrow = SelfEditPolicy { allow_edit: vec!["own_facts".into()], ..p };
    let s = refusal(decide(
        &narrow,
        "scout",
        &req("strengthen", "strategy:1", None, "r"),
        &rows(),
        None,
        Counts::default(),
    ));
    assert_eq!(s, "allowEdit does not include own_strategies, so scout cannot change its strategies");
}

#[test]
fn targets_parse_as_the_module_names_them() {
    assert_eq!(Target::parse("12"), Some(Target::Fact(12)));
    assert_eq!(Target::parse(" strategy:12 "), Some(Target::Strategy(12)));
    assert_eq!(Target::parse("profile"), Some(Target::Profile));
    assert_eq!(Target::parse("fact:preference"), Some(Target::New(Scope::Facts, MemoryKind::Preference)));
    assert_eq!(Target::parse("strategy"), Some(Target::New(Scope::Strategies, MemoryKind::Lesson)));
    for bad in ["", "0", "-3", "strategy:", "strategy:x", "fact:friction", "Profile"] {
        assert_eq!(Target::parse(bad), None, "{bad}");
    }
}
