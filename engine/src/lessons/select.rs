//! Which lessons a run loads: of those in use and readable by the person, the ones most relevant
//! to the question, at most ten. The block then keeps them within its 2,000 tokens.
//!
//! Relevance is each of the question's terms a lesson holds (see [`crate::terms`]: split, folded
//! and stemmed the way people write), weighed by how rare the term is among the lessons read: a
//! word every lesson shares says little of which one is meant. A word one letter apart from a
//! lesson's (a typo) counts for less than the word itself. A lesson far below the best is left
//! out rather than padding the block.
//!
//! Where an embedding model is configured, what a lesson means is a second signal beside its
//! words (see [`Meaning`]): each relevance is then a weighted sum of the lexical one, as a share
//! of the best lesson's, and how much more alike the lesson's vector is to the question's than
//! the operator's floor of similarity. A lesson without a vector counts its lexical share for
//! both. Without an embedder, or when no lesson read has a vector, the ranking is the lexical
//! one alone, exactly.

use super::Lesson;
use crate::kernel::embed::cosine;
use crate::terms::{one_letter_apart, terms, words};
use std::collections::HashMap;

/// At most this many lessons load into one run.
pub const LESSONS_PER_RUN: usize = 10;

/// A lesson loads only if its relevance is at least this share of the best lesson's.
pub const RELEVANCE_FLOOR: f64 = 0.4;

/// How rare a term is, is judged as if at least this many lessons were read: among a person's
/// three lessons all about Kaveri, "Kaveri" is no common word.
const MIN_LESSONS_FOR_RARITY: f64 = 20.0;

/// How much a word one letter apart counts, against the word itself.
const TYPO_WEIGHT: f64 = 0.7;

/// What a question finds a lesson by: its terms (split, folded and stemmed) and its words
/// (folded, not stemmed, for telling a typo), each once and sorted. Kept with the lesson when it
/// is written, so a run never stems the lessons it reads.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LessonTerms {
    terms: Vec<String>,
    words: Vec<String>,
}

impl LessonTerms {
    pub fn of(text: &str) -> Self {
        let mut terms = terms(text);
        terms.sort();
        terms.dedup();
        let mut words = words(text);
        words.sort();
        words.dedup();
        Self { terms, words }
    }

    /// As the store keeps it: the terms, a line break, the words, each space-separated (neither
    /// holds a space or a line break).
    pub fn to_stored(&self) -> String {
        format!("{}\n{}", self.terms.join(" "), self.words.join(" "))
    }

    /// As the store kept it; `None` for what `to_stored` never writes.
    pub fn from_stored(stored: &str) -> Option<Self> {
        let (terms, words) = stored.split_once('\n')?;
        let split = |s: &str| s.split(' ').filter(|t| !t.is_empty()).map(str::to_string).collect::<Vec<_>>();
        let (terms, words) = (split(terms), split(words));
        let sorted = |v: &[String]| v.windows(2).all(|w| w[0] < w[1]);
        (sorted(&terms) && sorted(&words)).then_some(Self { terms, words })
    }
}

/// How well a lesson holds one asked term: 1 for the term, less for a typo of its word, else 0.
fn holds(lesson: &LessonTerms, term: &str, typos: &[&str]) -> f64 {
    if lesson.terms.binary_search_by(|t| t.as_str().cmp(term)).is_ok() {
        return 1.0;
    }
    if typos.iter().any(|w| lesson.words.binary_search_by(|x| x.as_str().cmp(w)).is_ok()) {
        TYPO_WEIGHT
    } else {
        0.0
    }
}

/// How much what a lesson means counts against its words, where both are known. At most 0.6, so
/// that the lesson whose words fit best always stays above the relevance floor however unlike its
/// vector: meaning adds lessons and reorders them, it never loses the best by words. Measured on
/// the recall set with a stand-in embedder (BENCHMARKS.md, "Recall of lessons").
pub const MEANING_WEIGHT: f64 = 0.5;

/// What a run knows of meaning: the question's vector and the lessons' kept vectors by lesson id,
/// each of unit length and of the configured model, and the similarity below which a lesson is
/// not like the question at all.
#[derive(Debug, Clone, Copy)]
pub struct Meaning<'a> {
    pub question: &'a [f32],
    pub vectors: &'a HashMap<i64, Vec<f32>>,
    pub min_similarity: f32,
    /// How much meaning counts against words: [`MEANING_WEIGHT`], but for the bench's trials.
    pub weight: f64,
}

