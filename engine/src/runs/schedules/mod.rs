//! Schedules and triggers: a company agent's standing instruction that runs unasked, at a time in
//! the company's zone or every so often, and a URL with its own secret that starts the same kind
//! of run when another system posts to it. Both run as `RunKind::Schedule`: acting for nobody.
//!
//! The rules, in one place:
//! - Only a company agent has them (a private agent is its owner's alone, and acts for them), and
//!   only its owner or an admin sets, clears or pauses them.
//! - A schedule runs daily or on weekdays (Monday to Friday) at HH:MM in the company's zone, or
//!   every N minutes or hours, at most every 15 minutes and at least once a day.
//! - Daylight saving is read through the zone as the nightly job and Prepare my day read it: a time
//!   the clocks skip runs at the first minute after the gap, a time that happens twice runs the
//!   first time only. "Every N hours" counts real elapsed time from midnight UTC, so a change of
//!   the clocks neither shortens nor lengthens it.
//! - A trigger's secret is shown once; only its hash is kept. A trigger fires at most 60 times in
//!   any hour.
//! - An agent its owner paused fires nothing, neither schedule nor trigger.

pub mod fire;
pub mod service;
#[cfg(all(test, feature = "server"))]
mod service_tests;
pub mod store;
#[cfg(test)]
mod tests;

use crate::kernel::{AgentId, Person, PersonId};
use crate::org::Agent;
use crate::runs::{RunError, QUESTION_MAX_CHARS};
use chrono::{DateTime, Datelike, Duration, NaiveDate, NaiveTime, TimeZone, Utc, Weekday};
use serde::{Deserialize, Serialize};

pub use fire::{Firing, TriggerError};
pub use service::Schedules;
pub use store::{SchedulePorts, ScheduleStore};

/// A schedule runs at most this often.
pub const MIN_EVERY_MINUTES: u32 = 15;
/// And at least once a day: a longer wait is a daily schedule.
pub const MAX_EVERY_MINUTES: u32 = 24 * 60;
/// A trigger fires at most this many times in any hour.
pub const TRIGGER_RUNS_PER_HOUR: u32 = 60;
/// The longest standing instruction, as long as a question may be.
pub const INSTRUCTION_MAX_CHARS: usize = QUESTION_MAX_CHARS;
/// Trigger secrets start with this, so one pasted into the wrong place is recognisable.
pub const TRIGGER_PREFIX: &str = "trg_";

/// When a schedule runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum When {
    /// Every day at this time in the company's zone.
    Daily(NaiveTime),
    /// Monday to Friday at this time in the company's zone.
    Weekdays(NaiveTime),
    /// Every this many minutes, counted from midnight UTC.
    Every(u32),
}

fn parse_time(value: &str) -> Result<NaiveTime, RunError> {
    let v = value.trim();
    // Exactly HH:MM: "9:00" and "09:00:00" are refused rather than guessed at.
    let ok = v.len() == 5 && v.as_bytes()[2] == b':';
    ok.then(|| NaiveTime::parse_from_str(v, "%H:%M").ok())
        .flatten()
        .ok_or_else(|| RunError::Invalid(format!("Give the time as HH:MM, for example 09:00 (not {v:?})")))
}

/// "2h", "2 hours", "90m", "90 minutes", or a bare number of hours, in minutes.
fn parse_every(value: &str) -> Result<u32, RunError> {
    let v = value.trim().to_lowercase();
    let unclear =
        || RunError::Invalid(format!("Give how often as hours or minutes, for example 2h or 30m (not {v:?})"));
    let digits: String = v.chars().take_while(|c| c.is_ascii_digit()).collect();
    let unit = v[digits.len()..].trim();
    let n: u32 = digits.parse().map_err(|_| unclear())?;
    let minutes = match unit {
        "" | "h" | "hour" | "hours" => n.checked_mul(60).ok_or_else(unclear)?,
        "m" | "min" | "mins" | "minute" | "minutes" => n,
        _ => return Err(unclear()),
    };
    if minutes < MIN_EVERY_MINUTES {
        return Err(RunError::Invalid(format!(
            "A schedule runs at most every {MIN_EVERY_MINUTES} minutes: every {} is too often",
            minutes_words(minutes)
        )));
    }
    if minutes > MAX_EVERY_MINUTES {
        return Err(RunError::Invalid(format!(
            "A schedule runs at least once a day: for every {}, make it daily at a time instead",
            minutes_words(minutes)
        )));
    }
    Ok(minutes)
}

