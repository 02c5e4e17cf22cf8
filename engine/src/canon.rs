//! What counts as "the same value": one canonical form for every identifying value, so the gate
//! that refuses acting from memory, a lesson's claim checked against its record, and the check
//! after an answer all agree on it.
//!
//! A value is spelled many ways: `Dana Brooks <dana@litware.example>`, `mailto:DANA+q3@litware.example`,
//! `$48,000.00`, `48000`, `#4711`, `L1042` for `L-1042`. Each spelling is brought to the same key
//! before anything is compared, so no decision depends on how a value looks, only on where it
//! came from. Text is first put in Unicode NFKC (fullwidth `＠` is `@`, `１` is `1`) and case
//! folded.
//!
//! - An email is found anywhere in a string (a display name, `mailto:`, a markdown link, angle
//!   brackets, `%40`), its `+tag`, quotes and comments dropped.
//! - A phone number is its last ten digits, from seven digits up.
//! - A number is its digits without currency signs, grouping or a zero fraction; it counts from
//!   three digits, or at any size with a currency sign (an amount).
//! - An id is its letters and digits (`L-1042`, `l_1042` and `L1042` are `l1042`; `#4711` is
//!   `4711`). Dates and times are not ids.
//! - A name is the set of its words.

use std::borrow::Cow;
use std::collections::HashSet;
use std::hash::BuildHasher;
use unicode_normalization::UnicodeNormalization;

/// One identifying value, in the form it is compared in.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Key {
    /// `local@domain`, folded, without `+tag`, quotes or comments.
    Email(String),
    /// The last ten digits.
    Phone(String),
    /// An id's letters and digits, or a number's digits (with a non-zero fraction after a `.`).
    Code(String),
}

/// NFKC and case folded: the form every comparison starts from.
pub fn fold(s: &str) -> String {
    // NFKC leaves ASCII as it is, and most values are ASCII.
    if s.is_ascii() {
        s.to_ascii_lowercase()
    } else {
        s.nfkc().flat_map(char::to_lowercase).collect()
    }
}

/// A text folded once, with its emails found, so its values and words are read from one pass.
pub struct Folded {
    text: String,
    emails: Vec<(usize, usize, String)>,
}

impl Folded {
    pub fn new(s: &str) -> Self {
        let mut text = fold(s);
        if text.contains('%') {
            text = text.replace("%40", "@");
        }
        let emails = if text.contains('@') { email_spans(&text) } else { Vec::new() };
        Self { text, emails }
    }

    /// Every identifying value, each as its alternative keys (the first the most specific): a
    /// phone number is also the number its digits make, an id's lone run of digits is that number
    /// too. Two spellings name the same value when one's keys meet the other's.
    pub fn values(&self) -> Vec<Vec<Key>> {
        let mut out: Vec<Vec<Key>> = self.emails.iter().map(|(_, _, e)| vec![Key::Email(e.clone())]).collect();
        if !self.text.bytes().any(|b| b.is_ascii_digit()) {
            return out;
        }
        // An email's own letters and digits, and a phone number's groups, are not ids of their own.
        let rest = self.without_emails();
        let (phones, rest) = phones_in(&rest);
        out.extend(phones);
        out.extend(codes_in(&rest));
        out
    }

    /// Every key of every identifying value.
    pub fn keys(&self) -> Vec<Key> {
        let mut out: Vec<Key> = self.values().into_iter().flatten().collect();
        out.sort();
        out.dedup();
        out
    }

    /// Its words: runs of letters and digits.
    pub fn words(&self) -> Vec<String> {
        split_words(&self.text)
    }

    /// The words a name may be made of: its words outside its emails, so the domain of
    /// `dana@litware.example` does not name Litware.
    pub fn name_words(&self) -> Vec<String> {
        if self.emails.is_empty() {
            self.words()
        } else {
            split_words(&self.without_emails())
        }
    }

    fn without_emails(&self) -> Cow<'_, str> {
        if self.emails.is_empty() {
            return Cow::Borrowed(&self.text);
        }
        let mut out = String::with_capacity(self.text.len());
        let mut last = 0;
        for (start, end, _) in &self.emails {
            if *start >= last {
                out.push_str(&self.text[last..*start]);
                out.push(' ');
                last = *end;
            }
        }
        out.push_str(&self.text[last..]);
        Cow::Owned(out)
    }
}

fn split_words(s: &str) -> Vec<String> {
    s.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_string).collect()
}

