//! Prepare my day: the person's chosen time and zone, and the run of their role's "my work"
//! queries once per local day.

use super::*;

/// Prepare my day runs within this long after the chosen time, once per local day.
pub const PREPARE_WINDOW_MINS: i64 = 120;

/// The local date Prepare my day is due for, if it is due now: the chosen time has come today in
/// `zone`, less than two hours ago, and it has not run today. Daylight-saving changes are read
/// through the zone: a time that does not exist that day runs at the first instant after it.
pub fn due_today(s: &PrepareSetting, zone: chrono_tz::Tz, now: DateTime<Utc>) -> Option<NaiveDate> {
    if !s.enabled {
        return None;
    }
    let t = NaiveTime::parse_from_str(&s.at_time, "%H:%M").ok()?;
    let local_today = now.with_timezone(&zone).date_naive();
    if s.last_local_date.as_deref() == Some(local_today.to_string().as_str()) {
        return None;
    }
    let start = local_instant(zone, local_today, t)?;
    (now >= start && now < start + Duration::minutes(PREPARE_WINDOW_MINS)).then_some(local_today)
}

fn local_instant(zone: chrono_tz::Tz, date: NaiveDate, t: NaiveTime) -> Option<DateTime<Utc>> {
    let naive = date.and_time(t);
    match zone.from_local_datetime(&naive) {
        chrono::LocalResult::Single(d) => Some(d.with_timezone(&Utc)),
        // Clocks went back: the time happens twice; the first counts.
        chrono::LocalResult::Ambiguous(first, _) => Some(first.with_timezone(&Utc)),
        // Clocks went forward past it: the first minute that exists after it.
        chrono::LocalResult::None => (1..=180).find_map(|m| {
            zone.from_local_datetime(&(naive + Duration::minutes(m))).earliest().map(|d| d.with_timezone(&Utc))
        }),
    }
}

impl Prepare {
    /// Prepare my day's form: checks the time and the zone before writing either.
    pub async fn save_prepare(
        &self,
        person: &Person,
        enabled: bool,
        at_time: &str,
        zone: &str,
    ) -> Result<(), MemoryError> {
        NaiveTime::parse_from_str(at_time.trim(), "%H:%M")
            .map_err(|_| MemoryError::Invalid("Give the time as HH:MM, for example 08:30".to_string()))?;
        if !zone.trim().is_empty() {
            crate::org::TimeZoneName::parse(zone).map_err(|e| MemoryError::Invalid(e.to_string()))?;
        }
        self.set_time_zone(person, zone).await?;
        self.set_prepare(person, enabled, at_time).await
    }

    /// The person's own zone, if they set one.
    pub async fn own_zone(&self, person: &Person) -> Result<Option<String>, MemoryError> {
        self.store.person_time_zone(person.id).await.map_err(Into::into)
    }

    /// A person's own zone; empty means the company's.
    pub async fn set_time_zone(&self, person: &Person, zone: &str) -> Result<(), MemoryError> {
        let zone = zone.trim();
        let parsed = if zone.is_empty() {
            None
        } else {
            Some(crate::org::TimeZoneName::parse(zone).map_err(|e| MemoryError::Invalid(e.to_string()))?)
        };
        let actor = Actor { person: Some(person.id), at: self.reads.now() };
        self.store.set_person_time_zone(person.id, parsed.as_ref().map(|z| z.as_str()), actor).await.map_err(Into::into)
    }

    /// "On: at 08:30 your time (Asia/Kolkata)", or "Off".
    pub async fn prepare_status(&self, person: &Person) -> Result<(PrepareSetting, String), MemoryError> {
        let s = self.store.prepare_setting(person.id).await?;
        let zone = zone_of(&*self.store, person.id).await?;
        let line = if s.enabled {
            format!("On: at {} your time ({})", s.at_time, zone.name())
        } else {
            format!("Off. When on, it runs at {} your time ({}).", s.at_time, zone.name())
        };
        Ok((s, line))
    }

    pub async fn set_prepare(&self, person: &Person, enabled: bool, at_time: &str) -> Result<(), MemoryError> {
        let t = NaiveTime::parse_from_str(at_time.trim(), "%H:%M")
            .map_err(|_| MemoryError::Invalid("Give the time as HH:MM, for example 08:30".to_string()))?;
        let mut s = self.store.prepare_setting(person.id).await?;
        s.enabled = enabled;
        s.at_time = t.format("%H:%M").to_string();
        self.store.save_prepare_setting(person.id, &s).await.map_err(Into::into)
    }

