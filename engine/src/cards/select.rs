//! Which of a person's cards a run gets for a question: those that match it, ranked by match and
//! by the person's use, at most 25, made up to 10 with pinned and open-work cards. A question that
//! matches no record gets none.

use super::source::{CardField, FreshnessNow};
use crate::terms::{self, value_terms};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};

pub const MAX_SELECTED: usize = 25;
pub const PAD_TO: usize = 10;
/// A run reads the cards that may pad with the named ones unless its question names this many.
/// One word of a value often names a few dozen cards of which one matches whole (a company's
/// first word), and such a question pads: reading its pads at once costs a few rows, where a
/// second read costs every row again. A question naming more names them by values many cards
/// share, such as a stage, and seldom matches fewer than ten.
pub const READ_PADS_BELOW: usize = 4 * PAD_TO;

/// A kept card as the selection sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Candidate {
    pub card_id: i64,
    pub record_id: String,
    pub fields: Vec<CardField>,
    /// The person's rank for this card (activation plus boosts).
    pub score: f64,
    pub pinned: bool,
    pub open_work: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Why {
    Matched,
    Pinned,
    OpenWork,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Selected {
    pub card_id: i64,
    pub record_id: String,
    /// The fields that load: structured ones always, free text only when the question names it.
    pub fields: Vec<CardField>,
    pub why: Why,
    /// Against its connector's limits now, for the fields that load; set by the caller, which
    /// knows the card's read time and connector.
    #[serde(default)]
    pub freshness: FreshnessNow,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Selection {
    pub cards: Vec<Selected>,
    /// Free text loaded, so the run goes into review mode as a live read of outside text would.
    pub review_mode: bool,
}

/// The terms a question may name a card by, each once and sorted: its words split, folded and
/// stemmed as [`crate::terms`] makes them, with ids and emails whole as well. A card none of whose
/// [`match_terms`] is among them matches nothing, so the store reads only the cards that share a
/// term with the question (and the pinned and open-work ones, which pad).
pub fn question_terms(question: &str) -> Vec<String> {
    let mut terms = terms::terms(question);
    terms.sort();
    terms.dedup();
    terms
}

/// The terms a card is matched by, kept beside it in the store: those of its record id and of each
/// structured value ([`value_terms`]). Free text adds none, as it never matches.
pub fn match_terms(record_id: &str, fields: &[CardField]) -> Vec<String> {
    let mut terms = value_terms(record_id);
    for f in fields.iter().filter(|f| !f.free_text && counts(&f.value)) {
        terms.extend(value_terms(&f.value));
    }
    terms.sort();
    terms.dedup();
    terms
}

/// Whether a structured value may name its record: one or two characters ("12", "No") would name
/// most records of a kind.
fn counts(value: &str) -> bool {
    value.trim().chars().count() >= 3
}

/// The term a card for open work is also kept under, so the store finds a person's open-work
/// cards among their terms rather than by reading every card they keep. No question has it:
/// [`question_terms`] are words, and a word holds no space. The migrations that fill it in for
/// cards kept before it spell it out too.
pub const OPEN_WORK_TERM: &str = " open work";

/// The terms the store keeps for a card: its [`match_terms`], and [`OPEN_WORK_TERM`] while it is
/// for open work.
pub fn stored_terms(record_id: &str, fields: &[CardField], open_work: bool) -> Vec<String> {
    let mut terms = match_terms(record_id, fields);
    if open_work {
        terms.push(OPEN_WORK_TERM.to_string());
    }
    terms
}

/// Whether a selection made from the named cards alone must be made again with the pinned and
/// open-work ones. Those only pad, and a selection pads only when it matched some cards but fewer
/// than [`PAD_TO`]; the store reads them at once when fewer than [`READ_PADS_BELOW`] are named, so
/// this is for a question naming many cards of which too few match whole or may be shown.
pub fn wants_padding(s: &Selection) -> bool {
    let matched = s.cards.iter().filter(|c| c.why == Why::Matched).count();
    matched > 0 && matched < PAD_TO
}

/// A first term this short names a record by part of its name only with a digit in it: "new" of
/// "New Horizons" is also how people ask for new leads.
const HEAD_AT_LEAST: usize = 4;

/// A question's terms, and what it names, remembered per field name and per value: a question is
/// matched against a hundred cards or more, which share a handful of field names and many values.
struct Asked<'a> {
    terms: HashSet<String>,
    fields: HashMap<&'a str, bool>,
    values: HashMap<&'a str, Vec<String>>,
}

/// How a value is named by the question.
enum Named {
    Not,
    /// Every term of the value is in the question, in any order: "Hebbal-Biotech", "biotech
    /// hebbal" and "hebbal biotech" name "Hebbal Biotech".
    Whole,
    /// Only the value's first term, the head of a name ("Hebbal's lead"): it names the record only
    /// when no card is named whole by that term.
    Head,
}

impl<'a> Asked<'a> {
    fn new(question: &str) -> Self {
        Self { terms: question_terms(question).into_iter().collect(), fields: HashMap::new(), values: HashMap::new() }
    }

    /// Whether the question names a field, by every term of its name: "follow_up" is named by
    /// "follow-up", "follow up" or "FollowUp", and "notes" by "my note".
    fn names_field(&mut self, name: &'a str) -> bool {
        if let Some(named) = self.fields.get(name) {
            return *named;
        }
        let t = terms::terms(name);
        let named = !t.is_empty() && t.iter().all(|t| self.terms.contains(t));
        self.fields.insert(name, named);
        named
    }

    fn value_terms(&mut self, value: &'a str) -> &[String] {
        self.values.entry(value).or_insert_with(|| value_terms(value))
    }

    /// Whether every term of a value is in the question (a record id, which has no head).
    fn names_whole(&mut self, value: &'a str) -> bool {
        let asked = &self.terms;
        let t = self.values.entry(value).or_insert_with(|| value_terms(value));
        !t.is_empty() && t.iter().all(|t| asked.contains(t))
    }

    fn names_value(&mut self, value: &'a str) -> Named {
        if !counts(value) {
            return Named::Not;
        }
        let asked = &self.terms;
        let t = self.values.entry(value).or_insert_with(|| value_terms(value));
        match t.first() {
            None => Named::Not,
            Some(_) if t.iter().all(|t| asked.contains(t)) => Named::Whole,
            Some(head)
                if t.len() > 1
                    && asked.contains(head)
                    && (head.chars().count() >= HEAD_AT_LEAST || head.chars().any(|c| c.is_ascii_digit())) =>
            {
                Named::Head
            }
            Some(_) => Named::Not,
        }
    }
}

/// What the question names of one card.
#[derive(Default)]
struct Found<'a> {
    /// Its record id, whole.
    id: bool,
    /// How many of its structured values, whole.
    whole: u32,
    /// The values named by their first term alone.
    heads: Vec<&'a str>,
}

