//! Search terms, the way people write: what a question and a stored text are matched by.
//!
//! A word is split where people join words (`billing-tier`, `seat_count`, `SeatCount`,
//! `renewals/Q3`, `v2.1`), folded (case and accents: `Café` is `cafe`), and stemmed with the
//! Snowball English stemmer, so "renewals", "renewal" and "renewing" are one term. Ids and emails
//! are also kept whole (`l-1004`, `dana@litware.example`), so a question naming one finds exactly
//! it. Words that carry no meaning ("what", "the", "is") are left out.

use rust_stemmers::{Algorithm, Stemmer};
use std::sync::OnceLock;
use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;

/// Words that say how something is asked, not what about; never terms.
const STOP: &[&str] = &[
    "a",
    "about",
    "after",
    "all",
    "also",
    "an",
    "and",
    "any",
    "applies",
    "apply",
    "are",
    "as",
    "at",
    "be",
    "been",
    "but",
    "by",
    "can",
    "could",
    "current",
    "currently",
    "did",
    "do",
    "does",
    "for",
    "from",
    "get",
    "give",
    "had",
    "has",
    "have",
    "how",
    "i",
    "if",
    "in",
    "into",
    "is",
    "it",
    "its",
    "just",
    "know",
    "let",
    "list",
    "me",
    "my",
    "need",
    "now",
    "of",
    "on",
    "or",
    "our",
    "please",
    "recorded",
    "should",
    "show",
    "so",
    "tell",
    "than",
    "that",
    "the",
    "their",
    "them",
    "there",
    "these",
    "they",
    "this",
    "those",
    "to",
    "us",
    "was",
    "we",
    "were",
    "what",
    "when",
    "where",
    "which",
    "who",
    "whom",
    "why",
    "will",
    "with",
    "would",
    "you",
    "your",
];

fn stemmer() -> &'static Stemmer {
    static STEMMER: OnceLock<Stemmer> = OnceLock::new();
    STEMMER.get_or_init(|| Stemmer::create(Algorithm::English))
}

/// Case and accents folded: compatibility forms decomposed, combining marks dropped. A
/// compatibility form may decompose to a space (U+FE70 is a space and a mark), which is dropped
/// too: a term never holds one.
pub fn fold(text: &str) -> String {
    text.nfkd().filter(|c| !is_combining_mark(*c) && !c.is_whitespace()).flat_map(char::to_lowercase).collect()
}

/// Whether a whole token is an id or an email: kept whole besides its parts. An id mixes letters
/// and digits (`L-1004`, `INV_2231`, `a1b2`); an email has an `@` with a dot after it.
fn kept_whole(token: &str) -> bool {
    let email = token.split_once('@').is_some_and(|(a, b)| !a.is_empty() && b.contains('.'));
    let id = token.chars().any(|c| c.is_ascii_digit()) && token.chars().any(char::is_alphabetic);
    email || id
}

/// Splits one run of letters and digits where the case or the kind of character changes:
/// `SeatCount` → `Seat`, `Count`; `HTTPServer` → `HTTP`, `Server`; `Q3` → `Q`, `3`.
fn split_case(word: &str) -> Vec<&str> {
    let chars: Vec<(usize, char)> = word.char_indices().collect();
    let mut parts = Vec::new();
    let mut start = 0;
    for i in 1..chars.len() {
        let (at, c) = chars[i];
        let prev = chars[i - 1].1;
        let next = chars.get(i + 1).map(|(_, n)| *n);
        let lower_to_upper = prev.is_lowercase() && c.is_uppercase();
        // The last capital of a run of capitals starts the next word: `HTTPServer`.
        let acronym_end = prev.is_uppercase() && c.is_uppercase() && next.is_some_and(char::is_lowercase);
        let kind_change = prev.is_ascii_digit() != c.is_ascii_digit();
        if lower_to_upper || acronym_end || kind_change {
            parts.push(&word[start..at]);
            start = at;
        }
    }
    parts.push(&word[start..]);
    parts
}

/// One word folded, if it carries meaning: not a stop word, and not a lone letter (the "Q" of
/// "Q3" does, with its digit, as an id kept whole).
fn word(raw: &str) -> Option<String> {
    let folded = fold(raw);
    let digits = folded.chars().all(|c| c.is_ascii_digit());
    if folded.is_empty() || STOP.contains(&folded.as_str()) || (!digits && folded.chars().count() < 2) {
        return None;
    }
    Some(folded)
}

/// The words of a text as they are matched: folded, with ids and emails kept whole as well (the
/// `bool` says so), in order and with repeats.
fn pieces(text: &str) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    for token in text.split(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | '(' | ')' | '"' | '?' | '!')) {
        let token = token.trim_matches(|c: char| !c.is_alphanumeric());
        if token.is_empty() {
            continue;
        }
        if kept_whole(token) {
            out.push((fold(token), true));
        }
        for raw in token.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()) {
            // An id inside a longer token is also kept whole: `Q3` of `renewals/Q3`.
            if raw.len() < token.len() && kept_whole(raw) {
                out.push((fold(raw), true));
            }
            let parts = split_case(raw);
            // A word written as one ("SeatCount") is also found as itself ("seatcount").
            if parts.len() > 1 && !raw.chars().any(|c| c.is_ascii_digit()) {
                out.extend(word(raw).map(|w| (w, false)));
            }
            out.extend(parts.into_iter().filter_map(word).map(|w| (w, false)));
        }
    }
    out
}