/// The words of a text, folded: runs of letters and digits. What names are compared by.
pub fn words(s: &str) -> Vec<String> {
    Folded::new(s).words()
}

/// The words a name may be made of: a text's words outside its emails.
pub fn name_words(s: &str) -> Vec<String> {
    Folded::new(s).name_words()
}

/// Whether every word of `name` is among `have`.
pub fn name_within<S: BuildHasher>(name: &[String], have: &HashSet<String, S>) -> bool {
    !name.is_empty() && name.iter().all(|w| have.contains(w))
}

/// Every identifying value in a text, each as its alternative keys (see `Folded::values`).
pub fn values_in(text: &str) -> Vec<Vec<Key>> {
    Folded::new(text).values()
}

/// Every key of every identifying value in a text.
pub fn keys_in(text: &str) -> Vec<Key> {
    Folded::new(text).keys()
}

/// Two spellings of one value: the same identifying keys, or, where neither holds one, the same
/// folded words. What a lesson's claim and the check compare a record's field by.
pub fn same_value(a: &str, b: &str) -> bool {
    let (ka, kb) = (keys_in(a), keys_in(b));
    if ka.is_empty() && kb.is_empty() {
        return words(a) == words(b);
    }
    // An email's display name is its decoration; beside a number, a currency's word is not.
    ka == kb && (ka.iter().all(|k| matches!(k, Key::Email(_))) || words_outside_keys(a) == words_outside_keys(b))
}

