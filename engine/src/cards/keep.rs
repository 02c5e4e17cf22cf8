//! Keeping one record for a person, decided as a plan: the store finds what it needs inside one
//! transaction, asks [`plan_keep`] what to do, and carries it out before it commits. So two reads
//! of one record racing never make two uses, and keeps racing at the cap never go over it.

use super::activation::{admit, rank_score, Admission, Use, UseSummary, CARD_CAP};
use super::card::{Card, CardUse, NewCard};
use crate::org::PersonId;
use chrono::{DateTime, Utc};

/// One record to keep for a person: what the read found, and how much the use weighs.
#[derive(Debug, Clone, PartialEq)]
pub struct Keep {
    pub person: PersonId,
    pub card: NewCard,
    /// A read weighs by how many records it returned; pinning back weighs 1.
    pub weight: f64,
    /// The person pins back a record they forgot: kept pinned, whatever the forget says.
    pub pin_back: bool,
    pub at: DateTime<Utc>,
}

/// What the store found for the record, inside the keep's transaction.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct KeepFound {
    /// The person's use of the card, if they keep it already.
    pub existing: Option<CardUse>,
    /// Until when the person keeps the record out, if they forgot it. Read only for a new use.
    pub forgotten_until: Option<DateTime<Utc>>,
    /// Every card the person keeps, with their use of it. Read only for a new use.
    pub kept: Vec<(Card, CardUse)>,
}

/// What to do with the record.
#[derive(Debug, Clone, PartialEq)]
pub enum KeepPlan {
    /// Save this use; first remove the person's use of `evict` (the weakest card) when the cap is
    /// full.
    Save { card_use: CardUse, evict: Option<i64> },
    /// The person forgot the record and it is still kept out.
    KeptOut,
    /// The cap is full and the record does not outrank the weakest card kept.
    Outranked,
}

/// The reason audited when a new card takes the weakest one's place.
pub const EVICTED: &str = "outranked by a new card";

