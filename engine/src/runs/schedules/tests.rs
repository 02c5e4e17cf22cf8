//! The rules of schedules: what may be typed, who may set them, and when they are next due, across
//! the clocks' changes.

use super::*;
use crate::org::fake::agent;
use crate::org::PersonId;
use chrono::TimeZone;

fn t(h: u32, m: u32) -> NaiveTime {
    NaiveTime::from_hms_opt(h, m, 0).unwrap()
}

fn utc(y: i32, mo: u32, d: u32, h: u32, mi: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(y, mo, d, h, mi, 0).unwrap()
}

const BERLIN: chrono_tz::Tz = chrono_tz::Europe::Berlin;

fn invalid(r: Result<impl std::fmt::Debug, RunError>) -> String {
    match r {
        Err(RunError::Invalid(s)) => s,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[test]
fn when_parses_the_three_kinds_and_says_them_back() {
    assert_eq!(When::parse("daily", "09:00").unwrap(), When::Daily(t(9, 0)));
    assert_eq!(When::parse(" Weekdays ", " 17:30 ").unwrap(), When::Weekdays(t(17, 30)));
    assert_eq!(When::parse("every", "2h").unwrap(), When::Every(120));
    assert_eq!(When::parse("every", "2 hours").unwrap(), When::Every(120));
    assert_eq!(When::parse("every", "3").unwrap(), When::Every(180));
    assert_eq!(When::parse("every", "15m").unwrap(), When::Every(15));
    assert_eq!(When::parse("every", "90 minutes").unwrap(), When::Every(90));
    assert_eq!(When::parse("every", "24h").unwrap(), When::Every(1440));
    assert_eq!(When::Daily(t(9, 0)).words(), "Daily at 09:00");
    assert_eq!(When::Weekdays(t(9, 5)).words(), "On weekdays at 09:05");
    assert_eq!(When::Every(120).words(), "Every 2 hours");
    assert_eq!(When::Every(60).words(), "Every 1 hour");
    assert_eq!(When::Every(15).words(), "Every 15 minutes");
    assert_eq!(When::Every(90).words(), "Every 90 minutes");
    // What is stored reads back the same.
    for w in [When::Daily(t(9, 0)), When::Weekdays(t(23, 59)), When::Every(15), When::Every(120)] {
        assert_eq!(When::parse(w.kind(), &w.value()).unwrap(), w);
    }
}

#[test]
fn when_refuses_what_it_cannot_run_with_a_specific_message() {
    assert_eq!(
        invalid(When::parse("every", "10m")),
        "A schedule runs at most every 15 minutes: every 10 minutes is too often"
    );
    assert_eq!(
        invalid(When::parse("every", "0")),
        "A schedule runs at most every 15 minutes: every 0 minutes is too often"
    );
    assert_eq!(
        invalid(When::parse("every", "25h")),
        "A schedule runs at least once a day: for every 25 hours, make it daily at a time instead"
    );
    assert_eq!(
        invalid(When::parse("every", "2 days")),
        "Give how often as hours or minutes, for example 2h or 30m (not \"2 days\")"
    );
    assert!(invalid(When::parse("every", "")).starts_with("Give how often"));
    assert!(invalid(When::parse("every", "99999999999h")).starts_with("Give how often"));
    for bad in ["9:00", "25:00", "09:60", "09:00:00", "nine", ""] {
        assert!(invalid(When::parse("daily", bad)).starts_with("Give the time as HH:MM"), "{bad:?}");
    }
    assert_eq!(
        invalid(When::parse("hourly", "1")),
        "A schedule runs daily, on weekdays or every so often: \"hourly\" is none of them"
    );
}

#[test]
fn instructions_are_trimmed_bounded_and_hold_no_secret() {
    assert_eq!(
        parse_instruction("  Summarise the open escalated tickets. ").unwrap(),
        "Summarise the open escalated tickets."
    );
    assert_eq!(invalid(parse_instruction("   ")), "Write the instruction the agent follows each time first");
    let long = "a".repeat(INSTRUCTION_MAX_CHARS + 1);
    assert_eq!(
        invalid(parse_instruction(&long)),
        format!(
            "An instruction can be at most {INSTRUCTION_MAX_CHARS} characters; this one has {}",
            INSTRUCTION_MAX_CHARS + 1
        )
    );
    assert!(parse_instruction(&"a".repeat(INSTRUCTION_MAX_CHARS)).is_ok());
    let secret = invalid(parse_instruction("Use key AKIAIOSFODNN7EXAMPLE to read the bucket"));
    assert!(secret.starts_with("The instruction"), "{secret}");
}

fn person(id: i64, admin: bool) -> Person {
    Person {
        id: PersonId(id),
        name: format!("P{id}"),
        email: format!("p{id}@acme.test"),
        is_admin: admin,
        main_team: None,
        role_override: None,
        manager: None,
        left_at: None,
    }
}

#[test]
fn only_the_owner_or_an_admin_manages_a_company_agents_schedule() {
    assert!(may_manage(&person(1, false), &agent(5, "Support Agent", 1, false)).is_ok(), "the owner");
    assert!(may_manage(&person(2, true), &agent(5, "Support Agent", 1, false)).is_ok(), "an admin");
    match may_manage(&person(3, false), &agent(5, "Support Agent", 1, false)) {
        Err(RunError::NotAllowed(s)) => {
            assert_eq!(s, "Only the agent's owner or an admin can change when Support Agent runs unasked")
        }
        other => panic!("{other:?}"),
    }
    // A private agent acts for its owner only: it never runs for nobody.
    assert_eq!(
        invalid(may_manage(&person(1, false), &agent(5, "Support Agent", 1, true))),
        "A private agent has no schedule or trigger: it works only when you ask it"
    );
    // To anyone else, admins too, another's private agent is no agent.
    assert!(matches!(may_manage(&person(2, true), &agent(5, "Support Agent", 1, true)), Err(RunError::NotFound(_))));
}

#[test]
fn daily_is_due_at_the_next_such_time_in_the_companys_zone() {
    let daily = When::Daily(t(9, 0));
    // 07:00 UTC is 08:00 in Berlin in winter: today at 09:00 Berlin, 08:00 UTC.
    assert_eq!(daily.next_due(BERLIN, utc(2026, 12, 1, 7, 0)), utc(2026, 12, 1, 8, 0));
    // Exactly then counts as past: it is due strictly after.
    assert_eq!(daily.next_due(BERLIN, utc(2026, 12, 1, 8, 0)), utc(2026, 12, 2, 8, 0));
    // Set after today's time: tomorrow, never at once.
    assert_eq!(daily.next_due(BERLIN, utc(2026, 12, 1, 10, 0)), utc(2026, 12, 2, 8, 0));
    // In summer Berlin is UTC+2.
    assert_eq!(daily.next_due(BERLIN, utc(2026, 7, 1, 5, 0)), utc(2026, 7, 1, 7, 0));
    // Late in the UTC day it is already tomorrow in a zone far east.
    let tokyo = chrono_tz::Asia::Tokyo;
    assert_eq!(daily.next_due(tokyo, utc(2026, 12, 1, 23, 0)), utc(2026, 12, 2, 0, 0));
}

#[test]
fn weekdays_skip_saturday_and_sunday_in_the_local_calendar() {
    let w = When::Weekdays(t(9, 0));
    // Friday 4 December 2026 after 09:00 Berlin: Monday 7 December.
    assert_eq!(w.next_due(BERLIN, utc(2026, 12, 4, 9, 0)), utc(2026, 12, 7, 8, 0));
    // Saturday and Sunday: Monday.
    assert_eq!(w.next_due(BERLIN, utc(2026, 12, 5, 6, 0)), utc(2026, 12, 7, 8, 0));
    assert_eq!(w.next_due(BERLIN, utc(2026, 12, 6, 6, 0)), utc(2026, 12, 7, 8, 0));
    // Monday before nine: the same day.
    assert_eq!(w.next_due(BERLIN, utc(2026, 12, 7, 7, 59)), utc(2026, 12, 7, 8, 0));
    // A local Monday that is still Sunday in UTC counts as Monday.
    let tokyo = chrono_tz::Asia::Tokyo;
    let w7 = When::Weekdays(t(7, 0));
    assert_eq!(w7.next_due(tokyo, utc(2026, 12, 6, 21, 0)), utc(2026, 12, 6, 22, 0));
}

#[test]
fn a_time_the_clocks_skip_runs_at_the_first_minute_after_the_gap() {
    // Berlin, 29 March 2026: 02:00 jumps to 03:00 (01:00 UTC). 02:30 does not exist that day.
    let w = When::Daily(t(2, 30));
    assert_eq!(w.next_due(BERLIN, utc(2026, 3, 28, 12, 0)), utc(2026, 3, 29, 1, 0), "03:00 local, after the gap");
    // The day after, 02:30 exists again (UTC+2).
    assert_eq!(w.next_due(BERLIN, utc(2026, 3, 29, 1, 0)), utc(2026, 3, 30, 0, 30));
    // A time outside the gap is untouched on that day.
    assert_eq!(When::Daily(t(9, 0)).next_due(BERLIN, utc(2026, 3, 28, 12, 0)), utc(2026, 3, 29, 7, 0));
}

#[test]
fn a_time_that_happens_twice_runs_once_at_the_first() {
    // Berlin, 25 October 2026: 03:00 goes back to 02:00. 02:30 happens at 00:30 and 01:30 UTC.
    let w = When::Daily(t(2, 30));
    let first = w.next_due(BERLIN, utc(2026, 10, 24, 12, 0));
    assert_eq!(first, utc(2026, 10, 25, 0, 30));
    // Once it ran at the first, the second 02:30 is not due again: the next is the next day.
    assert_eq!(w.next_due(BERLIN, first), utc(2026, 10, 26, 1, 30));
    // Asked between the two, it is the next day too: that day's 02:30 has been.
    assert_eq!(w.next_due(BERLIN, utc(2026, 10, 25, 1, 0)), utc(2026, 10, 26, 1, 30));
}

#[test]
fn every_counts_real_time_from_midnight_utc_whatever_the_clocks_do() {
    let every2h = When::Every(120);
    assert_eq!(every2h.next_due(BERLIN, utc(2026, 12, 1, 9, 10)), utc(2026, 12, 1, 10, 0));
    assert_eq!(every2h.next_due(BERLIN, utc(2026, 12, 1, 10, 0)), utc(2026, 12, 1, 12, 0));
    let every15 = When::Every(15);
    assert_eq!(every15.next_due(BERLIN, utc(2026, 12, 1, 9, 14)), utc(2026, 12, 1, 9, 15));
    // Across the spring gap, still two real hours apart.
    let before = utc(2026, 3, 29, 0, 0);
    let next = every2h.next_due(BERLIN, before);
    assert_eq!(next - before, Duration::hours(2));
    // Slots never come closer than the minimum, one after another.
    let mut at = utc(2026, 10, 24, 23, 0);
    for _ in 0..200 {
        let n = every15.next_due(BERLIN, at);
        assert!(n - at <= Duration::minutes(15) && n > at);
        let m = every15.next_due(BERLIN, n);
        assert_eq!(m - n, Duration::minutes(15));
        at = n;
    }
}

#[test]
fn a_daily_schedule_is_due_once_per_local_day_across_a_year_of_clock_changes() {
    // Walked through 2026 in Berlin: every due time is 09:00 local, one per local day.
    let w = When::Daily(t(9, 0));
    let mut at = utc(2026, 1, 1, 0, 0);
    let mut days = Vec::new();
    for _ in 0..365 {
        at = w.next_due(BERLIN, at);
        let local = at.with_timezone(&BERLIN);
        assert_eq!(local.time(), t(9, 0));
        days.push(local.date_naive());
    }
    days.dedup();
    assert_eq!(days.len(), 365);
}
