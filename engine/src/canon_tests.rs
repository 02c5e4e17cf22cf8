//! Each spelling people and models write a value in, and what it comes to.

use super::*;

fn email(e: &str) -> Key {
    Key::Email(e.into())
}
fn code(c: &str) -> Key {
    Key::Code(c.into())
}
fn phone(p: &str) -> Key {
    Key::Phone(p.into())
}

#[test]
fn every_spelling_of_one_value_comes_to_its_key() {
    let rows: &[(&str, &[Key])] = &[
        // Emails, wherever they stand.
        ("dana@litware.example", &[email("dana@litware.example")]),
        (" Dana@Litware.Example ", &[email("dana@litware.example")]),
        ("Dana Brooks <dana@litware.example>", &[email("dana@litware.example")]),
        ("mailto:dana@litware.example", &[email("dana@litware.example")]),
        ("email:dana@litware.example", &[email("dana@litware.example")]),
        ("[Dana](mailto:dana@litware.example)", &[email("dana@litware.example")]),
        ("write to dana+q3@litware.example.", &[email("dana@litware.example")]),
        ("\"dana\"@litware.example", &[email("dana@litware.example")]),
        ("dana(sales)@litware.example", &[email("dana@litware.example")]),
        ("dana@(work)litware.example", &[email("dana@litware.example")]),
        ("dana%40litware.example", &[email("dana@litware.example")]),
        ("ｄａｎａ＠ｌｉｔｗａｒｅ.example", &[email("dana@litware.example")]),
        ("&lt;dana@litware.example&gt;", &[email("dana@litware.example")]),
        // Numbers and amounts.
        ("48000", &[code("48000")]),
        ("48,000", &[code("48000")]),
        ("\"48,000\"", &[code("48000")]),
        ("48000.0", &[code("48000")]),
        ("48,000.00", &[code("48000")]),
        ("$48000", &[code("48000")]),
        ("₹18,50,000", &[code("1850000")]),
        ("48_000", &[code("48000")]),
        ("Refunds over $500 need a lead", &[code("500")]),
        ("1,200 seats", &[code("1200")]),
        ("$50", &[code("50")]),
        ("12.50", &[]),
        ("12 seats", &[]),
        ("48000.75", &[code("48000.75")]),
        // Ids by their letters and digits.
        ("L-1042", &[code("1042"), code("l1042")]),
        ("L1042", &[code("1042"), code("l1042")]),
        ("l_1042", &[code("1042"), code("l1042")]),
        ("#4711", &[code("4711")]),
        ("ACC-778", &[code("778"), code("acc778")]),
        ("order ORD-12345678 shipped", &[code("12345678"), code("ord12345678")]),
        // Phones by their last ten digits.
        ("+1 (425) 555-0143", &[code("14255550143"), phone("4255550143")]),
        ("425.555.0143", &[code("4255550143"), phone("4255550143")]),
        ("ring 425 555 0143 today", &[code("4255550143"), phone("4255550143")]),
        ("14255550143", &[code("14255550143"), phone("4255550143")]),
        // Dates and times name no record.
        ("2026-12-05", &[]),
        ("05/12/2026", &[]),
        ("at 09:30", &[]),
        // Words without digits are no identifying values.
        ("Proposal", &[]),
    ];
    for (text, want) in rows {
        let mut want = want.to_vec();
        want.sort();
        assert_eq!(keys_in(text), want, "{text:?}");
    }
}

#[test]
fn a_phone_number_is_one_value_and_an_amount_list_is_several() {
    assert_eq!(values_in("+1 (425) 555-0143").len(), 1);
    assert_eq!(values_in("budget 48000, 12 seats, 1,200 users").len(), 2);
    // Digits glued to an id's letters are the id, not a phone number.
    assert_eq!(values_in("ORD-1234567").len(), 1);
}

#[test]
fn names_are_sets_of_folded_words() {
    let have: HashSet<String> = words("Brooks, DANA").into_iter().collect();
    assert!(name_within(&words("Dana Brooks"), &have));
    assert!(!name_within(&words("Dana Smith"), &have));
    assert!(!name_within(&[], &have), "no words name nothing");
}

#[test]
fn same_value_decides_claims_and_checks() {
    assert!(same_value("48,000", "48000"));
    assert!(same_value("$48,000.00", "48000"));
    assert!(same_value("Dana Brooks <DANA@litware.example>", "dana@litware.example"));
    assert!(same_value("Proposal", " proposal "));
    assert!(same_value("L-1042", "l1042"));
    assert!(!same_value("48000", "48001"));
    assert!(!same_value("Proposal", "Won"));
    assert!(!same_value("48000 INR", "48000 USD"));
    assert!(!same_value("dana@litware.example", "dana@fabrikam.example"));
}

/// Found by `fuzz_canonicaliser`: `INR.+dana@litware.example` gave the key `inr.@litware.example`,
/// which canonicalised again to `inr@litware.example`; the dot before a tag is now trimmed too.
#[test]
fn an_email_with_a_dot_before_its_tag_has_a_canonical_key() {
    let keys = keys_in("INR.+dana@litware.example");
    assert_eq!(keys, vec![Key::Email("inr@litware.example".into())]);
    assert_eq!(keys_in(keys[0].as_str()), keys);
    assert!(same_value("INR.+dana@litware.example", "inr@litware.example"));
}

/// Found by `fuzz_canonicaliser`: the quoted local part of `"["@x.example` gave the key `[@x.example`,
/// which no reading finds again; a quoted local part now keeps only what an unquoted one may hold.
#[test]
fn a_quoted_local_part_keeps_only_what_a_key_reads_back() {
    assert_eq!(keys_in("\"[\"@x.example"), vec![]);
    let keys = keys_in("\"dana [sales]\"@x.example");
    assert_eq!(keys, vec![Key::Email("danasales@x.example".into())]);
    assert_eq!(keys_in(keys[0].as_str()), keys);
}