/// "15 minutes", "1 hour", "2 hours", "90 minutes".
fn minutes_words(m: u32) -> String {
    match m {
        60 => "1 hour".into(),
        m if m > 0 && m % 60 == 0 => format!("{} hours", m / 60),
        1 => "1 minute".into(),
        m => format!("{m} minutes"),
    }
}

impl When {
    /// As a form, the API or the CLI gives it: `kind` is daily, weekdays or every; `value` the
    /// time (HH:MM) or how often (2h, 30m).
    pub fn parse(kind: &str, value: &str) -> Result<When, RunError> {
        match kind.trim().to_lowercase().as_str() {
            "daily" => Ok(When::Daily(parse_time(value)?)),
            "weekdays" => Ok(When::Weekdays(parse_time(value)?)),
            "every" => Ok(When::Every(parse_every(value)?)),
            other => Err(RunError::Invalid(format!(
                "A schedule runs daily, on weekdays or every so often: {other:?} is none of them"
            ))),
        }
    }

    /// The kind as stored and as `parse` takes it.
    pub fn kind(&self) -> &'static str {
        match self {
            When::Daily(_) => "daily",
            When::Weekdays(_) => "weekdays",
            When::Every(_) => "every",
        }
    }

    /// The value as stored and as `parse` takes it: "09:00", or minutes ("120m").
    pub fn value(&self) -> String {
        match self {
            When::Daily(t) | When::Weekdays(t) => t.format("%H:%M").to_string(),
            When::Every(m) => format!("{m}m"),
        }
    }

    /// What the agent page, the audit and the CLI say: "Daily at 09:00", "Every 2 hours".
    pub fn words(&self) -> String {
        match self {
            When::Daily(t) => format!("Daily at {}", t.format("%H:%M")),
            When::Weekdays(t) => format!("On weekdays at {}", t.format("%H:%M")),
            When::Every(m) => format!("Every {}", minutes_words(*m)),
        }
    }

    /// The first time the schedule is due strictly after `after`, read in `zone`.
    pub fn next_due(&self, zone: chrono_tz::Tz, after: DateTime<Utc>) -> DateTime<Utc> {
        match *self {
            When::Every(m) => {
                let step = i64::from(m.max(MIN_EVERY_MINUTES)) * 60;
                let t = after.timestamp();
                let next = (t.div_euclid(step) + 1) * step;
                DateTime::from_timestamp(next, 0).unwrap_or(after + Duration::seconds(step))
            }
            When::Daily(at) | When::Weekdays(at) => {
                let weekdays = matches!(self, When::Weekdays(_));
                let mut day = after.with_timezone(&zone).date_naive();
                // A week and a day always holds a weekday after any instant.
                for _ in 0..9 {
                    let counts = !weekdays || !matches!(day.weekday(), Weekday::Sat | Weekday::Sun);
                    if counts {
                        if let Some(due) = local_instant(zone, day, at).filter(|d| *d > after) {
                            return due;
                        }
                    }
                    day = day.succ_opt().unwrap_or(day);
                }
                // Unreachable for any real zone; a day later is a safe answer.
                after + Duration::days(1)
            }
        }
    }
}

/// A due time as the agent's page and the CLI say it, in the company's zone:
/// "Wed 2 Dec 2026, 09:00 (Asia/Kolkata)".
pub fn due_words(zone: chrono_tz::Tz, at: DateTime<Utc>) -> String {
    format!("{} ({})", at.with_timezone(&zone).format("%a %-d %b %Y, %H:%M"), zone.name())
}

