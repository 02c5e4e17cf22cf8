//! A model's replies: the AUDN reply, the nightly reply and the memory audit's reply.

use super::*;

// ---- The AUDN reply ------------------------------------------------------------------------------

fn roster() -> Vec<String> {
    vec![AGENT.into(), "scout".into(), "Sales Bot".into()]
}

fn active() -> HashSet<i64> {
    [1, 2, 3].into_iter().collect()
}

/// An operation as a model might write it: the right fields or not, known ids or not.
fn audn_op() -> impl Strategy<Value = Value> {
    let op = prop_oneof![
        prop::sample::select(vec!["add", "update", "delete", "none"]).prop_map(str::to_string),
        "[A-Za-z]{0,6}"
    ];
    let kind = prop_oneof![
        prop::sample::select(vec!["lesson", "anti_pattern", "preference", "friction"]).prop_map(str::to_string),
        text()
    ];
    let id = prop_oneof![1i64..5, any::<i64>()];
    let line = prop_oneof![plain_words(1..8), text(), Just("scout said so".to_string())];
    (
        prop::option::weighted(0.95, op),
        prop::option::of(kind),
        prop::option::of(line.clone()),
        prop::option::of(id),
        prop::option::of(line),
        prop::option::weighted(0.1, (json_key(), json_value())),
    )
        .prop_map(|(op, kind, text, id, reason, extra)| {
            let mut m = Map::new();
            op.map(|v| m.insert("op".into(), v.into()));
            kind.map(|v| m.insert("kind".into(), v.into()));
            text.map(|v| m.insert("text".into(), v.into()));
            id.map(|v| m.insert("id".into(), v.into()));
            reason.map(|v| m.insert("reason".into(), v.into()));
            extra.map(|(k, v)| m.insert(k, v));
            Value::Object(m)
        })
}

fn audn_reply() -> impl Strategy<Value = String> {
    prop_oneof![
        1 => text(),
        1 => json_value().prop_flat_map(as_reply),
        4 => prop::collection::vec(audn_op(), 0..15).prop_flat_map(|ops| as_reply(json!({ "operations": ops }))),
    ]
}

fn check_audn_line(text: &str, max: usize) -> Result<(), TestCaseError> {
    prop_assert!(!text.is_empty() && text == text.trim() && !text.contains('\n'), "{text:?}");
    prop_assert!(text.chars().count() <= max);
    Ok(())
}

#[test]
fn fuzz_audn_reply() {
    let (roster, active) = (roster(), active());
    fuzz("audn reply", audn_reply(), |reply| {
        let parsed = audn::parse_reply(&reply, AGENT, &roster, &active);
        if reply.len() > audn::MAX_REPLY_BYTES {
            prop_assert!(matches!(parsed, Err(AudnError::Oversized(_))));
        }
        let Ok(parsed) = parsed else { return Ok(()) };
        prop_assert!(parsed.ops.len() + parsed.dropped.len() <= audn::MAX_OPERATIONS);
        for op in &parsed.ops {
            match op {
                AudnOp::Add { text, .. } => check_audn_line(text, audn::MAX_LINE_CHARS)?,
                AudnOp::Repeat { id } => prop_assert!(active.contains(id)),
                AudnOp::Reword { id, text } => {
                    prop_assert!(active.contains(id));
                    check_audn_line(text, audn::MAX_LINE_CHARS)?;
                }
                AudnOp::Delete { id, reason } => {
                    prop_assert!(active.contains(id));
                    check_audn_line(reason, audn::MAX_REASON_CHARS)?;
                }
            }
        }
        Ok(())
    });
}

/// A reply of valid operations only comes back whole, operation for operation.
#[test]
fn fuzz_audn_valid_reply_is_read_whole() {
    let (roster, active) = (roster(), active());
    let op = prop_oneof![
        (prop::sample::select(vec!["lesson", "anti_pattern", "preference", "friction"]), plain_words(1..10))
            .prop_map(|(kind, text)| json!({"op": "add", "kind": kind, "text": text})),
        (1i64..4).prop_map(|id| json!({"op": "update", "id": id})),
        (1i64..4, plain_words(1..10)).prop_map(|(id, text)| json!({"op": "update", "id": id, "text": text})),
        (1i64..4, plain_words(1..10)).prop_map(|(id, reason)| json!({"op": "delete", "id": id, "reason": reason})),
        Just(json!({"op": "none"})),
    ];
    fuzz("audn valid reply", prop::collection::vec(op, 0..=12), |ops| {
        let reply = json!({ "operations": ops }).to_string();
        let parsed = audn::parse_reply(&reply, AGENT, &roster, &active);
        let parsed = parsed.map_err(|e| TestCaseError::fail(format!("{e}")))?;
        prop_assert!(parsed.dropped.is_empty());
        let wanted = ops.iter().filter(|o| o["op"] != "none").count();
        prop_assert_eq!(parsed.ops.len(), wanted);
        Ok(())
    });
}

// ---- The nightly reply ---------------------------------------------------------------------------