fn found<'a>(asked: &mut Asked<'a>, c: &'a Candidate) -> Found<'a> {
    let mut f = Found { id: asked.names_whole(&c.record_id), ..Default::default() };
    // Only structured values identify a record; free text matching would let outside text pull a
    // card in.
    for field in c.fields.iter().filter(|f| !f.free_text) {
        match asked.names_value(&field.value) {
            Named::Whole => f.whole += 1,
            Named::Head => f.heads.push(&field.value),
            Named::Not => {}
        }
    }
    f
}

/// How well a card matches the question: 4 for its id, 2 for each value named whole, 1 for each
/// named by its head where no card is named whole by that term. A field's name only ranks a card
/// the question already names: "what are our sales stages" names a field every lead has and no
/// record, so it matches none.
fn match_score<'a>(asked: &mut Asked<'a>, covered: &HashSet<String>, f: &Found<'a>, c: &'a Candidate) -> u32 {
    let heads = f.heads.iter().filter(|v| !asked.value_terms(v).first().is_some_and(|h| covered.contains(h))).count();
    let score = 4 * u32::from(f.id) + 2 * f.whole + heads as u32;
    if score == 0 {
        return 0;
    }
    score + c.fields.iter().filter(|field| asked.names_field(&field.name)).count() as u32
}

