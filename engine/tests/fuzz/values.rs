//! What counts as the same value, and the gate that decides by it: the canonicaliser and provenance.

use super::*;

// ---- The canonicaliser ---------------------------------------------------------------------------

/// Text full of identifying values in their many spellings.
fn value_text() -> impl Strategy<Value = String> {
    let piece = prop::sample::select(vec![
        "dana@litware.example",
        "DANA+q3@Litware.Example",
        "Dana Brooks <dana@litware.example>",
        "mailto:",
        "%40",
        "＠",
        "@",
        "\"a b\"@x.example",
        "(c)",
        "$48,000.00",
        "48000",
        "48 000",
        "₹",
        "INR",
        "#4711",
        "L-1042",
        "l_1042",
        "+1 (555) 010-9999",
        "555.010.9999",
        "2026-12-04",
        "12:30",
        "１２３",
        " ",
        " ",
        ",",
        ".",
        "-",
        "+",
        "<",
        ">",
        "0",
        "007",
        "1.50",
        "x",
        "Dana",
        "brooks",
        "ß",
        "İ",
        "ﬁ",
        "\u{301}",
        "\n",
    ]);
    prop_oneof![3 => prop::collection::vec(piece, 0..12).prop_map(|p| p.concat()), 1 => text()]
}

#[test]
fn fuzz_canonicaliser() {
    fuzz("canonicaliser", (value_text(), value_text()), |(a, b)| {
        prop_assert!(canon::same_value(&a, &a), "a value is the same as itself");
        prop_assert_eq!(canon::same_value(&a, &b), canon::same_value(&b, &a), "the same either way round");
        let keys = canon::keys_in(&a);
        let listed: HashSet<Key> = canon::values_in(&a).into_iter().flatten().collect();
        prop_assert_eq!(listed, keys.iter().cloned().collect::<HashSet<_>>());
        for key in &keys {
            if let Key::Email(_) = key {
                // An email's key is its own canonical form.
                prop_assert_eq!(canon::keys_in(key.as_str()), vec![key.clone()]);
            }
        }
        prop_assert_eq!(canon::fold(&canon::fold(&a)), canon::fold(&a), "folding is idempotent");
        Ok(())
    });
}

// ---- Erasing a third party -----------------------------------------------------------------------

/// One value spelled as people write it: an email address or a phone number.
fn one_value() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "dana@litware.example",
        "DANA+q3@Litware.Example",
        "Dana Brooks <dana@litware.example>",
        "mailto:dana@litware.example",
        "dana%40litware.example",
        "\"dana\"@litware.example",
        "dana(c)@litware.example",
        "dana@(c)litware.example.",
        "+1 (555) 010-9999",
        "555.010.9999",
        "5550109999",
        "(555) 010 9999",
        "+15550109999",
    ])
    .prop_map(str::to_string)
}

/// What an admin gives to erase, and a stored text around another spelling: the value either names
/// it or not, and the store's coarse pass in SQL finds every plain text that does, so the
/// canonicaliser decides on a row it never skipped.
#[test]
fn fuzz_erasure_naming() {
    use engine::erasure::Naming;
    let given = prop_oneof![3 => one_value(), 1 => value_text()];
    let text = (value_text(), one_value(), value_text()).prop_map(|(a, v, b)| format!("{a}{v}{b}"));
    fuzz("erasure naming", (given, prop_oneof![3 => text, 1 => value_text()]), |(given, text)| {
        let Ok(naming) = Naming::parse(&given) else { return Ok(()) };
        prop_assert!(naming.names(naming.canonical()), "a value names itself");
        prop_assert!(naming.names(&given), "what was given names the value");
        prop_assert_eq!(Naming::parse(naming.canonical()).ok().map(|n| n.hashed_text()), Some(naming.hashed_text()));
        // As SQL's lower() and replace() read it: ASCII text, without JSON's escapes.
        if naming.names(&text) && text.is_ascii() && !text.contains('\\') {
            let probe = naming.probe();
            let mut bare = text.to_ascii_lowercase();
            for s in probe.strip {
                bare = bare.replace(s, "");
            }
            prop_assert!(probe.needles.iter().any(|n| bare.contains(n.as_str())), "the coarse pass finds {:?}", text);
        }
        Ok(())
    });
}

// ---- Provenance ----------------------------------------------------------------------------------

fn field_name() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec!["name", "company", "contact", "email", "amount", "to", "notes", "id", "owner"])
            .prop_map(str::to_string),
        json_key()
    ]
}

/// Arguments as a plan holds them: the values of the canonicaliser's target inside random JSON.
fn args() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![value_text().prop_map(Value::from), any::<i64>().prop_map(Value::from), Just(Value::Null)];
    leaf.prop_recursive(3, 24, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::vec((field_name(), inner), 0..4).prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

fn kind() -> impl Strategy<Value = StepKind> {
    prop::sample::select(vec![
        StepKind::Read,
        StepKind::Write,
        StepKind::Rollback,
        StepKind::Send,
        StepKind::Payment,
        StepKind::Act,
        StepKind::HandOn,
    ])
}

#[test]
fn fuzz_provenance() {
    let card = (value_text(), prop::collection::vec((field_name(), value_text(), any::<bool>()), 0..4)).prop_map(
        |(record_id, fields)| RememberedCard {
            card: 1,
            source: "crm".into(),
            record_id,
            fields: fields.into_iter().map(|(name, value, free_text)| CardField { name, value, free_text }).collect(),
        },
    );
    let lesson = (value_text(), prop::option::of(value_text()), prop::option::of(Just("crm".to_string())))
        .prop_map(|(text, claim, source)| RememberedLesson { id: "lesson:1".into(), text, claim, source });
    let input = (
        prop::collection::vec(card, 0..3),
        prop::collection::vec(lesson, 0..3),
        value_text(),
        args(),
        kind(),
        field_name(),
        value_text(),
        args(),
    );
    fuzz("provenance", input, |(cards, lessons, request, args, kind, field, value, read)| {
        let mut p = Provenance::new(&cards, &lessons, Some(("person:1", "ada@acme.example")), &request);
        let _ = p.check(kind, &args);
        let _ = p.check_read("crm", &args);
        let _ = p.check_read("mail", &args);
        prop_assert_eq!(p.check(StepKind::Read, &args), Ok(()));
        // A value the person wrote passes, wherever it stands and whatever the run remembers.
        let asked = Provenance::new(&cards, &lessons, Some(("person:1", "ada@acme.example")), &value);
        let step = json!({ field: value });
        prop_assert_eq!(asked.check(kind, &step), Ok(()), "{:?}", step);
        // And so does a value read in this run.
        p.read_value(&json!({ "result": value }));
        prop_assert_eq!(p.check(kind, &step), Ok(()), "{:?}", step);
        let _ = p.check(kind, &read);
        Ok(())
    });
}