/// Decides how the use of `card` (as stored after the read) is recorded. A new card gets in only
/// when it outranks the weakest kept one; pinned cards sit above the cap's contest and stay.
pub fn plan_keep(keep: &Keep, card: &Card, found: KeepFound) -> KeepPlan {
    let is_new = found.existing.is_none();
    if is_new && !keep.pin_back && found.forgotten_until.is_some_and(|until| until > keep.at) {
        return KeepPlan::KeptOut;
    }
    let mut u = found.existing.unwrap_or(CardUse {
        person: keep.person,
        card: card.id,
        summary: UseSummary::default(),
        pinned: false,
        last_use: keep.at,
    });
    u.summary.record(Use { at: keep.at, weight: keep.weight });
    u.last_use = keep.at;
    u.pinned |= keep.pin_back;
    let mut evict = None;
    if is_new && !u.pinned {
        let new_score = rank_score(u.summary.activation(keep.at), u.pinned, card.open_work);
        let others: Vec<&(Card, CardUse)> = found.kept.iter().filter(|(c, u)| !u.pinned && c.id != card.id).collect();
        let pinned = found.kept.iter().filter(|(_, u)| u.pinned).count();
        let room = CARD_CAP.saturating_sub(pinned);
        let scores: Vec<f64> =
            others.iter().map(|(c, u)| rank_score(u.summary.activation(keep.at), u.pinned, c.open_work)).collect();
        match admit(&scores, room, new_score) {
            Admission::Admit => {}
            Admission::AdmitEvicting(i) => evict = Some(others[i].0.id),
            Admission::Refuse => return KeepPlan::Outranked,
        }
    }
    KeepPlan::Save { card_use: u, evict }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cards::access::{DataLabel, KeyKind};
    use chrono::Duration;

    fn at(mins: i64) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339("2026-11-30T08:00:00Z").unwrap().to_utc() + Duration::minutes(mins)
    }

    fn card(id: i64) -> Card {
        Card {
            id,
            connector: 1,
            tool: "get_lead".into(),
            kind: "lead".into(),
            record_id: format!("L-{id}"),
            version: None,
            fields: vec![],
            read_with: KeyKind::Company,
            read_as: None,
            label_when_read: DataLabel::Internal,
            open_work: false,
            read_at: at(0),
            not_returned: vec![],
        }
    }

    fn used(card: i64, uses: &[(i64, f64)], pinned: bool) -> CardUse {
        let mut summary = UseSummary::default();
        for &(m, w) in uses {
            summary.record(Use { at: at(m), weight: w });
        }
        CardUse { person: PersonId(7), card, summary, pinned, last_use: at(uses.last().map(|u| u.0).unwrap_or(0)) }
    }

    fn keep(weight: f64, pin_back: bool, mins: i64) -> Keep {
        Keep {
            person: PersonId(7),
            card: NewCard {
                connector: 1,
                tool: "get_lead".into(),
                kind: "lead".into(),
                record_id: "L-1000".into(),
                version: None,
                fields: vec![],
                missing: vec![],
                read_with: KeyKind::Company,
                read_as: None,
                label_when_read: DataLabel::Internal,
                open_when: None,
                read_at: at(mins),
            },
            weight,
            pin_back,
            at: at(mins),
        }
    }

    /// The cap filled with cards used once at `mins`, the first `pinned` of them pinned.
    fn full(mins: i64, pinned: usize) -> Vec<(Card, CardUse)> {
        (1..=CARD_CAP as i64).map(|id| (card(id), used(id, &[(mins, 1.0)], (id as usize) <= pinned))).collect()
    }

    #[test]
    fn a_new_record_with_room_is_kept_with_one_use() {
        let plan = plan_keep(&keep(0.5, false, 10), &card(1000), KeepFound::default());
        let KeepPlan::Save { card_use, evict } = plan else { panic!("not kept: {plan:?}") };
        assert_eq!((card_use.person, card_use.card, card_use.pinned, evict), (PersonId(7), 1000, false, None));
        assert_eq!(card_use.last_use, at(10));
        assert_eq!(card_use.summary, used(1000, &[(10, 0.5)], false).summary);
    }

    #[test]
    fn a_kept_record_records_one_more_use_and_never_contests_the_cap() {
        let existing = used(1000, &[(0, 1.0)], false);
        let found = KeepFound { existing: Some(existing), forgotten_until: Some(at(100)), kept: full(0, 0) };
        let KeepPlan::Save { card_use, evict } = plan_keep(&keep(1.0, false, 10), &card(1000), found) else {
            panic!("a kept card is always kept")
        };
        assert_eq!(evict, None);
        assert_eq!(card_use.summary, used(1000, &[(0, 1.0), (10, 1.0)], false).summary);
    }

    #[test]
    fn a_forgotten_record_is_kept_out_until_its_days_are_over_unless_pinned_back() {
        let found = |until| KeepFound { forgotten_until: Some(until), ..Default::default() };
        assert_eq!(plan_keep(&keep(1.0, false, 10), &card(1000), found(at(11))), KeepPlan::KeptOut);
        assert!(matches!(plan_keep(&keep(1.0, false, 10), &card(1000), found(at(10))), KeepPlan::Save { .. }));
        let plan = plan_keep(&keep(1.0, true, 10), &card(1000), found(at(11)));
        assert!(matches!(plan, KeepPlan::Save { card_use: CardUse { pinned: true, .. }, evict: None }));
    }

    #[test]
    fn at_the_cap_a_new_card_evicts_the_weakest_only_when_it_outranks_it() {
        // Every kept card was used long ago, but card 5 longest ago: it is the weakest.
        let mut kept = full(-600, 0);
        kept[4].1 = used(5, &[(-6000, 1.0)], false);
        let found = KeepFound { kept: kept.clone(), ..Default::default() };
        assert!(matches!(plan_keep(&keep(1.0, false, 0), &card(1000), found), KeepPlan::Save { evict: Some(5), .. }));
        // A light use now does not outrank cards used just now.
        let found = KeepFound { kept: full(0, 0), ..Default::default() };
        assert_eq!(plan_keep(&keep(0.01, false, 0), &card(1000), found), KeepPlan::Outranked);
    }

    #[test]
    fn pinned_cards_take_room_but_are_never_evicted() {
        // All 300 pinned: no room, and nothing to evict.
        let found = KeepFound { kept: full(-6000, CARD_CAP), ..Default::default() };
        assert_eq!(plan_keep(&keep(1.0, false, 0), &card(1000), found), KeepPlan::Outranked);
        // Pinning back sits above the contest: kept even then.
        let found = KeepFound { kept: full(-6000, CARD_CAP), ..Default::default() };
        assert!(matches!(plan_keep(&keep(1.0, true, 0), &card(1000), found), KeepPlan::Save { evict: None, .. }));
        // 299 pinned and one unpinned: the unpinned one is the only one that can go.
        let found = KeepFound { kept: full(-6000, CARD_CAP - 1), ..Default::default() };
        assert!(matches!(plan_keep(&keep(1.0, false, 0), &card(1000), found), KeepPlan::Save { evict: Some(300), .. }));
    }
}
