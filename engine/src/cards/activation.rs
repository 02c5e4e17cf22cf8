//! ACT-R base-level activation, `B = ln Σ w_j · t_j^(-d)` with decay d = 0.5, over the ages of one
//! person's uses of one card, and the optimized-learning hybrid that keeps only a count, the first
//! use and the last few uses (Petrov, 2006).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

pub const DECAY: f64 = 0.5;
/// A use is never younger than this, so a read this very second is not infinitely strong.
pub const MIN_AGE_SECS: f64 = 60.0;
/// How many recent uses the summary keeps exactly.
pub const RECENT_KEPT: usize = 8;
/// The most cards one person keeps.
pub const CARD_CAP: usize = 300;
/// Added to the score of a card the person pinned.
pub const PIN_BOOST: f64 = 3.0;
/// Added to the score of a card for open work (an open deal, an escalated ticket).
pub const OPEN_WORK_BOOST: f64 = 1.0;

/// One use of a card: when, and how much it weighs.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Use {
    #[serde(deserialize_with = "stored_time::one")]
    pub at: DateTime<Utc>,
    pub weight: f64,
}

/// A read that returned `records` records weighs 1/records each, so a report over 500 leads adds
/// 1/500 of a single read to each of them.
pub fn use_weight(records: usize) -> f64 {
    1.0 / records.max(1) as f64
}

fn age_secs(at: DateTime<Utc>, now: DateTime<Utc>) -> f64 {
    ((now - at).num_milliseconds() as f64 / 1000.0).max(MIN_AGE_SECS)
}

/// The exact activation over every use: the reference the summary is measured against.
pub fn exact_activation(uses: &[Use], now: DateTime<Utc>) -> f64 {
    let sum: f64 = uses.iter().map(|u| u.weight * age_secs(u.at, now).powf(-DECAY)).sum();
    if sum > 0.0 {
        sum.ln()
    } else {
        f64::NEG_INFINITY
    }
}

/// What is stored per person and card: enough for a close activation without the history.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct UseSummary {
    /// The total weight of every use, the recent ones included.
    pub weight: f64,
    #[serde(default, deserialize_with = "stored_time::optional")]
    pub first_use: Option<DateTime<Utc>>,
    /// Recent uses kept exactly, newest first: the most recent, except that a light use never
    /// displaces a heavier one.
    pub recent: Vec<Use>,
    /// The newest of the uses that are only approximated.
    #[serde(default, deserialize_with = "stored_time::optional")]
    pub newest_older: Option<DateTime<Utc>>,
}

/// A summary's times as they are stored: RFC 3339 text. A run decodes the summaries of every card
/// it may load, up to ten times each, and chrono's own `Deserialize` goes through its general
/// format parser, which was most of that decoding; its RFC 3339 parser reads the same text about
/// forty times faster. Anything else chrono's `Deserialize` reads is still read, as before.
mod stored_time {
    use chrono::{DateTime, FixedOffset, Utc};
    use serde::de::{Deserializer, Error, Visitor};

    struct Time;

    impl Visitor<'_> for Time {
        type Value = DateTime<Utc>;

        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("an RFC 3339 time")
        }

        fn visit_str<E: Error>(self, s: &str) -> Result<Self::Value, E> {
            DateTime::parse_from_rfc3339(s)
                .or_else(|_| s.parse::<DateTime<FixedOffset>>())
                .map(|t| t.with_timezone(&Utc))
                .map_err(E::custom)
        }
    }

    struct Optional;

    impl<'de> Visitor<'de> for Optional {
        type Value = Option<DateTime<Utc>>;

        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("an RFC 3339 time or null")
        }

        fn visit_none<E: Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }

        fn visit_unit<E: Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }

        fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            one(d).map(Some)
        }
    }

    pub fn one<'de, D: Deserializer<'de>>(d: D) -> Result<DateTime<Utc>, D::Error> {
        d.deserialize_str(Time)
    }

    pub fn optional<'de, D: Deserializer<'de>>(d: D) -> Result<Option<DateTime<Utc>>, D::Error> {
        d.deserialize_option(Optional)
    }
}

impl UseSummary {
    pub fn record(&mut self, u: Use) {
        self.weight += u.weight;
        if self.first_use.is_none_or(|f| u.at < f) {
            self.first_use = Some(u.at);
        }
        if self.recent.len() >= RECENT_KEPT {
            // The new use replaces the oldest kept use that weighs no more than it. A light (bulk)
            // read never pushes a heavier use into the approximation, which is what keeps "a new
            // use never lowers B" true; a use lighter than every kept one is approximated at once.
            match self.recent.iter().rposition(|r| r.weight <= u.weight) {
                Some(i) => {
                    let out = self.recent.remove(i);
                    self.note_older(out.at);
                }
                None => {
                    self.note_older(u.at);
                    return;
                }
            }
        }
        let at = self.recent.iter().position(|r| r.at < u.at).unwrap_or(self.recent.len());
        self.recent.insert(at, u);
    }