fn nightly_shaped() -> impl Strategy<Value = Value> {
    let runs = prop::collection::vec(any::<i64>(), 0..4);
    let lesson = (text(), prop::option::of(prop::sample::select(vec!["personal", "team", "company"])), runs.clone())
        .prop_map(|(text, scope, runs)| {
            let mut l = json!({"text": text, "runs": runs});
            if let Some(s) = scope {
                l["scope"] = s.into();
            }
            l
        });
    let confirm = (any::<i64>(), runs.clone()).prop_map(|(lesson, runs)| json!({"lesson": lesson, "runs": runs}));
    let supersede = (any::<i64>(), text(), runs.clone())
        .prop_map(|(lesson, text, runs)| json!({"lesson": lesson, "text": text, "runs": runs}));
    let core = (prop::sample::select(vec!["role", "team"]), text(), text(), runs)
        .prop_map(|(core, line, why, runs)| json!({"core": core, "line": line, "why": why, "runs": runs}));
    (
        prop::collection::vec(lesson, 0..4),
        prop::collection::vec(confirm, 0..3),
        prop::collection::vec(supersede, 0..3),
        prop::collection::vec(core, 0..3),
    )
        .prop_map(|(l, c, s, k)| json!({"lessons": l, "confirms": c, "supersedes": s, "core_lines": k}))
}

#[test]
fn fuzz_nightly_reply() {
    let input = prop_oneof![
        text().prop_map(|t| (t, None)),
        json_value().prop_flat_map(as_reply).prop_map(|t| (t, None)),
        (nightly_shaped(), "[^{}]{0,30}", "[^{}]{0,30}")
            .prop_map(|(v, before, after)| (format!("{before}{v}{after}"), Some(v))),
    ];
    fuzz("nightly reply", input, |(reply, sent)| {
        let parsed = nightly::parse_reply(&reply);
        if !reply.contains('{') {
            prop_assert!(parsed.is_err());
        }
        // A well-formed reply among words without braces reads whole.
        if let Some(sent) = sent {
            let parsed = parsed.map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(parsed.lessons.len(), sent["lessons"].as_array().unwrap().len());
            prop_assert_eq!(parsed.confirms.len(), sent["confirms"].as_array().unwrap().len());
            prop_assert_eq!(parsed.supersedes.len(), sent["supersedes"].as_array().unwrap().len());
            prop_assert_eq!(parsed.core_lines.len(), sent["core_lines"].as_array().unwrap().len());
            for (l, s) in parsed.lessons.iter().zip(sent["lessons"].as_array().unwrap()) {
                prop_assert_eq!(&l.text, s["text"].as_str().unwrap());
                prop_assert_eq!(&l.scope, s.get("scope").and_then(Value::as_str).unwrap_or("personal"));
            }
        }
        Ok(())
    });
}

// ---- The memory audit reply ----------------------------------------------------------------------

fn category() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(CATEGORIES.to_vec()).prop_map(|c| c.as_str().to_string()),
        1 => Just("Unclear".to_string()),
        1 => Just("session-NOTE".to_string()),
        1 => text(),
    ]
}

#[test]
fn fuzz_memory_audit_reply() {
    let entry = (0usize..8, category(), prop::option::of(text()), prop::option::of(text()));
    let raw = (0usize..7, prop::collection::vec(entry, 0..9)).prop_flat_map(|(count, entries)| {
        let entries: Vec<Value> = entries
            .into_iter()
            .map(|(n, category, why, shorter)| json!({"n": n, "category": category, "why": why, "shorter": shorter}))
            .collect();
        (Just(count), as_reply(json!({ "entries": entries })))
    });
    let input = prop_oneof![1 => (0usize..7, text()), 1 => (0usize..7, json_value().prop_flat_map(as_reply)), 4 => raw];
    fuzz("memory audit reply", input, |(count, reply)| {
        let Ok(verdicts) = memory_audit_model::parse(&reply, count) else { return Ok(()) };
        prop_assert!(reply.len() <= memory_audit_model::MAX_REPLY_BYTES);
        prop_assert_eq!(verdicts.len(), count, "one verdict per entry");
        for v in &verdicts {
            if let Some(s) = &v.shorter {
                prop_assert!(!s.is_empty() && !s.contains('\n') && s == s.trim());
            }
        }
        Ok(())
    });
}

/// Every entry named once, in any order, with a category by its seed's words: the reply reads.
#[test]
fn fuzz_memory_audit_valid_reply_is_read() {
    let input = (0usize..8).prop_flat_map(|count| {
        let order = Just((1..=count).collect::<Vec<_>>()).prop_shuffle();
        (order, prop::collection::vec(prop::sample::select(CATEGORIES.to_vec()), count))
    });
    fuzz("memory audit valid reply", input, |(order, categories)| {
        let entries: Vec<Value> =
            order.iter().map(|n| json!({"n": n, "category": categories[n - 1].as_str().to_uppercase()})).collect();
        let verdicts = memory_audit_model::parse(&json!({ "entries": entries }).to_string(), order.len())
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        for (v, c) in verdicts.iter().zip(&categories) {
            prop_assert_eq!(v.category.as_ref().ok(), Some(c));
        }
        Ok(())
    });
}