impl<'a> Meaning<'a> {
    /// Meaning at the product's weight.
    pub fn new(question: &'a [f32], vectors: &'a HashMap<i64, Vec<f32>>, min_similarity: f32) -> Self {
        Self { question, vectors, min_similarity, weight: MEANING_WEIGHT }
    }

    /// How alike the lesson is to the question, 0 (at or below the floor) to 1 (the same);
    /// `None` for a lesson without a vector.
    fn alike(&self, lesson: i64) -> Option<f64> {
        let v = self.vectors.get(&lesson)?;
        let floor = f64::from(self.min_similarity).clamp(-1.0, 0.999);
        let cos = f64::from(cosine(self.question, v));
        Some(((cos - floor) / (1.0 - floor)).clamp(0.0, 1.0))
    }
}

/// The lessons a question loads, most relevant first, then confirmed before unconfirmed, then
/// newest: by their words alone.
pub fn lessons_for<'a>(question: &str, lessons: &'a [Lesson]) -> Vec<&'a Lesson> {
    ranked(question, lessons, None)
}

/// As [`lessons_for`], with what the lessons mean beside their words when it is known.
pub fn lessons_for_meaning<'a>(question: &str, lessons: &'a [Lesson], meaning: Option<Meaning<'_>>) -> Vec<&'a Lesson> {
    ranked(question, lessons, meaning)
}

/// Each lesson's lexical relevance to the question, in order; all 0 when the question names
/// nothing.
fn lexical(question: &str, lessons: &[Lesson]) -> Vec<f64> {
    // Each asked term with the words it came from, so a typo is told by the word, not its stem.
    let mut asked: Vec<(String, Vec<String>)> = Vec::new();
    for w in words(question) {
        for t in terms(&w) {
            match asked.iter_mut().find(|(term, _)| *term == t) {
                Some((_, from)) => from.push(w.clone()),
                None => asked.push((t, vec![w.clone()])),
            }
        }
    }
    if asked.is_empty() {
        return vec![0.0; lessons.len()];
    }
    // Lessons kept before their terms were have them made here.
    let made: Vec<Option<LessonTerms>> =
        lessons.iter().map(|l| l.terms.is_none().then(|| LessonTerms::of(&l.text))).collect();
    let indexed: Vec<&LessonTerms> =
        lessons.iter().zip(&made).map(|(l, m)| l.terms.as_ref().or(m.as_ref()).expect("made when missing")).collect();
    // The lessons' words one letter apart from each asked word, found once over the words the
    // lessons use between them rather than lesson by lesson.
    let mut vocabulary: Vec<&str> = indexed.iter().flat_map(|l| l.words.iter().map(String::as_str)).collect();
    vocabulary.sort_unstable();
    vocabulary.dedup();
    let n = (indexed.len() as f64).max(MIN_LESSONS_FOR_RARITY);
    let mut scores = vec![0.0f64; lessons.len()];
    for (term, from) in &asked {
        let typos: Vec<&str> =
            vocabulary.iter().copied().filter(|v| from.iter().any(|a| one_letter_apart(a, v))).collect();
        let held: Vec<f64> = indexed.iter().map(|l| holds(l, term, &typos)).collect();
        let df = held.iter().filter(|h| **h > 0.0).count() as f64;
        if df == 0.0 {
            continue;
        }
        // BM25's inverse document frequency: never below zero, lower the more lessons hold it.
        let idf = ((n - df + 0.5) / (df + 0.5) + 1.0).ln();
        for (s, h) in scores.iter_mut().zip(held) {
            *s += idf * h;
        }
    }
    scores
}