/// The instant `t` on `date` in `zone`: the first of two when the clocks go back, the first
/// minute that exists after it when they go forward past it (as Prepare my day reads it).
pub fn local_instant(zone: chrono_tz::Tz, date: NaiveDate, t: NaiveTime) -> Option<DateTime<Utc>> {
    let naive = date.and_time(t);
    match zone.from_local_datetime(&naive) {
        chrono::LocalResult::Single(d) => Some(d.with_timezone(&Utc)),
        chrono::LocalResult::Ambiguous(first, _) => Some(first.with_timezone(&Utc)),
        chrono::LocalResult::None => (1..=180).find_map(|m| {
            zone.from_local_datetime(&(naive + Duration::minutes(m))).earliest().map(|d| d.with_timezone(&Utc))
        }),
    }
}

/// A standing instruction as written: trimmed, not empty, bounded, and holding no secret (it is
/// stored, and every run quotes it).
pub fn parse_instruction(text: &str) -> Result<String, RunError> {
    let t = text.trim();
    if t.is_empty() {
        return Err(RunError::Invalid("Write the instruction the agent follows each time first".into()));
    }
    let n = t.chars().count();
    if n > INSTRUCTION_MAX_CHARS {
        return Err(RunError::Invalid(format!(
            "An instruction can be at most {INSTRUCTION_MAX_CHARS} characters; this one has {n}"
        )));
    }
    crate::secrets::refuse("The instruction", t).map_err(|r| RunError::Invalid(r.to_string()))?;
    Ok(t.to_string())
}

/// Who may set, clear or pause an agent's schedule and trigger: its owner or an admin, and only
/// for a company agent.
pub fn may_manage(me: &Person, agent: &Agent) -> Result<(), RunError> {
    if agent.private {
        // Another's private agent is no agent at all to anyone else.
        if agent.owner != me.id {
            return Err(RunError::NotFound("There is no such agent".into()));
        }
        return Err(RunError::Invalid(
            "A private agent has no schedule or trigger: it works only when you ask it".into(),
        ));
    }
    if me.is_admin || me.id == agent.owner {
        Ok(())
    } else {
        Err(RunError::NotAllowed(format!(
            "Only the agent's owner or an admin can change when {} runs unasked",
            agent.name
        )))
    }
}

/// A company agent's standing instruction and when it runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Schedule {
    pub agent: AgentId,
    pub instruction: String,
    pub when: When,
    /// The next time it is due; claimed once across servers, then moved on.
    pub next_due: DateTime<Utc>,
    pub set_by: Option<PersonId>,
    pub set_at: DateTime<Utc>,
}

/// A schedule as a write gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewSchedule {
    pub instruction: String,
    pub when: When,
    pub next_due: DateTime<Utc>,
}

/// That an agent has a trigger, and who made it when; never its secret.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Trigger {
    pub agent: AgentId,
    pub made_by: Option<PersonId>,
    pub made_at: DateTime<Utc>,
}

/// What a post to a trigger's URL came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TriggerFire {
    /// Counted: the run may start.
    Fired,
    /// No trigger, or not its secret: the same answer for both.
    Refused,
    /// Already fired 60 times in the last hour.
    Limited,
    /// Its owner paused the agent.
    Paused,
}

/// Said to a post whose secret is wrong, or to an agent with no trigger, alike.
pub const TRIGGER_REFUSED: &str = "That is not this agent's trigger secret";
/// Said to a post past the hourly limit.
pub fn trigger_limited() -> String {
    format!("This trigger already ran {TRIGGER_RUNS_PER_HOUR} times in the last hour; try again later")
}
/// Said to a post to a paused agent.
pub const TRIGGER_PAUSED: &str = "This agent is paused by its owner and runs nothing unasked";

/// What the store keeps of a trigger's secret.
#[cfg(feature = "server")]
pub fn hash_trigger_secret(secret: &str) -> String {
    crate::auth::hash_api_token(secret)
}

/// A new trigger secret, shown once.
#[cfg(feature = "server")]
pub fn new_trigger_secret() -> String {
    use rand::RngCore;
    let mut bytes = [0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    let body: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("{TRIGGER_PREFIX}{body}")
}