/// The terms of a text, in order, with repeats: each word stemmed, ids, emails and numbers as
/// they are.
pub fn terms(text: &str) -> Vec<String> {
    pieces(text)
        .into_iter()
        .map(
            |(w, whole)| {
                if whole || w.chars().all(|c| c.is_ascii_digit()) {
                    w
                } else {
                    stemmer().stem(&w).into_owned()
                }
            },
        )
        .collect()
}

/// The terms a stored value is named by, each once: an id or an email whole (a question naming
/// it holds it whole, and its parts would name every record of its kind), and any other value
/// its words' terms, in order.
pub fn value_terms(value: &str) -> Vec<String> {
    let token = value.trim().trim_matches(|c: char| !c.is_alphanumeric());
    if !token.contains(char::is_whitespace) && kept_whole(token) {
        return vec![fold(token)];
    }
    let mut out: Vec<String> = Vec::new();
    for t in terms(value) {
        if !out.contains(&t) {
            out.push(t);
        }
    }
    out
}

/// The words of a text folded but not stemmed, for telling a typo from another word: a stem can
/// hide the one letter a typo changed.
pub fn words(text: &str) -> Vec<String> {
    pieces(text).into_iter().map(|(w, _)| w).collect()
}

/// Whether two terms differ by one letter at most: one changed, added, dropped, or two side by
/// side swapped. Only terms of five letters or more, so short words never blur together.
pub fn one_letter_apart(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    // Told by the lengths first, without allocating: most pairs differ by more than a letter.
    let (la, lb) = (a.chars().count(), b.chars().count());
    if la.min(lb) < 5 || la.abs_diff(lb) > 1 {
        return false;
    }
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let head = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let (ra, rb) = (&a[head..], &b[head..]);
    match ra.len().cmp(&rb.len()) {
        std::cmp::Ordering::Equal => {
            ra[1..] == rb[1..] || (ra.len() >= 2 && ra[0] == rb[1] && ra[1] == rb[0] && ra[2..] == rb[2..])
        }
        std::cmp::Ordering::Greater => ra[1..] == *rb,
        std::cmp::Ordering::Less => *ra == rb[1..],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn set(text: &str) -> Vec<String> {
        let mut t = terms(text);
        t.sort();
        t.dedup();
        t
    }

    #[test]
    fn words_are_split_where_people_join_them() {
        assert_eq!(set("billing-tier"), set("billing tier"));
        assert_eq!(set("seat_count"), set("seat count"));
        assert!(set("SeatCount").iter().all(|t| set("seat count seatcount").contains(t)));
        assert!(set("SeatCount").contains(&"seat".to_string()));
        let path = set("renewals/Q3");
        for t in ["renew", "q3", "3"] {
            assert!(path.contains(&t.to_string()), "{path:?}");
        }
        assert_eq!(set("HTTPServer"), set("http server httpserver"));
    }

    #[test]
    fn case_accents_and_plurals_fold_into_one_term() {
        assert_eq!(terms("Café"), terms("cafe"));
        assert_eq!(terms("Renewals"), terms("renewal"));
        assert_eq!(terms("invoices"), terms("invoice"));
        assert_eq!(terms("ﬁnance"), terms("finance"), "a ligature is its letters");
    }

    #[test]
    fn ids_and_emails_are_kept_whole_as_well() {
        let t = set("Update L-1004 and mail dana@litware.example");
        assert!(t.contains(&"l-1004".to_string()), "{t:?}");
        assert!(t.contains(&"dana@litware.example".to_string()), "{t:?}");
        assert!(t.contains(&"dana".to_string()) && t.contains(&"1004".to_string()), "{t:?}");
    }

    #[test]
    fn words_that_say_how_something_is_asked_are_no_terms() {
        assert!(terms("What is the current, and which applies?").is_empty());
        assert_eq!(set("Which billing tier applies?"), set("billing tier"));
    }

    #[test]
    fn one_letter_apart_is_a_typo_and_short_words_never_blur() {
        assert!(one_letter_apart("renewal", "renewel"));
        assert!(one_letter_apart("renewal", "renwal"));
        assert!(one_letter_apart("renewal", "reneewal"));
        assert!(one_letter_apart("renewal", "rneewal"));
        assert!(!one_letter_apart("renewal", "rnewel"));
        assert!(!one_letter_apart("cat", "car"), "short words stay apart");
    }

    proptest! {
        /// Whatever the text, a term is never empty, never a stop word, and always folded.
        #[test]
        fn terms_are_folded_and_never_empty(text in "\\PC{0,80}") {
            for t in terms(&text).into_iter().chain(words(&text)) {
                prop_assert!(!t.is_empty());
                prop_assert!(!t.chars().any(char::is_whitespace), "{:?} holds a space", t);
                prop_assert!(!STOP.contains(&t.as_str()));
                prop_assert_eq!(fold(&t), t.clone());
            }
        }

        /// Writing a compound with a hyphen, an underscore, a slash or a space finds the same terms.
        #[test]
        fn a_joiner_never_changes_the_terms(a in "[a-z]{3,9}", b in "[a-z]{3,9}", j in "[-_/ .]") {
            prop_assert_eq!(set(&format!("{a}{j}{b}")), set(&format!("{a} {b}")));
        }

        /// A one-letter typo of a long word is found.
        #[test]
        fn a_changed_letter_is_one_letter_apart(w in "[a-z]{5,12}", i in 0usize..12, c in "[a-z]") {
            let i = i % w.len();
            let typo: String = w.chars().enumerate().map(|(k, x)| if k == i { c.chars().next().unwrap_or(x) } else { x }).collect();
            prop_assert!(one_letter_apart(&w, &typo));
        }
    }
}
