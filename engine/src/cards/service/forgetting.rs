//! Forgetting: a person forgets a card for 30 days or pins it back, and the daily job drops what
//! has not been used within its connector's hard limit.

use super::reading::Keeping;
use super::*;

pub const FORGET_DAYS: i64 = 30;

/// The forgetting job runs from this hour in the company's zone.
pub const FORGETTING_HOUR: u32 = 2;

/// One record the person forgot, on their page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ForgottenView {
    pub connector: i64,
    pub kind: String,
    pub record_id: String,
    /// "lead L-104 · Acme ATS · forgotten 2 days ago · kept out until 30 Dec"
    pub line: String,
}

impl CardReads {
    /// Removes the card from the person's memory and keeps the record out for 30 days.
    pub async fn forget(&self, person: &Person, card: i64) -> Result<(), MemoryError> {
        let (c, _) = self.reads.own_use(person, card).await?;
        let actor = self.reads.actor(Some(person.id));
        self.store
            .forget(person.id, &c, self.reads.now() + Duration::days(FORGET_DAYS), actor)
            .await
            .map_err(Into::into)
    }

    /// The records the person forgot that are still kept out, so they can pin one back.
    pub async fn forgotten(&self, person: &Person) -> Result<Vec<ForgottenView>, MemoryError> {
        let now = self.reads.now();
        let connectors = self.store.connectors().await?;
        let zone = zone_of(&*self.store, person.id).await?;
        Ok(self
            .store
            .forgotten(person.id, now)
            .await?
            .into_iter()
            .map(|f| {
                let source = connectors.iter().find(|c| c.id == f.connector).map(|c| c.name.as_str()).unwrap_or("?");
                ForgottenView {
                    line: format!(
                        "{} {} · {source} · forgotten {} · kept out until {}",
                        f.kind,
                        f.record_id,
                        age_words(f.forgotten_at, now),
                        f.until.with_timezone(&zone).format("%-d %b")
                    ),
                    connector: f.connector,
                    kind: f.kind,
                    record_id: f.record_id,
                }
            })
            .collect())
    }

    /// Pins a forgotten record back: it is read again from its source, as the person, and kept
    /// pinned; the forget is closed with a reason. A read that cannot be made changes nothing.
    pub async fn pin_back(
        &self,
        person: &Person,
        connector: i64,
        kind: &str,
        record_id: &str,
    ) -> Result<String, MemoryError> {
        let now = self.reads.now();
        let f = self
            .store
            .forgotten(person.id, now)
            .await?
            .into_iter()
            .find(|f| f.connector == connector && f.kind == kind && f.record_id == record_id)
            .ok_or_else(|| {
                MemoryError::NotFound("You have not forgotten that record, or its 30 days are over".into())
            })?;
        let c = self.reads.connector(connector).await?;
        let not_pinned = |why: String| MemoryError::Invalid(format!("Not pinned: {why}; it stays forgotten"));
        let shapes = self.store.shapes(c.id).await?;
        let shape = shapes
            .iter()
            .find(|s| s.confirmed && s.tool == f.tool)
            .or_else(|| shapes.iter().find(|s| s.confirmed && s.kind == f.kind))
            .cloned()
            .ok_or_else(|| not_pinned(format!("{} no longer has a shape for {}", c.name, f.kind)))?;
        let (key_kind, key) =
            self.reads.key_for(&c, &shape.get_tool, person).await.map_err(|r| not_pinned(r.to_string()))?;
        let args = serde_json::json!({ shape.id_field.clone(): f.record_id });
        let record = match self.reads.call(&c, &key, &shape.get_tool, &args, "pin").await {
            Err(refusal) => return Err(not_pinned(refusal.to_string())),
            Ok(Err(SourceError::NotFound)) => {
                return Err(not_pinned(format!("{} {} is no longer at {}", f.kind, f.record_id, c.name)))
            }
            Ok(Err(SourceError::Forbidden)) => return Err(not_pinned(refused_read(&c))),
            Ok(Err(e)) => return Err(not_pinned(format!("{}: {e}", c.name))),
            Ok(Ok(record)) => record,
        };
        if !self.reads.keep(person, &c, &shape, key_kind, &record, Keeping::PinBack).await? {
            return Err(not_pinned(format!("{} keeps no cards of this record", c.name)));
        }
        let actor = self.reads.actor(Some(person.id));
        self.store.lift_forget(person.id, &f, "pinned back by the person", actor).await?;
        Ok(format!("Pinned {} {} back, read again from {}", f.kind, f.record_id, c.name))
    }
}

impl Prepare {
    /// Once a day, from 02:00 in the company's zone: drops each person's use of a card they have
    /// not used within its connector's hard limit, then the cards nobody keeps any more. Returns
    /// how many uses and cards went, or `None` when it is not due.
    pub async fn forgetting_due(&self) -> Result<Option<(u32, u32)>, MemoryError> {
        let now = self.reads.now();
        let company = self.store.company().await?;
        let zone: chrono_tz::Tz = company
            .map(|c| c.time_zone.as_str().to_string())
            .unwrap_or_else(|| "UTC".into())
            .parse()
            .unwrap_or(chrono_tz::UTC);
        let local = now.with_timezone(&zone);
        let today = local.date_naive().to_string();
        // Claimed before the work, so of several servers on one database only one runs it. A run
        // that fails partway is logged by the caller and not tried again until the next day.
        if local.time() < NaiveTime::from_hms_opt(FORGETTING_HOUR, 0, 0).unwrap_or(NaiveTime::MIN)
            || !self.store.claim_job_run("forgetting", &today).await?
        {
            return Ok(None);
        }
        let connectors = self.store.connectors().await?;
        let mut readers: std::collections::HashMap<PersonId, Option<Reader>> = Default::default();
        let mut removed_cards = std::collections::HashSet::new();
        let mut uses = 0;
        for (card, u) in self.store.all_uses().await? {
            let Some(c) = connectors.iter().find(|c| c.id == card.connector) else { continue };
            if removed_cards.contains(&card.id) {
                continue;
            }
            if let std::collections::hash_map::Entry::Vacant(slot) = readers.entry(u.person) {
                let reader = match self.store.person(u.person).await? {
                    Some(p) if p.left_at.is_none() => Some(self.reads.reader(&p).await?),
                    _ => None,
                };
                slot.insert(reader);
            }
            // Someone who left keeps nothing; someone no longer admitted loses their place.
            let decision = match readers.get(&u.person).cloned().flatten() {
                Some(reader) => decide(&card.origin(), &c.toolset_now(&card.tool), &reader, None),
                None => Decision::DropUse,
            };
            let reason = match decision {
                Decision::Remove => {
                    self.store.remove_card(card.id, &removal_reason(c, &card), self.reads.actor(None)).await?;
                    removed_cards.insert(card.id);
                    continue;
                }
                Decision::DropUse => format!("no longer admitted to {}", c.name),
                _ if !u.pinned && now - u.last_use > Duration::minutes(i64::from(c.hard_mins())) => {
                    format!("not used within {}'s hard limit", c.name)
                }
                _ => continue,
            };
            self.store.remove_use(u.person, card.id, &reason, self.reads.actor(None)).await?;
            uses += 1;
        }
        let cards = removed_cards.len() as u32 + self.store.remove_unkept_cards(self.reads.actor(None)).await?;
        Ok(Some((uses, cards)))
    }
}
