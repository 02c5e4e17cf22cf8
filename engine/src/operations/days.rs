//! The company's days: the last days in its zone, each from its midnight to the next, as the
//! instants the store counts between. A day across a change of the clocks is 23 or 25 hours long,
//! as the company lives it.

use chrono::{DateTime, NaiveDate, NaiveTime, TimeZone, Utc};
use chrono_tz::Tz;

/// The last `n` days in `zone`, oldest first, today last, and their n + 1 edges: each day runs
/// from its edge to the next. Today's end is tomorrow's midnight, so a run made now counts.
pub fn company_days(now: DateTime<Utc>, zone: Tz, n: u32) -> (Vec<NaiveDate>, Vec<DateTime<Utc>>) {
    let today = now.with_timezone(&zone).date_naive();
    let dates: Vec<NaiveDate> = (0..i64::from(n)).rev().map(|k| today - chrono::Duration::days(k)).collect();
    let mut bounds: Vec<DateTime<Utc>> = dates.iter().map(|d| start_of(*d, zone)).collect();
    bounds.push(start_of(today + chrono::Duration::days(1), zone));
    (dates, bounds)
}

/// When a day begins in the zone: its midnight, or, where the clocks skip midnight, the first
/// hour that exists.
pub fn start_of(day: NaiveDate, zone: Tz) -> DateTime<Utc> {
    (0..=3)
        .find_map(|h| {
            let local = day.and_time(NaiveTime::from_hms_opt(h, 0, 0).unwrap_or(NaiveTime::MIN));
            zone.from_local_datetime(&local).earliest()
        })
        .map(|t| t.with_timezone(&Utc))
        // No zone skips more than an hour at a time; read as UTC if one ever did.
        .unwrap_or_else(|| day.and_time(NaiveTime::MIN).and_utc())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utc(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    #[test]
    fn days_end_with_today_in_the_companys_zone() {
        // 20:00 UTC on 1 December is already 2 December in Kolkata (UTC+5:30).
        let (dates, bounds) = company_days(utc("2026-12-01T20:00:00Z"), chrono_tz::Asia::Kolkata, 3);
        let dates: Vec<String> = dates.iter().map(|d| d.to_string()).collect();
        assert_eq!(dates, ["2026-11-30", "2026-12-01", "2026-12-02"]);
        assert_eq!(
            bounds,
            [
                utc("2026-11-29T18:30:00Z"),
                utc("2026-11-30T18:30:00Z"),
                utc("2026-12-01T18:30:00Z"),
                utc("2026-12-02T18:30:00Z")
            ]
        );
    }

    #[test]
    fn a_day_across_a_change_of_the_clocks_is_as_long_as_the_company_lives_it() {
        // London goes from UTC+1 to UTC on 25 October 2026: that day is 25 hours.
        let (_, bounds) = company_days(utc("2026-10-26T12:00:00Z"), chrono_tz::Europe::London, 2);
        assert_eq!(bounds[1] - bounds[0], chrono::Duration::hours(25));
        assert_eq!(bounds[2] - bounds[1], chrono::Duration::hours(24));
        // Santiago skips from midnight to 01:00 when its summer time begins (6 September 2026).
        let start = start_of(NaiveDate::from_ymd_opt(2026, 9, 6).unwrap(), chrono_tz::America::Santiago);
        assert_eq!(start, utc("2026-09-06T04:00:00Z"));
    }
}