    /// Runs the role's "my work" queries for everyone whose chosen local time has come today (and
    /// is less than two hours past), once per local day. Returns (person, records kept) for each run.
    pub async fn prepare_due(&self) -> Result<Vec<(PersonId, usize)>, MemoryError> {
        let now = self.reads.now();
        let mut ran = Vec::new();
        for (pid, s) in self.store.prepare_enabled().await? {
            let zone = zone_of(&*self.store, pid).await?;
            let Some(due) = due_today(&s, zone, now) else { continue };
            let Some(person) = self.store.person(pid).await? else { continue };
            // Claimed before it runs, so of several servers only one prepares the day; a query
            // that fails is logged and skipped, not run again by another server.
            if !self.store.claim_prepare(pid, &due.to_string()).await? {
                continue;
            }
            let mut kept = 0;
            if let Some(role) = self.reads.department_role(&person).await?.map(|r| r.id) {
                for q in self.store.my_work_queries(role).await? {
                    match self.run_query(&person, &q).await {
                        Ok(n) => kept += n,
                        Err(e) => {
                            tracing::warn!(person = pid.0, query = q.id, error = %e, "a my-work query was skipped")
                        }
                    }
                }
            }
            ran.push((pid, kept));
        }
        Ok(ran)
    }

    /// A query is checked again each time it runs: its tool must still be a ticked read tool of
    /// a live connector.
    pub async fn run_query(&self, person: &Person, q: &MyWorkQuery) -> Result<usize, MemoryError> {
        let zone = zone_of(&*self.store, person.id).await?;
        let today = self.reads.now().with_timezone(&zone).date_naive().to_string();
        let args_text = q.arguments.replace("{me}", &person.email).replace("{today}", &today);
        let args: Value = serde_json::from_str(&args_text)
            .map_err(|e| MemoryError::Invalid(format!("its arguments are not JSON: {e}")))?;
        self.reads.read_as_answering(person, q.connector, &q.tool, &args, "prepare", Some(&q.label)).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn on(at: &str, last: Option<&str>) -> PrepareSetting {
        PrepareSetting { enabled: true, at_time: at.into(), last_local_date: last.map(String::from) }
    }

    fn utc(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    #[test]
    fn due_at_the_local_time_within_two_hours_once_a_day() {
        let kolkata: chrono_tz::Tz = "Asia/Kolkata".parse().unwrap();
        // 08:30 in Kolkata is 03:00 UTC.
        assert_eq!(due_today(&on("08:30", None), kolkata, utc("2026-11-30T02:59:00Z")), None);
        assert_eq!(
            due_today(&on("08:30", None), kolkata, utc("2026-11-30T03:00:00Z")),
            NaiveDate::from_ymd_opt(2026, 11, 30)
        );
        assert!(due_today(&on("08:30", None), kolkata, utc("2026-11-30T04:59:00Z")).is_some());
        assert_eq!(due_today(&on("08:30", None), kolkata, utc("2026-11-30T05:00:00Z")), None, "two hours late");
        assert_eq!(due_today(&on("08:30", Some("2026-11-30")), kolkata, utc("2026-11-30T03:30:00Z")), None);
        let mut off = on("08:30", None);
        off.enabled = false;
        assert_eq!(due_today(&off, kolkata, utc("2026-11-30T03:00:00Z")), None, "off means no call");
    }

    #[test]
    fn daylight_saving_moves_the_instant_not_the_local_time() {
        let london: chrono_tz::Tz = "Europe/London".parse().unwrap();
        // Before the change 08:30 is 08:30 UTC; after it (29 March 2026) it is 07:30 UTC.
        assert!(due_today(&on("08:30", None), london, utc("2026-03-28T08:30:00Z")).is_some());
        assert_eq!(due_today(&on("08:30", None), london, utc("2026-03-29T07:29:00Z")), None);
        assert!(due_today(&on("08:30", None), london, utc("2026-03-29T07:30:00Z")).is_some());
        // 01:30 does not exist on 29 March: it runs at 02:00 BST, 01:00 UTC.
        assert_eq!(
            local_instant(
                london,
                NaiveDate::from_ymd_opt(2026, 3, 29).unwrap(),
                NaiveTime::from_hms_opt(1, 30, 0).unwrap()
            ),
            Some(utc("2026-03-29T01:00:00Z"))
        );
        // 01:30 happens twice on 25 October: the first counts.
        assert_eq!(
            local_instant(
                london,
                NaiveDate::from_ymd_opt(2026, 10, 25).unwrap(),
                NaiveTime::from_hms_opt(1, 30, 0).unwrap()
            ),
            Some(utc("2026-10-25T00:30:00Z"))
        );
    }
}
