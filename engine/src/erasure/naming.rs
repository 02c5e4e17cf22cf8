//! What a third party's value is, and which stored text names it.
//!
//! An admin gives one email address or phone number. It is read by the same canonicaliser the gate
//! uses (`canon`), so every spelling the gate treats as that value is erased with it:
//! `Dana.Brooks+q3@Litware.example`, `mailto:dana.brooks@litware.example` and
//! `Dana Brooks <dana.brooks@litware.example>` are one email; `+1 (415) 555-0142`, `415.555.0142`
//! and `4155550142` are one phone number (its last ten digits).
//!
//! A store cannot run the canonicaliser in SQL, so erasing has two passes: a coarse one in SQL
//! ([`Probe`]: the rows whose text holds the email's domain, or the phone number's digits once the
//! characters written between them are taken out), and then [`Naming::names`] on each text of
//! each row found, which decides.

use crate::canon::{self, Key};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The longest value an admin may give: longer than any email address or phone number.
pub const VALUE_MAX_CHARS: usize = 320;

/// What kind of value is erased.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ValueKind {
    Email,
    Phone,
}

crate::string_enum!(ValueKind { Email => "email", Phone => "phone" });

impl ValueKind {
    /// "an email address", "a phone number".
    pub fn words(&self) -> &'static str {
        match self {
            ValueKind::Email => "an email address",
            ValueKind::Phone => "a phone number",
        }
    }
}

/// Why what was given is not a value to erase. The value itself is never repeated: a refusal may
/// be kept for the page that shows it, and the value is what must not be kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotAValue {
    Empty,
    TooLong,
    Neither,
    Several,
}

impl NotAValue {
    pub fn sentence(&self) -> String {
        match self {
            NotAValue::Empty => "Give the email address or phone number to erase.".to_string(),
            NotAValue::TooLong => {
                format!("That is longer than any email address or phone number ({VALUE_MAX_CHARS} characters at most).")
            }
            NotAValue::Neither => "That is neither an email address nor a phone number: give one such as \
                                   dana@example.com or +1 415 555 0142."
                .to_string(),
            NotAValue::Several => {
                "That holds more than one email address or phone number: give one at a time.".to_string()
            }
        }
    }
}

/// An email address or a phone number, as every spelling of it is compared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Naming {
    key: Key,
}

/// The characters a phone number may be written with between its digits (`canon`'s joiners), and
/// the no-break space NFKC reads as a space.
pub const PHONE_JOINERS: &[&str] = &[" ", "-", ".", "(", ")", "+", "\u{a0}"];

/// The coarse pass a store makes in SQL: the rows whose lowercased text holds one of `needles`
/// after every one of `strip` is taken out of it. It finds at least every row whose plain (or
/// wholly fullwidth) text names the value; [`Naming::names`] then decides for each.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Probe {
    pub needles: Vec<String>,
    pub strip: &'static [&'static str],
}

impl Probe {
    /// Each needle as a `LIKE` pattern with `\` as its escape: `%needle%`.
    pub fn like_patterns(&self) -> Vec<String> {
        self.needles
            .iter()
            .map(|n| {
                let escaped: String = n
                    .chars()
                    .flat_map(|c| match c {
                        '%' | '_' | '\\' => vec!['\\', c],
                        c => vec![c],
                    })
                    .collect();
                format!("%{escaped}%")
            })
            .collect()
    }
}

/// The fullwidth form of a plain ASCII text (`litware` as `ｌｉｔｗａｒｅ`), which NFKC reads back as
/// the plain one.
fn fullwidth(s: &str) -> String {
    s.chars()
        .map(|c| if ('!'..='~').contains(&c) { char::from_u32(c as u32 - 0x21 + 0xFF01).unwrap_or(c) } else { c })
        .collect()
}

impl Naming {
    /// Reads what an admin gave: exactly one email address or phone number, in any spelling.
    pub fn parse(given: &str) -> Result<Self, NotAValue> {
        let given = given.trim();
        if given.is_empty() {
            return Err(NotAValue::Empty);
        }
        if given.chars().count() > VALUE_MAX_CHARS {
            return Err(NotAValue::TooLong);
        }
        let values = canon::values_in(given);
        let wanted: Vec<Key> = values
            .iter()
            .filter_map(|keys| keys.iter().find(|k| matches!(k, Key::Email(_) | Key::Phone(_))).cloned())
            .collect();
        match wanted.as_slice() {
            [] => Err(NotAValue::Neither),
            // A phone number's digits are its only value; an email beside a number (an id, an
            // amount) is still more than one thing to erase.
            [key] if values.len() == 1 => Ok(Naming { key: key.clone() }),
            _ => Err(NotAValue::Several),
        }
    }