/// The words of a value that are not part of an identifying value: "48,000 INR" and "48000 inr"
/// agree on them, "48000 INR" and "48000 USD" do not.
fn words_outside_keys(s: &str) -> Vec<String> {
    let whole = Folded::new(s);
    let folded = whole.without_emails();
    // A token holding a digit is a number's or an id's, letters and all.
    folded
        .split_whitespace()
        .filter(|t| !t.bytes().any(|b| b.is_ascii_digit()))
        .flat_map(|t| t.split(|c: char| !c.is_alphanumeric()))
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// The characters an email's local part may hold, as people write them.
fn local_char(c: char) -> bool {
    c.is_alphanumeric()
        || matches!(
            c,
            '.' | '_'
                | '%'
                | '+'
                | '-'
                | '\''
                | '!'
                | '#'
                | '$'
                | '&'
                | '*'
                | '='
                | '?'
                | '^'
                | '`'
                | '{'
                | '|'
                | '}'
                | '~'
        )
}

fn domain_char(c: char) -> bool {
    c.is_alphanumeric() || c == '.' || c == '-'
}

/// The byte ranges of each email in `folded`, with its canonical form.
fn email_spans(folded: &str) -> Vec<(usize, usize, String)> {
    let chars: Vec<(usize, char)> = folded.char_indices().collect();
    let mut out = Vec::new();
    for (i, &(at, c)) in chars.iter().enumerate() {
        if c != '@' {
            continue;
        }
        // The local part, leftwards: a quoted local part whole, a comment skipped.
        let mut j = i;
        let mut local = String::new();
        let mut start = at;
        if j > 0 && chars[j - 1].1 == ')' {
            while j > 0 && chars[j - 1].1 != '(' {
                j -= 1;
            }
            j = j.saturating_sub(1);
        }
        if j > 0 && chars[j - 1].1 == '"' {
            let mut k = j - 1;
            while k > 0 && chars[k - 1].1 != '"' {
                k -= 1;
            }
            if k > 0 {
                // Only what an unquoted local part may hold, so the key reads back as itself.
                local = chars[k..j - 1].iter().map(|(_, c)| *c).filter(|c| local_char(*c)).collect();
                start = chars[k - 1].0;
            }
        } else {
            let mut k = j;
            while k > 0 && local_char(chars[k - 1].1) {
                k -= 1;
            }
            local = chars[k..j].iter().map(|(_, c)| *c).collect();
            start = chars.get(k).map_or(at, |(b, _)| *b);
        }
        // A comment inside the local part: `dana(sales)@…`, dropped above; one before it too.
        // The tag goes first, so what ends the part before it (`dana.+q3`) is trimmed as the end.
        let local = local.split('+').next().unwrap_or_default();
        let local = local.trim_matches(|c: char| c == '.' || c == '\'' || c == '`');
        // The domain, rightwards, after any comment.
        let mut k = i + 1;
        if chars.get(k).is_some_and(|(_, c)| *c == '(') {
            while k < chars.len() && chars[k].1 != ')' {
                k += 1;
            }
            k += 1;
        }
        let from = k;
        while k < chars.len() && domain_char(chars[k].1) {
            k += 1;
        }
        let domain: String = chars.get(from..k).unwrap_or_default().iter().map(|(_, c)| *c).collect();
        let domain = domain.trim_matches(|c: char| c == '.' || c == '-');
        let labels_ok = domain.contains('.') && domain.split('.').all(|l| !l.is_empty());
        if local.is_empty() || !labels_ok {
            continue;
        }
        let end = chars.get(k).map_or(folded.len(), |(b, _)| *b);
        out.push((start, end, format!("{local}@{domain}")));
    }
    out
}

const CURRENCY: [char; 13] = ['$', '€', '£', '¥', '₹', '₩', '₽', '₺', '₪', '₫', '₱', '₦', '¢'];

/// Whether a token is a date or a time, which name no record: `2026-12-05`, `05/12/2026`, `09:30`.
fn date_or_time(t: &str) -> bool {
    let parts: Vec<&str> = t.split(['-', '/', '.', ':', 't']).collect();
    let numeric = parts.iter().all(|p| !p.is_empty() && p.len() <= 4 && p.bytes().all(|b| b.is_ascii_digit()));
    if !numeric || parts.len() < 2 {
        return false;
    }
    let lens: Vec<usize> = parts.iter().map(|p| p.len()).collect();
    let time = t.contains(':') && lens.iter().all(|l| *l <= 2) && parts.len() <= 3;
    let date = parts.len() == 3
        && ((lens[0] == 4 && lens[1] <= 2 && lens[2] <= 2) || (lens[0] <= 2 && lens[1] <= 2 && lens[2] == 4));
    time || date
}

/// A number as written, brought to its digits: grouping (`48,000`, `18,50,000`, `48_000`,
/// `48'000`) and a zero fraction dropped; `None` when the token is not a number.
fn number(t: &str) -> Option<String> {
    let t = t.trim_start_matches(['+', '-']);
    let (int, frac) = match t.rsplit_once('.') {
        Some((i, f)) if !f.is_empty() && f.bytes().all(|b| b.is_ascii_digit()) && f.len() <= 4 => (i, Some(f)),
        _ => (t, None),
    };
    if int.is_empty() || !int.bytes().next().is_some_and(|b| b.is_ascii_digit()) {
        return None;
    }
    let grouped = int.contains([',', '_', '\'']);
    if grouped {
        let groups: Vec<&str> = int.split([',', '_', '\'']).collect();
        let ok = groups[0].len() <= 3
            && groups.iter().all(|g| !g.is_empty() && g.bytes().all(|b| b.is_ascii_digit()))
            && groups[1..].iter().all(|g| g.len() == 2 || g.len() == 3)
            && groups.last().is_some_and(|g| g.len() == 3);
        if !ok {
            return None;
        }
    } else if !int.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let digits: String = int.chars().filter(char::is_ascii_digit).collect();
    let digits = without_leading_zeros(&digits);
    match frac.map(|f| f.trim_end_matches('0')) {
        Some(f) if !f.is_empty() => Some(format!("{digits}.{f}")),
        _ => Some(digits),
    }
}

/// The ids and numbers of a folded text without its emails and phone numbers.
fn codes_in(text: &str) -> Vec<Vec<Key>> {
    let mut out = Vec::new();
    for raw in text.split(|c: char| {
        c.is_whitespace()
            || matches!(
                c,
                ';' | '<' | '>' | '"' | '(' | ')' | '[' | ']' | '{' | '}' | '|' | '*' | '`' | '!' | '?' | '=' | '&'
            )
    }) {
        let token = raw.trim_matches([',', '.', ':', '\'']);
        if token.is_empty() || !token.bytes().any(|b| b.is_ascii_digit()) {
            continue;
        }
        // A currency sign before or after makes it an amount, which counts at any size.
        let bare = token.trim_matches(CURRENCY);
        let amount = bare.len() != token.len();
        let bare = bare.trim_start_matches('#');
        if date_or_time(bare) {
            continue;
        }
        if let Some(n) = number(bare) {
            let int_digits = n.split('.').next().map_or(0, str::len);
            if amount || int_digits >= 3 {
                out.push(vec![Key::Code(n)]);
            }
            continue;
        }
        // An id: its letters and digits, three or more of them, with a digit.
        let alnum: String = bare.chars().filter(|c| c.is_alphanumeric()).collect();
        let digit_count = alnum.chars().filter(char::is_ascii_digit).count();
        let letters = alnum.chars().any(char::is_alphabetic);
        let joined = bare.contains(['-', '_', '/', ':', '.']);
        if alnum.chars().count() >= 3 && (letters || (joined && digit_count >= 2)) {
            let mut keys = vec![Key::Code(alnum.clone())];
            // `L 1042` and `1042` name what `L-1042` does: an id's one run of digits counts as
            // that number too.
            let runs: Vec<&str> = alnum.split(|c: char| !c.is_ascii_digit()).filter(|r| !r.is_empty()).collect();
            if let [run] = runs[..] {
                if run.len() >= 3 && run != alnum {
                    keys.push(Key::Code(without_leading_zeros(run)));
                }
            }
            out.push(keys);
        } else if digit_count >= 3 {
            out.push(vec![Key::Code(without_leading_zeros(&alnum))]);
        }
    }
    out
}

fn without_leading_zeros(digits: &str) -> String {
    match digits.trim_start_matches('0') {
        "" => "0".to_string(),
        d => d.to_string(),
    }
}

impl Key {
    /// As a refusal or a log line names it.
    pub fn as_str(&self) -> &str {
        match self {
            Key::Email(s) | Key::Phone(s) | Key::Code(s) => s,
        }
    }
}

/// Phone numbers: runs of seven to fifteen digits joined by spaces, `+`, `-`, `.` or brackets,
/// standing as words of their own, by their last ten digits (the same number with its country
/// code or without it) and by all their digits. Returns them, and the text without them.
fn phones_in(text: &str) -> (Vec<Vec<Key>>, Cow<'_, str>) {
    let mut found = Vec::new();
    if text.bytes().filter(u8::is_ascii_digit).count() < 7 {
        return (found, Cow::Borrowed(text));
    }
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut rest = String::with_capacity(text.len());
    let mut last = 0;
    let mut i = 0;
    while i < chars.len() {
        let (at, c) = chars[i];
        let prev = if i == 0 { ' ' } else { chars[i - 1].1 };
        // Digits after a letter, or after an id's joiner, belong to an id.
        let starts = (c.is_ascii_digit() || c == '+' || c == '(')
            && !prev.is_alphanumeric()
            && !matches!(prev, '-' | '_' | '/' | '#' | ':' | '.');
        if !starts {
            i += 1;
            continue;
        }
        let mut j = i;
        while j < chars.len()
            && (chars[j].1.is_ascii_digit() || matches!(chars[j].1, ' ' | '+' | '-' | '(' | ')' | '.'))
        {
            j += 1;
        }
        // Trailing joiners are not the number's.
        while j > i && !chars[j - 1].1.is_ascii_digit() && chars[j - 1].1 != ')' {
            j -= 1;
        }
        let end = chars.get(j).map_or(text.len(), |(b, _)| *b);
        let run = &text[at..end];
        let glued = chars.get(j).is_some_and(|(_, c)| c.is_alphanumeric() || matches!(c, '_' | '/' | '#' | '@' | ':'));
        let digits: String = run.chars().filter(char::is_ascii_digit).collect();
        let spaced = run.contains(char::is_whitespace);
        let groups_ok = !spaced || run.split(|c: char| !c.is_ascii_digit()).all(|g| g.len() <= 4);
        // `48000.00` is a number with its fraction, not a phone number.
        let decimal = !spaced && run.contains('.') && number(run).is_some();
        if glued
            || !(7..=15).contains(&digits.len())
            || !groups_ok
            || decimal
            || run.split_whitespace().any(date_or_time)
        {
            // Not a phone number: skip past this run's first word.
            i += 1;
            while i < chars.len() && !chars[i].1.is_whitespace() {
                i += 1;
            }
            continue;
        }
        let last_ten = digits[digits.len().saturating_sub(10)..].to_string();
        found.push(vec![Key::Phone(last_ten), Key::Code(without_leading_zeros(&digits))]);
        rest.push_str(&text[last..at]);
        rest.push(' ');
        last = end;
        i = j;
    }
    if found.is_empty() {
        return (found, Cow::Borrowed(text));
    }
    rest.push_str(&text[last..]);
    (found, Cow::Owned(rest))
}

#[cfg(test)]
#[path = "canon_tests.rs"]
mod tests;