    fn note_older(&mut self, at: DateTime<Utc>) {
        self.newest_older = Some(self.newest_older.map_or(at, |n| n.max(at)));
    }

    /// The hybrid: kept uses exactly, the others as if spread evenly between the first use and
    /// the newest of them.
    pub fn activation(&self, now: DateTime<Utc>) -> f64 {
        let exact: f64 = self.recent.iter().map(|u| u.weight * age_secs(u.at, now).powf(-DECAY)).sum();
        let recent_weight: f64 = self.recent.iter().map(|u| u.weight).sum();
        let older = (self.weight - recent_weight).max(0.0);
        let approx = match (self.first_use, self.newest_older) {
            (Some(first), Some(newest_older)) if older > 1e-12 => {
                let tn = age_secs(first, now);
                let tk = age_secs(newest_older, now);
                if tn - tk > 1e-9 {
                    older * (tn.powf(1.0 - DECAY) - tk.powf(1.0 - DECAY)) / ((1.0 - DECAY) * (tn - tk))
                } else {
                    older * tn.powf(-DECAY)
                }
            }
            _ => 0.0,
        };
        let sum = exact + approx;
        if sum > 0.0 {
            sum.ln()
        } else {
            f64::NEG_INFINITY
        }
    }
}

/// A card's rank for a person: its activation, plus the boosts for pins and open work.
pub fn rank_score(activation: f64, pinned: bool, open_work: bool) -> f64 {
    activation + if pinned { PIN_BOOST } else { 0.0 } + if open_work { OPEN_WORK_BOOST } else { 0.0 }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admission {
    Admit,
    /// Admit, and let go of the kept card at this index (the weakest).
    AdmitEvicting(usize),
    Refuse,
}

/// A new card gets in while there is room, or when it outranks the weakest kept card.
pub fn admit(kept_scores: &[f64], cap: usize, new_score: f64) -> Admission {
    if kept_scores.len() < cap {
        return Admission::Admit;
    }
    let weakest = kept_scores.iter().enumerate().min_by(|a, b| a.1.total_cmp(b.1)).map(|(i, s)| (i, *s));
    match weakest {
        Some((i, s)) if new_score > s => Admission::AdmitEvicting(i),
        _ => Admission::Refuse,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{Duration, TimeZone};
    use proptest::prelude::*;

    fn t0() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, 1, 9, 0, 0).unwrap()
    }

    fn summary(uses: &[Use]) -> UseSummary {
        let mut s = UseSummary::default();
        for u in uses {
            s.record(*u);
        }
        s
    }

    /// One use every `every` hours for `days` days, the last one `last_ago` hours before now.
    fn history(every_hours: i64, days: i64, now: DateTime<Utc>) -> Vec<Use> {
        let start = now - Duration::days(days);
        (0..days * 24 / every_hours)
            .map(|i| Use { at: start + Duration::hours(i * every_hours), weight: 1.0 })
            .collect()
    }

    #[test]
    fn the_hybrid_is_close_to_the_exact_sum() {
        let now = t0() + Duration::days(90);
        for (every, days) in [(24, 60), (4, 30), (1, 7), (72, 90), (24, 3)] {
            let uses = history(every, days, now);
            let exact = exact_activation(&uses, now);
            let approx = summary(&uses).activation(now);
            assert!((exact - approx).abs() < 0.1, "every {every} h for {days} d: exact {exact}, hybrid {approx}");
        }
        // With no more uses than it keeps, the summary is exact.
        let few = history(24, 5, now);
        assert!((exact_activation(&few, now) - summary(&few).activation(now)).abs() < 1e-12);
    }

    #[test]
    fn a_stored_summary_reads_back_as_chrono_itself_reads_it() {
        let stored = r#"{"weight":40.0,"first_use":"2026-11-23T13:59:58.591475224Z","recent":[{"at":"2026-12-03T06:59:58.591475224Z","weight":1.0},{"at":"2026-12-03T12:29:58+05:30","weight":0.5}],"newest_older":null}"#;
        let read: UseSummary = serde_json::from_str(stored).unwrap();
        let chrono_reads = |s: &str| s.parse::<DateTime<Utc>>().unwrap();
        assert_eq!(read.first_use, Some(chrono_reads("2026-11-23T13:59:58.591475224Z")));
        assert_eq!(read.recent[0].at, chrono_reads("2026-12-03T06:59:58.591475224Z"));
        assert_eq!(
            read.recent[1].at,
            chrono_reads("2026-12-03T06:59:58Z"),
            "an offset is kept as the instant it names"
        );
        assert_eq!(read.newest_older, None);
        // As written, and with a missing time, and through a reader that does not borrow.
        let mut written = summary(&history(5, 40, t0() + Duration::days(40)));
        assert_eq!(serde_json::from_str::<UseSummary>(&serde_json::to_string(&written).unwrap()).unwrap(), written);
        assert_eq!(serde_json::from_value::<UseSummary>(serde_json::to_value(&written).unwrap()).unwrap(), written);
        written.first_use = None;
        let mut text = serde_json::to_value(&written).unwrap();
        text.as_object_mut().unwrap().remove("first_use");
        assert_eq!(serde_json::from_value::<UseSummary>(text).unwrap(), written);
        assert!(
            serde_json::from_str::<UseSummary>(r#"{"weight":1.0,"recent":[{"at":"yesterday","weight":1.0}]}"#).is_err()
        );
    }

    #[test]
    fn a_bulk_read_never_evicts_a_daily_card() {
        let now = t0() + Duration::days(30);
        // Used every working day for a month, last used yesterday morning.
        let daily: Vec<Use> = (1..=30)
            .filter(|d| d % 7 != 0 && d % 7 != 6)
            .map(|d| Use { at: now - Duration::days(d) - Duration::hours(8), weight: 1.0 })
            .collect();
        let daily_score = rank_score(summary(&daily).activation(now), false, false);
        // A report over 500 leads, read this very moment.
        let bulk = rank_score(summary(&[Use { at: now, weight: use_weight(500) }]).activation(now), false, false);
        assert!(bulk < daily_score, "bulk {bulk} must rank below daily {daily_score}");
        let kept = vec![daily_score; CARD_CAP];
        assert_eq!(admit(&kept, CARD_CAP, bulk), Admission::Refuse);
        // A single read of a new record now does outrank a card last used months ago.
        let stale = summary(&[Use { at: now - Duration::days(120), weight: 1.0 }]).activation(now);
        let fresh = summary(&[Use { at: now, weight: 1.0 }]).activation(now);
        assert!(fresh > stale);
    }

    #[test]
    fn pins_and_open_work_lift_a_card() {
        assert!(rank_score(-5.0, true, false) > rank_score(-5.0, false, true));
        assert!(rank_score(-5.0, false, true) > rank_score(-5.0, false, false));
        assert_eq!(use_weight(0), 1.0);
        assert_eq!(use_weight(500), 0.002);
    }

    #[test]
    fn admission_fills_then_replaces_the_weakest() {
        assert_eq!(admit(&[1.0, 2.0], 3, -9.0), Admission::Admit);
        assert_eq!(admit(&[1.0, -2.0, 3.0], 3, 0.0), Admission::AdmitEvicting(1));
        assert_eq!(admit(&[1.0, -2.0, 3.0], 3, -2.0), Admission::Refuse);
    }

    fn arb_uses() -> impl Strategy<Value = Vec<(i64, u16)>> {
        // (minutes after t0, records in the read)
        prop::collection::vec((0i64..200_000, prop_oneof![Just(1u16), 1u16..600]), 0..60)
    }

    proptest! {
        #[test]
        fn adding_a_use_never_lowers_b(uses in arb_uses(), later in 0i64..1_000, records in 1u16..600) {
            let mut uses: Vec<Use> = uses.into_iter()
                .map(|(m, n)| Use { at: t0() + Duration::minutes(m), weight: use_weight(n as usize) })
                .collect();
            uses.sort_by_key(|u| u.at);
            let now = t0() + Duration::minutes(200_000 + later);
            let mut s = summary(&uses);
            let before = s.activation(now);
            let exact_before = exact_activation(&uses, now);
            s.record(Use { at: now, weight: use_weight(records as usize) });
            uses.push(Use { at: now, weight: use_weight(records as usize) });
            prop_assert!(s.activation(now) >= before, "hybrid {} -> {}", before, s.activation(now));
            prop_assert!(exact_activation(&uses, now) >= exact_before);
        }

        #[test]
        fn the_cap_holds(scores in prop::collection::vec(-20.0f64..5.0, 0..800)) {
            let mut kept: Vec<f64> = Vec::new();
            for s in scores {
                match admit(&kept, CARD_CAP, s) {
                    Admission::Admit => kept.push(s),
                    Admission::AdmitEvicting(i) => kept[i] = s,
                    Admission::Refuse => {}
                }
                prop_assert!(kept.len() <= CARD_CAP);
            }
        }

        #[test]
        fn the_hybrid_stays_near_exact_for_any_history(uses in arb_uses()) {
            let mut uses: Vec<Use> = uses.into_iter()
                .map(|(m, n)| Use { at: t0() + Duration::minutes(m), weight: use_weight(n as usize) })
                .collect();
            uses.sort_by_key(|u| u.at);
            let now = t0() + Duration::minutes(200_001);
            let exact = exact_activation(&uses, now);
            let approx = summary(&uses).activation(now);
            if exact.is_finite() {
                prop_assert!((exact - approx).abs() < 0.5, "exact {} hybrid {}", exact, approx);
            }
        }
    }
}