    pub fn kind(&self) -> ValueKind {
        match self.key {
            Key::Email(_) => ValueKind::Email,
            _ => ValueKind::Phone,
        }
    }

    /// The value in the form every spelling of it comes to: `dana.brooks@litware.example`,
    /// `4155550142`. Shown back to the admin who typed it, and never kept.
    pub fn canonical(&self) -> &str {
        self.key.as_str()
    }

    /// What the keyed hash is taken of: the kind and the canonical form, so that every spelling
    /// of one value hashes alike and an email never hashes as a phone number.
    pub fn hashed_text(&self) -> String {
        format!("{}:{}", self.kind().as_str(), self.canonical())
    }

    /// Whether a stored text names the value: some value in it, in any spelling, comes to the same
    /// key. A JSON text (a card's fields, a snapshot's arguments) is also read string by string,
    /// so a value is found however the JSON around it is written.
    pub fn names(&self, text: &str) -> bool {
        if canon::keys_in(text).contains(&self.key) {
            return true;
        }
        let start = text.trim_start();
        if !(start.starts_with('{') || start.starts_with('[') || start.starts_with('"')) {
            return false;
        }
        serde_json::from_str::<Value>(text).is_ok_and(|v| self.names_json(&v))
    }

    fn names_json(&self, v: &Value) -> bool {
        match v {
            Value::String(s) => canon::keys_in(s).contains(&self.key),
            Value::Number(n) => canon::keys_in(&n.to_string()).contains(&self.key),
            Value::Array(items) => items.iter().any(|i| self.names_json(i)),
            Value::Object(map) => map.iter().any(|(k, v)| canon::keys_in(k).contains(&self.key) || self.names_json(v)),
            Value::Bool(_) | Value::Null => false,
        }
    }