fn ranked<'a>(question: &str, lessons: &'a [Lesson], meaning: Option<Meaning<'_>>) -> Vec<&'a Lesson> {
    let mut scores = lexical(question, lessons);
    // Meaning counts only where some lesson read has a vector; else the words alone, as they are.
    if let Some(m) = meaning.filter(|m| lessons.iter().any(|l| m.vectors.contains_key(&l.id))) {
        let best = scores.iter().copied().fold(0.0, f64::max);
        for (s, l) in scores.iter_mut().zip(lessons) {
            let words = if best > 0.0 { *s / best } else { 0.0 };
            *s = match m.alike(l.id) {
                Some(alike) => (1.0 - m.weight) * words + m.weight * alike,
                None => words,
            };
        }
    }
    let best = scores.iter().copied().fold(0.0, f64::max);
    if best <= 0.0 {
        return Vec::new();
    }
    let mut scored: Vec<(f64, &Lesson)> =
        scores.into_iter().zip(lessons).filter(|(s, _)| *s > 0.0 && *s >= best * RELEVANCE_FLOOR).collect();
    scored.sort_by(|a, b| {
        b.0.total_cmp(&a.0)
            .then(b.1.confirmed.cmp(&a.1.confirmed))
            .then(b.1.valid_from.cmp(&a.1.valid_from))
            .then(b.1.id.cmp(&a.1.id))
    });
    scored.into_iter().take(LESSONS_PER_RUN).map(|(_, l)| l).collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::kernel::DataLabel;
    use crate::lessons::{LessonScope, LessonState, WrittenBy};
    use crate::org::PersonId;
    use chrono::{DateTime, Duration, Utc};

    pub(crate) fn lesson(id: i64, text: &str, state: LessonState, confirmed: bool, at: DateTime<Utc>) -> Lesson {
        Lesson {
            id,
            person: PersonId(1),
            scope: LessonScope::Personal,
            text: text.into(),
            evidence: vec![],
            label: DataLabel::Internal,
            checked_at: None,
            source_version: None,
            valid_from: at,
            valid_to: None,
            claim: None,
            state,
            state_at: at,
            state_reason: None,
            confirmed,
            supersedes: None,
            written_by: WrittenBy::Job,
            created_at: at,
            terms: None,
        }
    }

    #[test]
    fn a_lesson_loads_when_the_question_shares_a_word_with_it() {
        let t: DateTime<Utc> = "2026-11-01T09:00:00Z".parse().unwrap();
        let lessons = [
            lesson(2, "Dana Brooks at Litware reads mail at dana@litware.example", LessonState::Accepted, true, t),
            lesson(1, "Kaveri Foods' CFO prefers calls before 10", LessonState::Accepted, false, t),
        ];
        let ids = |q: &str| lessons_for(q, &lessons).iter().map(|l| l.id).collect::<Vec<_>>();
        assert_eq!(ids("email Dana that the proposal is ready"), [2]);
        assert_eq!(ids("when should I call Kaveri?"), [1]);
        assert_eq!(ids("what is at stake"), Vec::<i64>::new(), "two-letter words name nothing");
        assert_eq!(ids("what are our sales stages"), Vec::<i64>::new());
        let paid = [lesson(3, "Kaveri invoices are paid in 45 days", LessonState::Accepted, true, t)];
        assert!(
            lessons_for("what are our sales stages", &paid).is_empty(),
            "words like \u{201c}are\u{201d} name nothing"
        );
        assert_eq!(lessons_for("who pays the invoice?", &paid).len(), 1, "a plural is its singular");
    }

    #[test]
    fn more_shared_words_first_then_confirmed_then_newest_and_ten_at_most() {
        let t: DateTime<Utc> = "2026-11-01T09:00:00Z".parse().unwrap();
        let mut lessons = vec![
            lesson(1, "Kaveri Foods pays late", LessonState::Accepted, false, t),
            lesson(2, "Kaveri Foods renewal is in March", LessonState::Accepted, false, t + Duration::days(1)),
            lesson(3, "Kaveri renewal talks go through procurement", LessonState::Accepted, true, t),
        ];
        let ids = |q: &str, l: &[Lesson]| lessons_for(q, l).iter().map(|l| l.id).collect::<Vec<_>>();
        assert_eq!(ids("Kaveri renewal", &lessons), [3, 2, 1]);
        for i in 10..30 {
            lessons.push(lesson(i, "Kaveri again", LessonState::Accepted, false, t));
        }
        assert_eq!(ids("Kaveri", &lessons).len(), LESSONS_PER_RUN);
    }

    #[test]
    fn a_lesson_is_found_however_its_key_is_written() {
        let t: DateTime<Utc> = "2026-11-01T09:00:00Z".parse().unwrap();
        let lessons = [
            lesson(1, "The billing-tier for Acme is Enterprise", LessonState::Accepted, true, t),
            lesson(2, "The seat_count for Acme is 240", LessonState::Accepted, true, t),
            lesson(3, "Acme's SupportPlan is Premium", LessonState::Accepted, true, t),
            lesson(4, "Müller GmbH renews in March", LessonState::Accepted, true, t),
        ];
        let ids = |q: &str| lessons_for(q, &lessons).iter().map(|l| l.id).collect::<Vec<_>>();
        assert_eq!(ids("Which billing tier applies?"), [1]);
        assert_eq!(ids("What seat count is recorded?"), [2]);
        assert_eq!(ids("what support plan does Acme have"), [3], "what names Acme alone is far below the plan");
        assert_eq!(ids("when do the Muller renewals happen"), [4], "accents and plurals fold");
        assert_eq!(ids("which billing teir"), [1], "a one-letter typo still finds it");
    }

    #[test]
    fn a_lesson_sharing_only_a_common_word_never_outranks_one_that_names_the_subject() {
        let t: DateTime<Utc> = "2026-11-01T09:00:00Z".parse().unwrap();
        let mut lessons: Vec<Lesson> = (1..=8)
            .map(|i| {
                lesson(i, &format!("Customer {i} prefers email"), LessonState::Accepted, true, t + Duration::days(i))
            })
            .collect();
        lessons.push(lesson(20, "Kaveri Foods' customer escalations go to Priya", LessonState::Accepted, false, t));
        let found = lessons_for("who handles Kaveri customer escalations?", &lessons);
        assert_eq!(found[0].id, 20, "the rare words decide, though it is older and unconfirmed");
        assert!(
            found.len() == 1,
            "lessons far below the best are left out: {:?}",
            found.iter().map(|l| l.id).collect::<Vec<_>>()
        );
    }

    #[test]
    fn kept_terms_read_back_as_written_and_anything_else_is_made_again() {
        let kept = LessonTerms::of("The seat-count for Hebbal Biotech is 40; billing_tier Gold (dana@litware.example)");
        assert_eq!(LessonTerms::from_stored(&kept.to_stored()), Some(kept.clone()));
        assert!(kept.terms.contains(&"dana@litware.example".to_string()), "{kept:?}");
        assert_eq!(LessonTerms::from_stored(""), None);
        assert_eq!(LessonTerms::from_stored("b a\nc"), None, "unsorted terms are no kept terms");
        assert_eq!(LessonTerms::from_stored("\n"), Some(LessonTerms::default()));
    }

    #[test]
    fn meaning_orders_lessons_alike_in_words_and_a_lesson_without_a_vector_keeps_its_lexical_share() {
        let t: DateTime<Utc> = "2026-11-01T09:00:00Z".parse().unwrap();
        let lessons = [
            lesson(1, "Kaveri Foods renewal is in March", LessonState::Accepted, false, t),
            lesson(2, "Kaveri Foods renewal talks go through procurement", LessonState::Accepted, false, t),
            lesson(3, "Kaveri Foods renewal needs the CFO's signature", LessonState::Accepted, false, t),
        ];
        let q = "Kaveri Foods renewal";
        let lexical: Vec<i64> = lessons_for(q, &lessons).iter().map(|l| l.id).collect();
        assert_eq!(lexical, [3, 2, 1], "equal in words: newest first, then by id");
        let question = [1.0f32, 0.0];
        let mut vectors = HashMap::new();
        vectors.insert(1, vec![1.0f32, 0.0]);
        vectors.insert(2, vec![0.0f32, 1.0]);
        let m = Meaning::new(&question, &vectors, 0.2);
        let ids: Vec<i64> = lessons_for_meaning(q, &lessons, Some(m)).iter().map(|l| l.id).collect();
        // 1 is alike in meaning (1.0); 3 has no vector, so counts its words for both (1.0); 2 is
        // unlike (0.5, words alone halved) and still loads, above the floor.
        assert_eq!(ids, [3, 1, 2]);
        let none = HashMap::new();
        let m = Meaning::new(&question, &none, 0.2);
        let ids: Vec<i64> = lessons_for_meaning(q, &lessons, Some(m)).iter().map(|l| l.id).collect();
        assert_eq!(ids, lexical, "no lesson with a vector: the words alone");
    }

    #[test]
    fn meaning_below_the_floor_of_similarity_loads_nothing_the_words_do_not() {
        let t: DateTime<Utc> = "2026-11-01T09:00:00Z".parse().unwrap();
        let lessons = [
            lesson(1, "Litware's office moved", LessonState::Accepted, true, t),
            lesson(2, "Priya prefers calls", LessonState::Accepted, true, t),
        ];
        let question = [1.0f32, 0.0];
        let mut vectors = HashMap::new();
        vectors.insert(1, vec![0.6f32, 0.8]);
        vectors.insert(2, vec![0.0f32, 1.0]);
        let m = Meaning::new(&question, &vectors, 0.7);
        assert!(lessons_for_meaning("what is at stake", &lessons, Some(m)).is_empty(), "0.6 is below 0.7");
        let m = Meaning::new(&question, &vectors, 0.5);
        let ids: Vec<i64> = lessons_for_meaning("what is at stake", &lessons, Some(m)).iter().map(|l| l.id).collect();
        assert_eq!(ids, [1], "above the floor, meaning alone loads it; the unlike one stays out");
    }

    proptest::proptest! {
        /// Without a lesson's vector among those read, meaning changes nothing: the words alone
        /// rank, exactly as without an embedder.
        #[test]
        fn meaning_without_vectors_is_the_lexical_ranking(
            texts in proptest::collection::vec("\\PC{0,60}", 1..12),
            question in "\\PC{0,40}",
        ) {
            let t: DateTime<Utc> = "2026-11-01T09:00:00Z".parse().unwrap();
            let ls: Vec<Lesson> = texts
                .iter()
                .enumerate()
                .map(|(i, text)| lesson(i as i64, text, LessonState::Accepted, i % 2 == 0, t))
                .collect();
            let mut other = HashMap::new();
            other.insert(10_000, vec![1.0f32]);
            let q = [1.0f32];
            let m = Meaning::new(&q, &other, 0.0);
            let ids = |found: Vec<&Lesson>| found.into_iter().map(|l| l.id).collect::<Vec<_>>();
            proptest::prop_assert_eq!(ids(lessons_for_meaning(&question, &ls, Some(m))), ids(lessons_for(&question, &ls)));
        }

        /// However unlike their vectors, the lesson that fits the question's words best still
        /// loads with meaning beside words.
        #[test]
        fn meaning_never_loses_the_best_lesson_by_words(
            texts in proptest::collection::vec("[a-e ]{0,30}", 1..10),
            question in "[a-e ]{0,20}",
            angles in proptest::collection::vec(0.0f32..std::f32::consts::TAU, 10),
        ) {
            let t: DateTime<Utc> = "2026-11-01T09:00:00Z".parse().unwrap();
            let ls: Vec<Lesson> = texts
                .iter()
                .enumerate()
                .map(|(i, text)| lesson(i as i64, text, LessonState::Accepted, true, t))
                .collect();
            let vectors: HashMap<i64, Vec<f32>> =
                ls.iter().map(|l| (l.id, vec![angles[l.id as usize].cos(), angles[l.id as usize].sin()])).collect();
            let q = [1.0f32, 0.0];
            let hybrid: Vec<i64> =
                lessons_for_meaning(&question, &ls, Some(Meaning::new(&q, &vectors, 0.2))).iter().map(|l| l.id).collect();
            if let Some(best) = lessons_for(&question, &ls).first() {
                proptest::prop_assert!(hybrid.contains(&best.id), "{} missing from {:?}", best.id, hybrid);
            }
        }

        /// Whatever a lesson says, its kept terms read back the same, and a run finds the same
        /// lessons by kept terms as by terms it makes itself.
        #[test]
        fn kept_terms_find_what_made_terms_find(
            texts in proptest::collection::vec("\\PC{0,60}", 1..12),
            question in "\\PC{0,40}",
        ) {
            let t: DateTime<Utc> = "2026-11-01T09:00:00Z".parse().unwrap();
            let made: Vec<Lesson> = texts
                .iter()
                .enumerate()
                .map(|(i, text)| lesson(i as i64, text, LessonState::Accepted, i % 2 == 0, t))
                .collect();
            let kept: Vec<Lesson> = made
                .iter()
                .cloned()
                .map(|mut l| {
                    let stored = LessonTerms::of(&l.text).to_stored();
                    l.terms = Some(LessonTerms::from_stored(&stored).expect("reads back"));
                    l
                })
                .collect();
            let ids = |ls: Vec<&Lesson>| ls.into_iter().map(|l| l.id).collect::<Vec<_>>();
            proptest::prop_assert_eq!(ids(lessons_for(&question, &made)), ids(lessons_for(&question, &kept)));
        }
    }
}
