//! The report in words, the same on the page and in `engram ops report`.

use super::{DayFigures, LayerFigures, OperationsReport, PastLimit, Projection};
use chrono::{DateTime, Utc};

/// "12,345".
pub fn count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Bytes in binary units: "812 B", "1.5 KiB", "12.3 MiB", "1.0 GiB".
pub fn bytes(n: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if n < 1024 {
        return format!("{n} B");
    }
    let mut value = n as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

/// Thousandths of a cent as cents, rounded up to the hundredth as the spend ledger's settings
/// show it: "0.12 cents", "1,234.50 cents".
pub fn cents(millicents: u64) -> String {
    let hundredths = millicents.div_ceil(10);
    format!("{}.{:02} cents", count(hundredths / 100), hundredths % 100)
}

/// A length of time in minutes: "15 min", "4 h", "30 days".
pub fn span(mins: i64) -> String {
    let mins = mins.max(0);
    match mins {
        0..=59 => format!("{mins} min"),
        60..=2879 => format!("{} h", mins / 60),
        _ => format!("{} days", mins / 1440),
    }
}

fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{} {}", count(n), if n == 1 { one } else { many })
}

/// "Cards: 3,000 rows, 1.2 MiB on disk, 600 written in the last 30 days".
pub fn layer_line(l: &LayerFigures) -> String {
    format!(
        "{}: {}, {} on disk, {} written in the last 30 days",
        l.layer.words(),
        plural(l.rows, "row", "rows"),
        bytes(l.bytes),
        count(l.added)
    )
}

/// "1,234 / 3,456 tokens", or "no block".
pub fn percentiles(p50: Option<u32>, p95: Option<u32>) -> String {
    match (p50, p95) {
        (Some(a), Some(b)) => format!("{} / {} tokens", count(u64::from(a)), count(u64::from(b))),
        _ => "no block".into(),
    }
}

/// One day in a line.
pub fn day_line(d: &DayFigures) -> String {
    format!(
        "{}: {}, {} given a block (p50 / p95 {}); {} and {}; nightly job {}, {}; runs' model {}, {}, {}",
        d.day,
        plural(d.runs, "run", "runs"),
        count(d.with_block),
        percentiles(d.block_p50, d.block_p95),
        plural(d.checks, "check", "checks"),
        plural(d.check_reads, "read", "reads"),
        plural(d.nightly_calls, "call", "calls"),
        cents(d.nightly_millicents),
        plural(d.run_model_calls, "call", "calls"),
        plural(d.run_model_tokens, "token", "tokens"),
        cents(d.run_millicents),
    )
}

/// "Card 12 of Acme ATS, read 45 days ago: 15 days past its hard limit of 30 days. 3 cards are past
/// their connector's hard limit."
pub fn past_limit_line(p: &PastLimit, now: DateTime<Utc>) -> String {
    let age = (now - p.read_at).num_minutes();
    format!(
        "Card {} of {}, read {} ago: {} past its hard limit of {}. {} past their connector's hard limit.",
        p.card,
        p.connector,
        span(age),
        span(age - i64::from(p.hard_mins)),
        span(i64::from(p.hard_mins)),
        if p.cards_past_limit == 1 {
            "1 card is".to_string()
        } else {
            format!("{} cards are", count(p.cards_past_limit))
        }
    )
}

/// The projection in lines.
pub fn projection_lines(p: &Projection) -> Vec<String> {
    let mut lines = vec![format!(
        "At {} people (projected from {} over {}): memory {} on disk.",
        count(p.people),
        plural(p.measured_people, "person", "people"),
        plural(u64::from(p.days_measured), "day", "days"),
        bytes(p.memory_bytes)
    )];
    for l in &p.layers {
        let how = if l.grows_with_people {
            format!("{:.1} rows and {} a person now", l.rows_per_person, bytes(l.bytes_per_person.round() as u64))
        } else {
            "held as measured: it grows with the bots, not the people".to_string()
        };
        lines.push(format!(
            "  {}: {}, {}, {} written a day ({how})",
            l.layer.words(),
            plural(l.rows, "row", "rows"),
            bytes(l.bytes),
            count(l.added_per_day)
        ));
    }
    lines.push(format!(
        "  A day: {}, {} of blocks (p50 / p95 {} a run, held); {} and {}.",
        plural(p.runs_per_day, "run", "runs"),
        plural(p.block_tokens_per_day, "token", "tokens"),
        percentiles(p.block_p50, p.block_p95),
        plural(p.checks_per_day, "check", "checks"),
        plural(p.check_reads_per_day, "read", "reads")
    ));
    let capped = if p.nightly_wanted_millicents > p.budget_millicents {
        format!(
            " (it would want {}: past the daily budget of {})",
            cents(p.nightly_wanted_millicents),
            cents(p.budget_millicents)
        )
    } else {
        format!(" (within the daily budget of {})", cents(p.budget_millicents))
    };
    lines.push(format!(
        "  Spend a day: runs' model {}; nightly job {} in {}{capped}.",
        cents(p.run_millicents_per_day),
        cents(p.nightly_millicents_per_day),
        plural(p.nightly_calls_per_day, "call", "calls"),
    ));
    lines
}

