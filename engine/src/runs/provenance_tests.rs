//! One row per rule of seed 001's "Never act from memory".

use super::*;
use serde_json::json;

fn field(name: &str, value: &str) -> CardField {
    CardField { name: name.into(), value: value.into(), free_text: false }
}

/// Alice's block: the Litware lead with Dana Brooks, and her note about Dana's mail.
fn remembered() -> (Vec<RememberedCard>, Vec<RememberedLesson>) {
    let cards = vec![RememberedCard {
        card: 7,
        record_id: "L-1042".into(),
        fields: vec![
            field("company", "Litware"),
            field("contact_name", "Dana Brooks"),
            field("email", "dana.brooks@litware.example"),
            field("phone", "+1 (425) 555-0143"),
            field("account", "ACC-778"),
            field("stage", "Proposal"),
            field("amount", "12000"),
            field("priority", "no"),
            field("owner_email", "alice@acme.example"),
            field("owner_id", "person:3"),
            field("follow_up_name", "today"),
            CardField { name: "notes".into(), value: "Dana asked for quote Q-5531 by Friday".into(), free_text: true },
        ],
    }];
    let lesson = |id: &str, text: &str| RememberedLesson { id: format!("lesson:{id}"), text: text.into(), claim: None };
    let lessons = vec![
        lesson("n1", "Dana Brooks at Litware reads mail at dana@litware.example"),
        lesson("n2", "Quotes go out on Fridays only; budget 48000, 12 seats"),
        lesson("n3", "Priya Rao signs off renewals"),
        lesson("n4", "now"),
        RememberedLesson {
            id: "lesson:n5".into(),
            text: "Hebbal Biotech pays through its parent's account".into(),
            claim: Some("ACC-9931".into()),
        },
    ];
    (cards, lessons)
}

struct Row {
    rule: &'static str,
    kind: StepKind,
    args: Value,
    /// What the run read before the step, and the person's request.
    read: Option<Value>,
    request: &'static str,
    /// The refused value and whence, or None when the step may run.
    refused: Option<(&'static str, &'static str)>,
}

fn row(rule: &'static str, kind: StepKind, args: Value, refused: Option<(&'static str, &'static str)>) -> Row {
    Row { rule, kind, args, read: None, request: "email Dana that the proposal is ready", refused }
}