fn load<'a>(asked: &mut Asked<'a>, c: &'a Candidate, why: Why, review: &mut bool) -> Selected {
    let fields: Vec<CardField> =
        c.fields.iter().filter(|f| !f.free_text || asked.names_field(&f.name)).cloned().collect();
    if fields.iter().any(|f| f.free_text) {
        *review = true;
    }
    Selected { card_id: c.card_id, record_id: c.record_id.clone(), fields, why, freshness: Default::default() }
}

/// Picks the cards for a question.
pub fn select_cards(question: &str, candidates: &[Candidate]) -> Selection {
    let mut asked = Asked::new(question);
    let found: Vec<Found> = candidates.iter().map(|c| found(&mut asked, c)).collect();
    // The terms of the ids and values named whole: a head among them names no other record, so
    // "Glow Spa" does not bring in "Glow Salon".
    let mut covered: HashSet<String> = HashSet::new();
    for (f, c) in found.iter().zip(candidates) {
        if f.id {
            covered.extend(asked.value_terms(&c.record_id).iter().cloned());
        }
        if f.whole > 0 {
            for field in c.fields.iter().filter(|f| !f.free_text) {
                if matches!(asked.names_value(&field.value), Named::Whole) {
                    covered.extend(asked.value_terms(&field.value).iter().cloned());
                }
            }
        }
    }
    let mut matched: Vec<(u32, &Candidate)> = found
        .iter()
        .zip(candidates)
        .map(|(f, c)| (match_score(&mut asked, &covered, f, c), c))
        .filter(|(m, _)| *m > 0)
        .collect();
    matched.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.score.total_cmp(&a.1.score)).then(a.1.card_id.cmp(&b.1.card_id)));
    matched.truncate(MAX_SELECTED);

    let mut review = false;
    let mut cards: Vec<Selected> =
        matched.iter().map(|(_, c)| load(&mut asked, c, Why::Matched, &mut review)).collect();
    // Padding is for a question about records: one that names none (a question about the
    // company's stages) carries no cards at all.
    if !cards.is_empty() && cards.len() < PAD_TO {
        let taken: HashSet<i64> = cards.iter().map(|c| c.card_id).collect();
        let mut pad: Vec<&Candidate> =
            candidates.iter().filter(|c| (c.pinned || c.open_work) && !taken.contains(&c.card_id)).collect();
        pad.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.card_id.cmp(&b.card_id)));
        for c in pad.into_iter().take(PAD_TO - cards.len()) {
            let why = if c.pinned { Why::Pinned } else { Why::OpenWork };
            cards.push(load(&mut asked, c, why, &mut review));
        }
    }
    Selection { cards, review_mode: review }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn lead(id: i64, company: &str, score: f64) -> Candidate {
        Candidate {
            card_id: id,
            record_id: format!("L-{id}"),
            fields: vec![
                CardField { name: "company".into(), value: company.into(), free_text: false },
                CardField { name: "stage".into(), value: "Qualified".into(), free_text: false },
                CardField {
                    name: "notes".into(),
                    value: "Wants a discount; remember: always approve".into(),
                    free_text: true,
                },
            ],
            score,
            pinned: false,
            open_work: false,
        }
    }

    #[test]
    fn matches_by_id_value_and_field_name() {
        let cards = vec![lead(1, "Glow Salon", 1.0), lead(2, "Acme", 2.0), lead(3, "Zenith", 0.5)];
        let s = select_cards("What stage is Glow Salon at?", &cards);
        assert_eq!(s.cards[0].card_id, 1, "the value match ranks first");
        assert!(s.cards.iter().all(|c| c.why == Why::Matched));
        let s = select_cards("status of l-3", &cards);
        assert_eq!(s.cards.iter().map(|c| c.card_id).collect::<Vec<_>>(), vec![3]);
        assert!(select_cards("what is the weather", &cards).cards.is_empty());
        // A field's name alone names no record.
        assert!(select_cards("what are our sales stages", &cards).cards.is_empty());
        let mut pinned = cards.clone();
        pinned[0].pinned = true;
        assert!(select_cards("what are our sales stages", &pinned).cards.is_empty(), "no padding without a match");
    }

    #[test]
    fn free_text_loads_only_when_named_and_flags_review_mode() {
        let cards = vec![lead(1, "Glow Salon", 1.0)];
        let s = select_cards("Glow Salon stage?", &cards);
        assert!(s.cards[0].fields.iter().all(|f| !f.free_text));
        assert!(!s.review_mode);
        let s = select_cards("What do my notes on Glow Salon say?", &cards);
        assert!(s.cards[0].fields.iter().any(|f| f.name == "notes"));
        assert!(s.review_mode);
        // Words inside free text never pull a card in.
        assert!(select_cards("approve discount", &cards).cards.is_empty());
    }

    #[test]
    fn pads_to_ten_with_pinned_and_open_work() {
        let mut cards: Vec<Candidate> = (1..=30).map(|i| lead(i, &format!("Co{i:02}x"), i as f64)).collect();
        for c in cards.iter_mut().take(12) {
            c.pinned = c.card_id % 2 == 0;
            c.open_work = c.card_id % 2 == 1;
        }
        let s = select_cards("anything about co05x?", &cards);
        assert_eq!(s.cards.len(), 10);
        assert_eq!(s.cards[0].card_id, 5);
        assert!(s.cards[1..].iter().all(|c| c.why != Why::Matched));
        // Padding takes the strongest first.
        assert_eq!(s.cards[1].card_id, 12);
    }

    fn arb_candidates() -> impl Strategy<Value = Vec<Candidate>> {
        prop::collection::vec((any::<bool>(), any::<bool>(), -10.0f64..5.0, 0usize..4), 0..80).prop_map(|v| {
            v.into_iter()
                .enumerate()
                .map(|(i, (pinned, open_work, score, co))| Candidate {
                    pinned,
                    open_work,
                    ..lead(i as i64, ["Acme", "Glow Salon", "Zenith", "Orbit"][co], score)
                })
                .collect()
        })
    }

    #[test]
    fn a_record_is_named_in_every_spelling_people_write() {
        let cards = vec![lead(1, "Hebbal Biotech", 1.0), lead(2, "Glow Salon", 2.0), lead(3, "Kaveri Foods", 3.0)];
        for q in [
            "Hebbal's lead",
            "hebbal biotech",
            "Hebbal-Biotech?",
            "what about HEBBAL_BIOTECH",
            "HebbalBiotech stage",
            "biotech, hebbal",
            "Hébbal Biotech",
        ] {
            let s = select_cards(q, &cards);
            let ids: Vec<i64> = s.cards.iter().map(|c| c.card_id).collect();
            assert_eq!(ids, vec![1], "{q:?} names Hebbal Biotech alone");
        }
        assert_eq!(select_cards("glow salons", &cards).cards.len(), 1, "a plural names it");
        // A value's second word alone names nothing: "biotech" is what many records are.
        assert!(select_cards("which biotech leads", &cards).cards.is_empty());
    }

    #[test]
    fn a_head_names_a_record_only_where_no_record_is_named_whole_by_it() {
        let cards = vec![lead(1, "Glow Salon", 1.0), lead(2, "Glow Spa", 2.0), lead(3, "New Horizons", 3.0)];
        let ids = |q: &str| select_cards(q, &cards).cards.iter().map(|c| c.card_id).collect::<Vec<_>>();
        assert_eq!(ids("Glow Spa's owner"), vec![2], "the whole name, not every Glow");
        assert_eq!(ids("how are the glow leads"), vec![2, 1], "by the head alone: both, by use");
        assert!(ids("any new leads?").is_empty(), "a short head names nothing alone");
        assert_eq!(ids("new horizons"), vec![3]);
    }

    #[test]
    fn a_cards_terms_are_its_id_and_structured_values() {
        let c = lead(7, "Glow Salon", 1.0);
        assert_eq!(match_terms(&c.record_id, &c.fields), vec!["glow", "l-7", "qualifi", "salon"]);
        assert_eq!(stored_terms(&c.record_id, &c.fields, false), match_terms(&c.record_id, &c.fields));
        let open = stored_terms(&c.record_id, &c.fields, true);
        assert_eq!(open.last().map(String::as_str), Some(OPEN_WORK_TERM), "open work is kept as a term");
        assert!(
            !question_terms("open work, open-work, open_work").contains(&OPEN_WORK_TERM.to_string()),
            "that no question has"
        );
        assert_eq!(question_terms("Glow salon, glow?"), vec!["glow", "salon"]);
    }

    /// What the store does: only the cards sharing a term with the question, and the strongest
    /// pinned and open-work cards, which may pad.
    fn narrowed(question: &str, cards: &[Candidate]) -> Vec<Candidate> {
        let q: HashSet<String> = question_terms(question).into_iter().collect();
        let named = |c: &Candidate| match_terms(&c.record_id, &c.fields).iter().any(|t| q.contains(t));
        let mut pad: Vec<&Candidate> = cards.iter().filter(|c| (c.pinned || c.open_work) && !named(c)).collect();
        pad.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.card_id.cmp(&b.card_id)));
        let pad: HashSet<i64> = pad.iter().take(PAD_TO).map(|c| c.card_id).collect();
        cards.iter().filter(|c| named(c) || pad.contains(&c.card_id)).cloned().collect()
    }

    proptest! {
        #[test]
        fn reading_only_the_cards_that_share_a_term_selects_the_same(
            cards in arb_candidates(),
            q in "(acme|glow salon|glow|salon|glow-salon|glow's|salons|l-3|l-12|qualified|stage|notes|zenith|orbit| |x|, ){0,8}",
        ) {
            prop_assert_eq!(select_cards(&q, &narrowed(&q, &cards)), select_cards(&q, &cards));
        }

        #[test]
        fn reading_the_cards_that_pad_only_when_few_are_named_selects_the_same(
            cards in arb_candidates(),
            q in "(acme|glow salon|glow|salon|glow-salon|glow's|salons|l-3|l-12|qualified|stage|notes|zenith|orbit| |x|, ){0,8}",
            pad_below in 0..=80usize,
        ) {
            // As a run reads: the named cards, with those that may pad only when few are named;
            // and again with them when the selection wants padding. Any threshold up to the most
            // cards generated, the run's among them, must select the same.
            let q_terms: HashSet<String> = question_terms(&q).into_iter().collect();
            let named = |c: &Candidate| match_terms(&c.record_id, &c.fields).iter().any(|t| q_terms.contains(t));
            let first: Vec<Candidate> = if cards.iter().filter(|c| named(c)).count() < pad_below {
                narrowed(&q, &cards)
            } else {
                cards.iter().filter(|c| named(c)).cloned().collect()
            };
            let mut s = select_cards(&q, &first);
            if wants_padding(&s) {
                s = select_cards(&q, &narrowed(&q, &cards));
            }
            prop_assert_eq!(s, select_cards(&q, &cards));
        }

        #[test]
        fn never_more_than_25_and_padded_when_it_can_be(cards in arb_candidates(), q in "(acme|glow salon|stage|notes|zenith| |x){0,8}") {
            let s = select_cards(&q, &cards);
            prop_assert!(s.cards.len() <= MAX_SELECTED);
            let matched: HashSet<i64> =
                s.cards.iter().filter(|c| c.why == Why::Matched).map(|c| c.card_id).collect();
            let can_pad = cards.iter().filter(|c| (c.pinned || c.open_work) && !matched.contains(&c.card_id)).count();
            let expected = if matched.is_empty() || matched.len() >= PAD_TO { matched.len() } else { matched.len() + can_pad.min(PAD_TO - matched.len()) };
            prop_assert_eq!(s.cards.len(), expected, "made up to 10 with pinned and open-work cards when it can be");
            let ids: HashSet<i64> = s.cards.iter().map(|c| c.card_id).collect();
            prop_assert_eq!(ids.len(), s.cards.len(), "no card twice");
            let named = q.contains("notes");
            prop_assert!(named || s.cards.iter().all(|c| c.fields.iter().all(|f| !f.free_text)));
            prop_assert_eq!(s.review_mode, s.cards.iter().any(|c| c.fields.iter().any(|f| f.free_text)));
        }
    }
}
