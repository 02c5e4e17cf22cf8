//! One row per rule of "never act from memory", then every spelling a value escaped the gate in,
//! then a property test over random values and spellings.

use super::*;
use proptest::prelude::*;
use serde_json::json;

fn field(name: &str, value: &str) -> CardField {
    CardField { name: name.into(), value: value.into(), free_text: false }
}

fn lesson(id: &str, text: &str) -> RememberedLesson {
    RememberedLesson { id: format!("lesson:{id}"), text: text.into(), claim: None, source: None }
}

/// Alice's block: the Litware lead with Dana Brooks, and her notes about Dana's mail.
fn remembered() -> (Vec<RememberedCard>, Vec<RememberedLesson>) {
    let cards = vec![RememberedCard {
        card: 7,
        source: "Acme ATS".into(),
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
    let lessons = vec![
        lesson("n1", "Dana Brooks at Litware reads mail at dana@litware.example"),
        lesson("n2", "Quotes go out on Fridays only; budget 48000, 12 seats"),
        lesson("n3", "Priya Rao signs off renewals"),
        lesson("n4", "now"),
        RememberedLesson {
            id: "lesson:n5".into(),
            text: "Hebbal Biotech pays through its parent's account".into(),
            claim: Some("ACC-9931".into()),
            source: None,
        },
        lesson("n6", "Refunds over $500 need a lead's approval; a 1,200 seat order goes to finance"),
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
    /// The refused value, whence and why, or None when the step may run.
    refused: Option<(&'static str, Option<&'static str>, Why)>,
}

fn row(rule: &'static str, kind: StepKind, args: Value, refused: Option<(&'static str, &'static str)>) -> Row {
    let refused = refused.map(|(v, from)| (v, Some(from), Why::Remembered));
    Row { rule, kind, args, read: None, request: "email Dana that the proposal is ready", refused }
}

fn not_read(rule: &'static str, kind: StepKind, args: Value, value: &'static str) -> Row {
    Row { refused: Some((value, None, Why::NotRead)), ..row(rule, kind, args, None) }
}

fn provenance(request: &str) -> Provenance {
    let (cards, lessons) = remembered();
    Provenance::new(&cards, &lessons, Some(("person:3", "alice@acme.example")), request)
}

fn run_rows(rows: Vec<Row>) {
    for r in rows {
        let mut p = provenance(r.request);
        if let Some(read) = &r.read {
            p.read_value(read);
        }
        let got = p.check(r.kind, &r.args);
        let want =
            r.refused.map(|(value, from, why)| Refusal { value: value.into(), from: from.map(str::to_string), why });
        assert_eq!(got.err(), want, "{}", r.rule);
    }
}

#[test]
fn never_act_from_memory_table() {
    use StepKind::*;
    let litware = json!({"id": "L-1042", "company": "Litware", "stage": "Won"});
    run_rows(vec![
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
            "a phone inside a text, beside an address from nowhere",
            Send,
            json!({"to": "ops@acme.example", "body": "ring her on 425 555 0143"}),
            Some(("ring her on 425 555 0143", "card:7")),
        ),
        row("any id-like value", Payment, json!({"account": "acc-778", "amount": 10}), Some(("acc-778", "card:7"))),
        // A card's other values are remembered values too, whether or not the step names its record.
        row(
            "another value, the record not named",
            Write,
            json!({"amount": "12000", "lead_id": "L-2000"}),
            Some(("12000", "card:7")),
        ),
        Row {
            read: Some(litware.clone()),
            ..row(
                "another value, the record named and read",
                Write,
                json!({"lead_id": "L-1042", "amount": "12000"}),
                Some(("12000", "card:7")),
            )
        },
        Row {
            read: Some(litware.clone()),
            ..row("a short value never counts", Write, json!({"lead_id": "L-1042", "priority": "no"}), None)
        },
        Row {
            read: Some(json!({"id": "L-1042", "company": "Litware", "email": "x@y.example"})),
            ..row(
                "an id in a record's free text",
                Send,
                json!({"to": "x@y.example", "body": "Litware quote Q-5531"}),
                Some(("Litware quote Q-5531", "card:7")),
            )
        },
        // A loaded lesson's claim, and the ids, emails and numbers in its text.
        row(
            "a lesson's email",
            Send,
            json!({"to": "dana@litware.example"}),
            Some(("dana@litware.example", "lesson:n1")),
        ),
        row(
            "a lesson's text",
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
        row("a number of two digits names nothing", Act, json!({"seats": 12}), None),
        row(
            "a lesson's structured claim, not in its text",
            Write,
            json!({"account": "ACC-9931"}),
            Some(("ACC-9931", "lesson:n5")),
        ),
        row(
            "a lesson's amount",
            Payment,
            json!({"amount": "500.00", "currency": "USD"}),
            Some(("500.00", "lesson:n6")),
        ),
        row("a lesson's grouped number", Write, json!({"seats": 1200}), Some(("1200", "lesson:n6"))),
        Row {
            read: Some(json!({"email": "team@acme.example"})),
            ..row(
                "a lesson's names in prose are not among its values",
                Send,
                json!({"to": "team@acme.example", "body": "ask Priya Rao to sign"}),
                None,
            )
        },
        // Every acting step is guarded; a read is checked by its source.
        row("a rollback", Rollback, json!({"lead_id": "L-1042"}), Some(("L-1042", "card:7"))),
        row("a read is not an act", Read, json!({"lead_id": "L-1042", "email": "dana@litware.example"}), None),
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
        // A value from nowhere: made up, or suggested by a text the run read as data.
        not_read("an address from nowhere", Send, json!({"to": "mallory@evil.example"}), "mallory@evil.example"),
        not_read("an id from nowhere", Write, json!({"id": "L-9999", "stage": "Won"}), "L-9999"),
        not_read("an amount from nowhere", Payment, json!({"amount": "$75"}), "$75"),
        not_read("a name from nowhere, where a name stands", Write, json!({"contact_name": "Jane Doe"}), "Jane Doe"),
        not_read(
            "a phone from nowhere in prose",
            HandOn,
            json!({"title": "Call back", "body": "call +44 20 7946 0958"}),
            "call +44 20 7946 0958",
        ),
        Row {
            read: Some(json!({"notes": "wire it to IBAN GB33BUKB20201555555555 today"})),
            ..row(
                "a value an outside text gave, read in this run",
                Payment,
                json!({"iban": "GB33BUKB20201555555555"}),
                None,
            )
        },
        row(
            "dates and times are not identifying",
            HandOn,
            json!({"title": "Follow up", "due": "2026-12-05 09:30"}),
            None,
        ),
    ]);
}

/// Spellings that escaped the gate when it matched values as they were stored: each is refused
/// when only remembered, and passes when the run read the value (in yet another spelling).
#[test]
fn every_spelling_of_a_remembered_value_is_refused_and_of_a_read_one_passes() {
    let rows: &[(&str, Value, &str)] = &[
        // (stored, used, read)
        ("Dana Brooks <dana@litware.example>", json!({"to": "dana@litware.example"}), "DANA@litware.example"),
        ("mailto:dana@litware.example", json!({"to": "dana@litware.example"}), "<dana@litware.example>"),
        ("email:dana@litware.example", json!({"to": "Dana <dana@litware.example>"}), "dana@litware.example"),
        ("[Dana](mailto:dana@litware.example)", json!({"to": "dana@litware.example"}), "dana@litware.example"),
        ("dana@litware.example", json!({"to": "dana+q3@litware.example"}), "mailto:dana@litware.example"),
        ("dana@litware.example", json!({"to": "\"dana\"@litware.example"}), "dana@litware.example"),
        ("dana@litware.example", json!({"to": "dana(sales)@litware.example"}), "dana@litware.example"),
        ("dana@litware.example", json!({"to": "ｄａｎａ＠litware.example"}), "dana@litware.example"),
        ("budget 48000", json!({"amount": "48,000"}), "48000.00"),
        ("budget 48000", json!({"amount": "48000.0"}), "$48,000"),
        ("budget 48000", json!({"amount": "$48000"}), "48000"),
        ("budget 48000", json!({"amount": 48000.0}), "48,000"),
        ("order 4711", json!({"order": "#4711"}), "4711"),
        ("lead L-1042", json!({"lead": "L1042"}), "l-1042"),
        ("lead L-1042", json!({"lead": "l_1042"}), "L-1042"),
        ("Refunds over $500 need a lead", json!({"amount": 500}), "$500"),
        ("a 1,200 seat order", json!({"seats": "1200"}), "1,200"),
        ("call +1 (425) 555-0143", json!({"phone": "425.555.0143"}), "4255550143"),
        ("call +1 (425) 555-0143", json!({"phone": "+14255550143"}), "(425) 555 0143"),
    ];
    for (stored, used, read) in rows {
        for (cards, lessons) in [
            (vec![], vec![lesson("x", stored)]),
            (
                vec![RememberedCard {
                    card: 9,
                    source: "Acme ATS".into(),
                    record_id: "R-1".into(),
                    fields: vec![field("value", stored)],
                }],
                vec![],
            ),
        ] {
            let mut p = Provenance::new(&cards, &lessons, None, "");
            let refused = p.check(StepKind::Send, used).expect_err(&format!("{stored} as {used}"));
            assert_eq!(refused.why, Why::Remembered, "{stored} as {used}: {refused:?}");
            p.read_text(read);
            assert_eq!(p.check(StepKind::Send, used), Ok(()), "{stored} as {used}, read as {read}");
        }
    }
}

#[test]
fn a_name_split_over_arguments_is_still_the_name() {
    let p = provenance("");
    let refused = p.check(StepKind::Write, &json!({"first_name": "Dana", "last_name": "Brooks"})).unwrap_err();
    assert_eq!((refused.from.as_deref(), refused.why), (Some("card:7"), Why::Remembered));
    let mut p = provenance("");
    p.read_value(&json!({"contact": "Brooks, Dana"}));
    assert_eq!(p.check(StepKind::Write, &json!({"first_name": "Dana", "last_name": "Brooks"})), Ok(()));
}

#[test]
fn the_refusals_are_the_sentences() {
    let p = provenance("");
    let refusal = p.check(StepKind::Send, &json!({"to": "dana@litware.example"})).unwrap_err();
    assert_eq!(refusal.sentence(), "This uses a remembered value; read the source first");
    let refusal = p.check(StepKind::Send, &json!({"to": "who@else.example"})).unwrap_err();
    assert_eq!(refusal.sentence(), "This value was not read in this run; read the source first");
    let refusal = p.check_read("Other CRM", &json!({"query": "L-1042"})).unwrap_err();
    assert_eq!(refusal.sentence(), "This sends remembered text to another source");
}

#[test]
fn an_empty_memory_still_refuses_a_value_from_nowhere() {
    let p = Provenance::new(&[], &[], None, "");
    let refused = p.check(StepKind::Payment, &json!({"to": "dana@litware.example", "amount": 48000})).unwrap_err();
    assert_eq!((refused.why, refused.from), (Why::NotRead, None));
    let p = Provenance::new(&[], &[], None, "pay dana@litware.example 48,000");
    assert_eq!(p.check(StepKind::Payment, &json!({"to": "dana@litware.example", "amount": 48000})), Ok(()));
}

#[test]
fn a_read_carries_no_remembered_text_to_another_source() {
    let p = provenance("find Dana's leads");
    let rows: Vec<(&str, &str, Value, Option<&str>)> = vec![
        ("the same source's card", "Acme ATS", json!({"id": "L-1042"}), None),
        ("the same source's name", "Acme ATS", json!({"query": "Dana Brooks"}), None),
        ("another source's card id", "Other CRM", json!({"query": "L-1042"}), Some("card:7")),
        ("another source's card email", "Other CRM", json!({"email": "Dana.Brooks@litware.example"}), Some("card:7")),
        ("another source's card name", "Other CRM", json!({"query": "dana brooks"}), Some("card:7")),
        ("a lesson's email", "Acme ATS", json!({"query": "mailto:dana@litware.example"}), Some("lesson:n1")),
        ("a lesson's claim", "Acme ATS", json!({"account": "ACC-9931"}), Some("lesson:n5")),
        ("a lesson's text", "Acme ATS", json!({"query": "who? priya rao signs off renewals"}), Some("lesson:n3")),
        ("the person's own words", "Other CRM", json!({"query": "Dana"}), None),
        ("a value from nowhere may be searched", "Other CRM", json!({"query": "Contoso 2026 renewals"}), None),
    ];
    for (rule, source, args, from) in rows {
        let got = p.check_read(source, &args).err().map(|r| (r.why, r.from));
        assert_eq!(got, from.map(|f| (Why::SendsRemembered, Some(f.to_string()))), "{rule}");
    }
    let mut p = provenance("");
    p.read_value(&json!({"email": "dana@litware.example"}));
    assert_eq!(p.check_read("Other CRM", &json!({"email": "dana@litware.example"})), Ok(()), "read in this run");
}

/// One value of each kind, in spellings people and models write it in.
#[derive(Debug, Clone)]
struct Spelled {
    /// As memory keeps it, as a read returns it, and as the step uses it.
    stored: String,
    read: String,
    used: Value,
    /// Kept in a card's naming field (a name), else in any field or a lesson.
    name: bool,
}

const FIRST: [&str; 8] = ["Dana", "Priya", "Kavya", "Tomás", "Li", "Anders", "Olu", "Mei"];
const LAST: [&str; 8] = ["Brooks", "Raman", "Iyer", "Okafor", "Nakamura", "Svensson", "Haddad", "Moreau"];
const DOMAINS: [&str; 4] = ["litware.example", "contoso.example", "fabrikam.example", "northwind.example"];

fn email_spelling(local: &str, domain: &str, how: usize) -> String {
    let e = format!("{local}@{domain}");
    match how % 14 {
        0 => e,
        1 => e.to_uppercase(),
        2 => format!("  {e} "),
        3 => format!("Someone Else <{e}>"),
        4 => format!("mailto:{e}"),
        5 => format!("email: {e}"),
        6 => format!("[write]({}mailto:{e})", ""),
        7 => format!("{local}+q3@{domain}"),
        8 => format!("\"{local}\"@{domain}"),
        9 => format!("{local}(work)@{domain}"),
        10 => format!("{local}＠{domain}"),
        11 => format!("{local}%40{domain}"),
        12 => format!("write to {e}."),
        _ => format!("&lt;{e}&gt;"),
    }
}

fn number_spelling(n: u64, how: usize) -> (String, Option<Value>) {
    let grouped = crate::org::import::thousands(n as usize);
    match how % 13 {
        0 => (n.to_string(), None),
        1 => (grouped.clone(), None),
        2 => (format!("\"{grouped}\""), None),
        3 => (format!("{n}.0"), None),
        4 => (format!("${n}"), None),
        5 => (format!("${grouped}.00"), None),
        6 => (format!("₹{grouped}"), None),
        7 => (format!("USD {n}"), None),
        8 => (format!("{n}.00 EUR"), None),
        9 => (n.to_string(), Some(json!(n))),
        10 => (format!("{n}.0"), Some(json!(n as f64))),
        11 => (format!("€{n}"), None),
        _ => (format!("total: {grouped}!"), None),
    }
}

fn id_spelling(prefix: &str, n: u64, how: usize) -> String {
    match how % 8 {
        0 => format!("{prefix}-{n}"),
        1 => format!("{prefix}{n}"),
        2 => format!("{}-{n}", prefix.to_lowercase()),
        3 => format!("{prefix}_{n}"),
        4 => format!("#{prefix}{n}"),
        5 => format!("{prefix} {n}"),
        6 => format!("({prefix}-{n})"),
        _ => format!("record {prefix}-{n}."),
    }
}

fn phone_spelling(area: u64, mid: u64, last: u64, how: usize) -> String {
    match how % 9 {
        0 => format!("+1 ({area}) {mid}-{last:04}"),
        1 => format!("{area}-{mid}-{last:04}"),
        2 => format!("{area}.{mid}.{last:04}"),
        3 => format!("{area}{mid}{last:04}"),
        4 => format!("+1{area}{mid}{last:04}"),
        5 => format!("({area}) {mid} {last:04}"),
        6 => format!("tel:+1-{area}-{mid}-{last:04}"),
        7 => format!("1 {area} {mid} {last:04}"),
        _ => format!("call {area} {mid} {last:04} today"),
    }
}

fn name_spelling(first: &str, last: &str, how: usize) -> (String, Value) {
    let (s, v): (String, Value) = match how % 7 {
        0 => (format!("{first} {last}"), json!({"contact_name": format!("{first} {last}")})),
        1 => (format!("{first} {last}").to_lowercase(), json!({"attendee": format!("{first} {last}").to_lowercase()})),
        2 => (format!("{last}, {first}"), json!({"customer": format!("{last}, {first}")})),
        3 => (format!("{first} {last}").to_uppercase(), json!({"first_name": first, "last_name": last})),
        4 => (format!("  {first}   {last} "), json!({"note": format!("Meet {first}   {last} on Monday")})),
        5 => (format!("{first}-{last}"), json!({"title": format!("Call {first}"), "body": format!("about {last}")})),
        _ => (format!("{first} {last}"), json!({"to_name": format!("{first} {last}")})),
    };
    (s, v)
}

fn spelled() -> impl Strategy<Value = Spelled> {
    (0usize..5, any::<u64>(), 0usize..64, 0usize..64, 0usize..64).prop_map(|(kind, seed, a, b, c)| {
        let pick = |n: usize, shift: u32| ((seed >> shift) as usize) % n;
        match kind {
            0 => {
                let local = format!("{}.{}", FIRST[pick(8, 0)], LAST[pick(8, 3)]).to_lowercase().replace('á', "a");
                let domain = DOMAINS[pick(4, 6)];
                Spelled {
                    stored: email_spelling(&local, domain, a),
                    read: email_spelling(&local, domain, b),
                    used: json!({"to": email_spelling(&local, domain, c)}),
                    name: false,
                }
            }
            1 => {
                let n = 100 + (seed % 9_999_900);
                let used = match number_spelling(n, c) {
                    (_, Some(v)) => json!({ "amount": v }),
                    (s, None) => json!({ "amount": s }),
                };
                Spelled { stored: number_spelling(n, a).0, read: number_spelling(n, b).0, used, name: false }
            }
            2 => {
                let prefix = ["L", "ACC", "INV", "Q"][pick(4, 0)];
                let n = 100 + (seed >> 8) % 99_900;
                Spelled {
                    stored: id_spelling(prefix, n, a),
                    read: id_spelling(prefix, n, b),
                    used: json!({"record": id_spelling(prefix, n, c)}),
                    name: false,
                }
            }
            3 => {
                let (area, mid, last) = (200 + seed % 700, 200 + (seed >> 10) % 700, (seed >> 20) % 10_000);
                Spelled {
                    stored: phone_spelling(area, mid, last, a),
                    read: phone_spelling(area, mid, last, b),
                    used: json!({"body": phone_spelling(area, mid, last, c)}),
                    name: false,
                }
            }
            _ => {
                let (first, last) = (FIRST[pick(8, 0)], LAST[pick(8, 3)]);
                Spelled {
                    stored: name_spelling(first, last, a).0,
                    read: name_spelling(first, last, b).0,
                    used: name_spelling(first, last, c).1,
                    name: true,
                }
            }
        }
    })
}

fn remembering(s: &Spelled, in_lesson: bool) -> Provenance {
    if s.name {
        let card = RememberedCard {
            card: 1,
            source: "Acme ATS".into(),
            record_id: "C-1".into(),
            fields: vec![field("contact_name", &s.stored)],
        };
        return Provenance::new(&[card], &[], None, "");
    }
    if in_lesson {
        Provenance::new(&[], &[lesson("1", &s.stored)], None, "")
    } else {
        let card = RememberedCard {
            card: 1,
            source: "Acme ATS".into(),
            record_id: "R-1".into(),
            fields: vec![field("value", &s.stored)],
        };
        Provenance::new(&[card], &[], None, "")
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// A remembered value, in whatever spelling memory keeps it and the step uses, is refused,
    /// every time.
    #[test]
    fn a_remembered_value_is_refused_in_every_spelling(s in spelled(), in_lesson in any::<bool>()) {
        let p = remembering(&s, in_lesson);
        prop_assert!(p.check(StepKind::Send, &s.used).is_err(), "{:?}", s);
    }
}

/// The same value read in this run, in a third spelling, passes at least 99 times in 100.
#[test]
fn a_value_read_in_this_run_passes_in_nearly_every_spelling() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let (mut passed, mut failed) = (0u32, Vec::new());
    let total = 4000;
    for i in 0..total {
        let s = spelled().new_tree(&mut runner).unwrap().current();
        let mut p = remembering(&s, i % 2 == 0);
        p.read_text(&s.read);
        match p.check(StepKind::Send, &s.used) {
            Ok(()) => passed += 1,
            Err(r) => failed.push((s, r)),
        }
    }
    let rate = f64::from(passed) / f64::from(total);
    println!("a value read in this run passed in {passed} of {total} spellings");
    assert!(rate >= 0.99, "{rate}: {:#?}", &failed[..failed.len().min(10)]);
}