#[test]
fn never_act_from_memory_table() {
    use StepKind::*;
    let rows = vec![
        // Any value naming a record.
        row("a record's id", Write, json!({"lead_id": "L-1042", "stage": "Won"}), Some(("L-1042", "card:7"))),
        row(
            "a record's name",
            HandOn,
            json!({"task": "Call Litware about renewal"}),
            Some(("Call Litware about renewal", "card:7")),
        ),
        row("a person's name on a record", Act, json!({"attendee": "dana brooks"}), Some(("dana brooks", "card:7"))),
        row(
            "a record's email",
            Send,
            json!({"to": "dana.brooks@litware.example", "body": "Hi"}),
            Some(("dana.brooks@litware.example", "card:7")),
        ),
        row(
            "an email matched by case and whitespace",
            Send,
            json!({"to": " Dana.Brooks@Litware.Example "}),
            Some((" Dana.Brooks@Litware.Example ", "card:7")),
        ),
        row("a phone matched by its digits", Act, json!({"call": "14255550143"}), Some(("14255550143", "card:7"))),
        row(
            "a phone inside a text",
            Send,
            json!({"to": "ops@acme.example", "body": "ring her on 425 555 0143"}),
            Some(("ring her on 425 555 0143", "card:7")),
        ),
        row("any id-like value", Payment, json!({"account": "acc-778", "amount": 10}), Some(("acc-778", "card:7"))),
        // A card's other values count only in a step naming the card's record.
        row("another value, the record not named", Write, json!({"amount": "12000", "lead_id": "L-2000"}), None),
        Row {
            read: Some(json!({"id": "L-1042", "company": "Litware", "stage": "Won"})),
            ..row(
                "another value, the record named",
                Write,
                json!({"lead_id": "L-1042", "amount": "12000"}),
                Some(("12000", "card:7")),
            )
        },
        Row {
            read: Some(json!({"id": "L-1042", "company": "Litware"})),
            ..row("a short value never counts", Write, json!({"lead_id": "L-1042", "priority": "no"}), None)
        },
        Row {
            read: Some(json!({"id": "L-1042", "company": "Litware"})),
            ..row(
                "an id in a record's free text, the record named",
                Send,
                json!({"to": "x@y.example", "body": "Litware quote Q-5531"}),
                Some(("Litware quote Q-5531", "card:7")),
            )
        },
        row(
            "an id in a record's free text, the record not named",
            Send,
            json!({"to": "x@y.example", "body": "quote Q-5531"}),
            None,
        ),
        // A loaded lesson's claim, and the ids, emails and numbers of three digits or more in its text.
        row(
            "a lesson's email",
            Send,
            json!({"to": "dana@litware.example"}),
            Some(("dana@litware.example", "lesson:n1")),
        ),
        row(
            "a lesson's claim",
            HandOn,
            json!({"reason": "quotes go out on  Fridays only; budget 48000, 12 seats"}),
            Some(("quotes go out on  Fridays only; budget 48000, 12 seats", "lesson:n2")),
        ),
        row(
            "a lesson's number of three digits or more",
            Payment,
            json!({"amount": 48000}),
            Some(("48000", "lesson:n2")),
        ),
        row("a lesson's number of two digits", Act, json!({"seats": 12}), None),
        row(
            "a lesson's structured claim, not in its text",
            Write,
            json!({"account": "ACC-9931"}),
            Some(("ACC-9931", "lesson:n5")),
        ),
        row(
            "a lesson's names are not among its values",
            Send,
            json!({"to": "team@acme.example", "body": "ask Priya Rao to sign"}),
            None,
        ),
        // Every acting step is guarded; a read is not: memory decides what to read.
        row("a rollback", Rollback, json!({"lead_id": "L-1042"}), Some(("L-1042", "card:7"))),
        row(
            "a read may take a remembered value",
            Read,
            json!({"lead_id": "L-1042", "email": "dana@litware.example"}),
            None,
        ),
        // A value the run read, or that is in the person's own request, counts as read.
        Row {
            read: Some(
                json!({"records": [{"id": "L-1042", "company": "Litware", "contact_name": "Dana Brooks", "email": "dana.brooks@litware.example"}]}),
            ),
            ..row(
                "read by this run",
                Send,
                json!({"to": "DANA.BROOKS@litware.example", "body": "Dana Brooks: the proposal for Litware is ready"}),
                None,
            )
        },
        Row {
            request: "send the proposal to dana@litware.example",
            ..row("in the person's own request", Send, json!({"to": "dana@litware.example"}), None)
        },
        Row {
            read: Some(json!({"id": "L-1042", "email": "dana.b@litware.example"})),
            ..row(
                "read, but another value than remembered",
                Send,
                json!({"to": "dana.brooks@litware.example"}),
                Some(("dana.brooks@litware.example", "card:7")),
            )
        },
        // "me", "today", "now" and the person's own id and email never count.
        row("me, today, now", Act, json!({"assignee": "me", "due": "today", "when": "now"}), None),
        row("the person's own email and id", Send, json!({"to": " Alice@Acme.Example", "from": "person:3"}), None),
    ];
    let (cards, lessons) = remembered();
    for r in rows {
        let mut p = Provenance::new(&cards, &lessons, Some(("person:3", "alice@acme.example")), r.request);
        if let Some(read) = &r.read {
            p.read_value(read);
        }
        let got = p.check(r.kind, &r.args);
        let want = r.refused.map(|(value, from)| Refusal { value: value.into(), from: from.into() });
        assert_eq!(got.err(), want, "{}", r.rule);
    }
}

#[test]
fn the_refusal_is_the_seeds_sentence() {
    let (cards, lessons) = remembered();
    let p = Provenance::new(&cards, &lessons, None, "");
    let refusal = p.check(StepKind::Send, &json!({"to": "dana@litware.example"})).unwrap_err();
    assert_eq!(refusal.sentence(), "This uses a remembered value; read the source first");
}

#[test]
fn an_empty_memory_refuses_nothing() {
    let p = Provenance::new(&[], &[], None, "");
    assert_eq!(p.check(StepKind::Payment, &json!({"to": "dana@litware.example", "amount": 48000})), Ok(()));
}