    /// Whether any of a row's texts names the value.
    pub fn names_any<'a>(&self, texts: impl IntoIterator<Item = Option<&'a str>>) -> bool {
        texts.into_iter().flatten().any(|t| self.names(t))
    }

    /// The store's coarse pass. Every spelling of an email holds its domain; every spelling of a
    /// phone number holds its digits in a row once its joiners are taken out. Each is looked for
    /// as written and in fullwidth forms; a spelling that mixes the two is not found.
    pub fn probe(&self) -> Probe {
        match &self.key {
            Key::Email(email) => {
                let domain = email.rsplit_once('@').map_or(email.as_str(), |(_, d)| d).to_string();
                let mut needles = vec![domain.clone()];
                if domain.is_ascii() {
                    needles.push(fullwidth(&domain));
                }
                Probe { needles, strip: &[] }
            }
            Key::Phone(digits) | Key::Code(digits) => {
                Probe { needles: vec![digits.clone(), fullwidth(digits)], strip: PHONE_JOINERS }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naming(given: &str) -> Naming {
        Naming::parse(given).unwrap_or_else(|e| panic!("{given:?}: {}", e.sentence()))
    }

    #[test]
    fn one_email_or_phone_number_is_read_in_any_spelling() {
        for given in [
            "dana.brooks@litware.example",
            "Dana.Brooks+q3@Litware.example",
            "mailto:dana.brooks@litware.example",
            "Dana Brooks <dana.brooks@litware.example>",
            " DANA.BROOKS@LITWARE.EXAMPLE ",
        ] {
            let n = naming(given);
            assert_eq!((n.kind(), n.canonical()), (ValueKind::Email, "dana.brooks@litware.example"), "{given:?}");
            assert_eq!(n.hashed_text(), "email:dana.brooks@litware.example");
        }
        for given in ["+1 (415) 555-0142", "415.555.0142", "4155550142", "415 555 0142", "+14155550142"] {
            let n = naming(given);
            assert_eq!((n.kind(), n.canonical()), (ValueKind::Phone, "4155550142"), "{given:?}");
            assert_eq!(n.hashed_text(), "phone:4155550142");
        }
    }

    #[test]
    fn anything_else_is_refused_without_repeating_it() {
        let refused = |given: &str| Naming::parse(given).unwrap_err();
        assert_eq!(refused("   "), NotAValue::Empty);
        assert_eq!(refused("Dana Brooks"), NotAValue::Neither);
        assert_eq!(refused("L-1042"), NotAValue::Neither, "an id is not a third party's value");
        assert_eq!(refused("48,000"), NotAValue::Neither);
        assert_eq!(refused("dana@litware"), NotAValue::Neither, "no domain");
        assert_eq!(refused("dana@litware.example or +1 415 555 0142"), NotAValue::Several);
        assert_eq!(refused("dana@litware.example, sam@litware.example"), NotAValue::Several);
        assert_eq!(refused("dana@litware.example L-1042"), NotAValue::Several);
        assert_eq!(refused(&format!("{}@litware.example", "d".repeat(VALUE_MAX_CHARS))), NotAValue::TooLong);
        for e in [NotAValue::Empty, NotAValue::TooLong, NotAValue::Neither, NotAValue::Several] {
            assert!(!e.sentence().contains("litware"), "{e:?}");
        }
    }

    #[test]
    fn a_text_names_the_value_in_every_spelling_the_gate_reads_as_it_and_no_other() {
        let email = naming("dana.brooks@litware.example");
        for text in [
            "Dana.Brooks+q3@Litware.example",
            "write to mailto:dana.brooks@litware.example today",
            "[Dana](mailto:dana.brooks@litware.example)",
            "\"dana.brooks\"@litware.example",
            "dana.brooks%40litware.example",
            "ｄａｎａ.ｂｒｏｏｋｓ＠ｌｉｔｗａｒｅ.example",
            r#"[{"name":"email","value":"Dana.Brooks+q3@Litware.example","free_text":false}]"#,
            r#"{"to":"dana.brooks\u0040litware.example"}"#,
        ] {
            assert!(email.names(text), "{text:?}");
        }
        for text in [
            "dana@litware.example",
            "dana.brooks@litware.example.org",
            "sam.brooks@litware.example",
            "Dana Brooks at Litware",
            "",
        ] {
            assert!(!email.names(text), "{text:?}");
        }

        let phone = naming("415.555.0142");
        for text in [
            "+1 (415) 555-0142",
            "call 415.555.0142 after 3",
            "4155550142",
            "+14155550142",
            "(415) 555 0142",
            r#"{"phone":"415-555-0142"}"#,
            r#"{"phone":4155550142}"#,
        ] {
            assert!(phone.names(text), "{text:?}");
        }
        for text in ["415-555-0143", "INV-4155550142", "555-0142", "2026-12-05", "+1 (415) 555-01420"] {
            assert!(!phone.names(text), "{text:?}");
        }
    }

    #[test]
    fn the_coarse_pass_holds_every_plain_spelling() {
        // A row is found when its lowercased text, without the probe's characters, holds a needle.
        fn found(p: &Probe, text: &str) -> bool {
            let mut t = text.to_lowercase();
            for s in p.strip {
                t = t.replace(s, "");
            }
            p.needles.iter().any(|n| t.contains(n.as_str()))
        }
        let email = naming("dana.brooks@litware.example");
        let p = email.probe();
        assert_eq!(p.needles, vec!["litware.example".to_string(), "ｌｉｔｗａｒｅ．ｅｘａｍｐｌｅ".to_string()]);
        for text in [
            "Dana.Brooks+q3@Litware.example",
            "dana.brooks%40LITWARE.example",
            "ｄａｎａ.ｂｒｏｏｋｓ＠ｌｉｔｗａｒｅ．ｅｘａｍｐｌｅ",
        ] {
            assert!(found(&p, text) && email.names(text), "{text:?}");
        }
        let phone = naming("+1 (415) 555-0142");
        let p = phone.probe();
        for text in ["+1 (415) 555-0142", "415.555.0142", "415\u{a0}555\u{a0}0142", "４１５５５５０１４２"] {
            assert!(found(&p, text) && phone.names(text), "{text:?}");
        }
        assert_eq!(p.like_patterns()[0], "%4155550142%");
        let odd = Probe { needles: vec!["a_b%c\\".into()], strip: &[] };
        assert_eq!(odd.like_patterns(), vec![r"%a\_b\%c\\%".to_string()]);
    }
}