/// The whole report in lines, as `engram ops report` prints it.
pub fn report_lines(r: &OperationsReport) -> Vec<String> {
    let mut lines = vec![
        format!("Operations at {} (days in {})", r.at.format("%Y-%m-%d %H:%M UTC"), r.time_zone),
        format!("People: {}", count(r.people)),
        format!(
            "Memory on disk: {} of a {} database; {}",
            bytes(r.memory_bytes),
            bytes(r.database_bytes),
            match r.bytes_per_person {
                Some(b) => format!("{} per person", bytes(b)),
                None => "nobody to divide it by".into(),
            }
        ),
        format!("Bytes are {}", r.bytes_measure),
        "Layers:".into(),
    ];
    lines.extend(r.layers.iter().map(|l| format!("  {}", layer_line(l))));
    let w = &r.window;
    lines.push(format!(
        "Last 30 days ({} measured): {}, {} given a block (p50 / p95 {}); {} and {}; nightly job {}, {}; other memory calls {}; runs' model {}, {}, {}",
        plural(u64::from(w.days_measured), "day", "days"),
        plural(w.runs, "run", "runs"),
        count(w.with_block),
        percentiles(w.block_p50, w.block_p95),
        plural(w.checks, "check", "checks"),
        plural(w.check_reads, "read", "reads"),
        plural(w.nightly_calls, "call", "calls"),
        cents(w.nightly_millicents),
        cents(w.other_memory_millicents),
        plural(w.run_model_calls, "call", "calls"),
        plural(w.run_model_tokens, "token", "tokens"),
        cents(w.run_millicents),
    ));
    lines.push("Per day, newest first (days with no work left out):".into());
    lines.extend(r.days.iter().rev().filter(|d| d.had_work()).map(|d| format!("  {}", day_line(d))));
    lines.push(match &r.oldest_past_limit {
        Some(p) => format!("Oldest card past its hard limit: {}", past_limit_line(p, r.at)),
        None => "Oldest card past its hard limit: none; every card is within its connector's hard limit.".into(),
    });
    match &r.projection {
        Some(p) => lines.extend(projection_lines(p)),
        None => lines.push("No projection: nobody to measure per person.".into()),
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_as_people_read_them() {
        assert_eq!(
            (count(0), count(999), count(1_000), count(1_234_567)),
            ("0".into(), "999".into(), "1,000".into(), "1,234,567".into())
        );
        assert_eq!(bytes(812), "812 B");
        assert_eq!(bytes(1_536), "1.5 KiB");
        assert_eq!(bytes(12 * 1024 * 1024 + 300 * 1024), "12.3 MiB");
        assert_eq!(bytes(1024 * 1024 * 1024), "1.0 GiB");
        assert_eq!(cents(0), "0.00 cents");
        assert_eq!(cents(1), "0.01 cents", "rounded up: a priced call never reads as free");
        assert_eq!(cents(123_450_000), "123,450.00 cents");
        assert_eq!((span(15), span(240), span(43_200)), ("15 min".into(), "4 h".into(), "30 days".into()));
    }

    #[test]
    fn the_oldest_card_past_its_limit_names_ids_and_ages_only() {
        let now = DateTime::parse_from_rfc3339("2026-12-16T10:00:00Z").unwrap().with_timezone(&Utc);
        let p = PastLimit {
            card: 12,
            connector: "Acme ATS".into(),
            read_at: now - chrono::Duration::days(45),
            hard_mins: 30 * 1440,
            cards_past_limit: 3,
        };
        assert_eq!(
            past_limit_line(&p, now),
            "Card 12 of Acme ATS, read 45 days ago: 15 days past its hard limit of 30 days. 3 cards are past their connector's hard limit."
        );
    }
}
