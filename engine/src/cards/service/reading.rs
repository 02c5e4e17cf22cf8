//! Reading as a person: a read through a connector's confirmed shape keeps its records as cards,
//! and Refresh reads one card again.

use super::*;
use crate::cards::facts::FactKind;
use crate::cards::keep::Keep;

/// How a record comes to be kept: by a read, weighed by how many records it returned, or by the
/// person pinning back a record they forgot.
#[derive(Debug, Clone, Copy)]
pub(in crate::cards::service) enum Keeping {
    Read(f64),
    PinBack,
}

impl CardReads {
    /// Reads with a tool as the person and keeps what its confirmed shape keeps. Returns how many
    /// records were kept; a tool with no confirmed shape keeps nothing.
    pub async fn read_as(
        &self,
        person: &Person,
        connector: i64,
        tool: &str,
        args: &Value,
        purpose: &str,
    ) -> Result<usize, MemoryError> {
        self.reads.read_as_answering(person, connector, tool, args, purpose, None).await
    }

    /// Reads the card again from its source, as the person and with the key it was kept with.
    pub async fn refresh(&self, person: &Person, card: i64) -> Result<RefreshOutcome, MemoryError> {
        let (card, _) = self.reads.own_use(person, card).await?;
        let c = self.reads.connector(card.connector).await?;
        Ok(self.reads.reread(person, &c, &card, None, "refresh").await?.0)
    }
}

impl Reads {
    /// The same; a list read that answers something (a "my work" query's label) also keeps its
    /// snapshot.
    pub(super) async fn read_as_answering(
        &self,
        person: &Person,
        connector: i64,
        tool: &str,
        args: &Value,
        purpose: &str,
        asked: Option<&str>,
    ) -> Result<usize, MemoryError> {
        let c = self.connector(connector).await?;
        if c.reads_with(tool).is_none() {
            return Err(MemoryError::NotAllowed(format!("{tool} is not a ticked read tool of {}", c.name)));
        }
        let (kind, key) = self.key_for(&c, tool, person).await?;
        let value = self.call(&c, &key, tool, args, purpose).await?.map_err(|e| source_failed(&c, e))?;
        let shapes = self.store.shapes(c.id).await?;
        let Some(shape) = shapes.into_iter().find(|s| s.tool == tool && s.confirmed) else { return Ok(0) };
        let listed = value.get("records").is_some();
        let records: Vec<Value> = match value.get("records").and_then(Value::as_array) {
            Some(list) => list.clone(),
            None => vec![value],
        };
        let weight = use_weight(records.len());
        let mut kept = 0;
        for r in &records {
            if self.keep(person, &c, &shape, kind, r, Keeping::Read(weight)).await? {
                kept += 1;
            }
        }
        if let Some(asked) = asked.filter(|_| listed && is_list(&shape)) {
            self.keep_snapshot(person, &c, &shape, args, asked, &records).await;
        }
        Ok(kept)
    }

    /// Keeps one record for the person: the store finds or makes its card, records the use and
    /// holds the cap, all in one transaction (see [`crate::cards::keep`]).
    pub(super) async fn keep(
        &self,
        person: &Person,
        c: &Connector,
        shape: &RecordShape,
        kind: KeyKind,
        record: &Value,
        how: Keeping,
    ) -> Result<bool, MemoryError> {
        let (weight, pin_back) = match how {
            Keeping::Read(weight) => (weight, false),
            Keeping::PinBack => (1.0, true),
        };
        if !c.keep_cards {
            return Ok(false);
        }
        let Some(read) = keep_fields(shape, record) else { return Ok(false) };
        let now = self.now();
        let open_when = self.store.open_when(c.id, &shape.tool).await?;
        let keep = Keep {
            person: person.id,
            card: NewCard {
                connector: c.id,
                tool: shape.tool.clone(),
                kind: shape.kind.clone(),
                record_id: read.id,
                version: read.version,
                fields: read.fields,
                missing: read.missing,
                read_with: kind,
                read_as: kind.is_personal().then_some(person.id),
                label_when_read: c.label,
                open_when,
                read_at: now,
            },
            weight,
            pin_back,
            at: now,
        };
        self.store.keep_card(&keep, self.actor(None)).await.map_err(Into::into)
    }

    /// Reads a card's record again with its shape's get tool, as the person and only with the
    /// key it was kept with, through the same gate as any read; keeps what was read without
    /// counting a use. What was read is compared with `shown` (the values an answer was given;
    /// the card's own when `None`): only those fields can be changes, and only those the source
    /// returned, since a field it left out is unknown. Also returns, per kind of structured fact
    /// compared, whether one of its fields changed.
    pub(super) async fn reread(
        &self,
        person: &Person,
        c: &Connector,
        card: &Card,
        shown: Option<&[CardField]>,
        purpose: &str,
    ) -> Result<(RefreshOutcome, Vec<(FactKind, bool)>), MemoryError> {
        let not_checked = |why: String| Ok((RefreshOutcome::NotChecked(why), vec![]));
        let shape = self.store.shapes(c.id).await?.into_iter().find(|s| s.tool == card.tool);
        let Some(shape) = shape else {
            return not_checked(format!("{} no longer has a shape for {}", c.name, card.tool));
        };
        let get_tool = shape.get_tool.clone();
        let now_kind = c.reads_with(&get_tool);
        if now_kind != Some(card.read_with) {
            return not_checked(format!(
                "reading it again would need another key than the one it was kept with ({})",
                card.read_with.as_str().replace('_', " ")
            ));
        }
        if card.read_with.is_personal() && card.read_as != Some(person.id) {
            return not_checked("it was read as someone else".into());
        }
        let key = match self.key_for(c, &get_tool, person).await {
            Ok((_, k)) => k,
            Err(r) => return not_checked(r.to_string()),
        };
        let args = serde_json::json!({ shape.id_field.clone(): card.record_id });
        let result = match self.call(c, &key, &get_tool, &args, purpose).await {
            Ok(r) => r,
            Err(refusal) => return not_checked(refusal.to_string()),
        };
        match result {
            Ok(record) => {
                let Some(read) = keep_fields(&shape, &record) else {
                    return not_checked(format!("{} answered a record without its id", c.name));
                };
                let (changes, kinds) =
                    crate::cards::loaded::compare_fields(shown.unwrap_or(&card.fields), &read.fields, shown.is_some());
                let open_when = self.store.open_when(c.id, &shape.tool).await?;
                self.store
                    .upsert_card(&NewCard {
                        connector: c.id,
                        tool: card.tool.clone(),
                        kind: card.kind.clone(),
                        record_id: card.record_id.clone(),
                        version: read.version,
                        open_when,
                        fields: read.fields,
                        missing: read.missing,
                        read_with: card.read_with,
                        read_as: card.read_as,
                        label_when_read: card.label_when_read.max(c.label),
                        read_at: self.now(),
                    })
                    .await?;
                Ok((RefreshOutcome::changed(changes), kinds))
            }
            Err(SourceError::NotFound) => {
                let reason = format!("gone at {}", c.name);
                self.store.remove_card(card.id, &reason, self.actor(Some(person.id))).await?;
                Ok((RefreshOutcome::Gone(c.name.clone()), vec![]))
            }
            Err(SourceError::Forbidden) => {
                // They lost access at the source: their place on the card goes. The record may
                // well still exist, so nothing says it is gone.
                let reason = format!("{} refused their read", c.name);
                self.store.remove_use(person.id, card.id, &reason, self.actor(Some(person.id))).await?;
                not_checked(refused_read(c))
            }
            // A source that is down never removes anything.
            Err(e) => not_checked(format!("{}: {e}", c.name)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refresh_outcomes_read_as_the_seed_words_them() {
        let c = RefreshOutcome::Changed(vec![FieldChange {
            name: "stage".into(),
            before: "Qualified".into(),
            after: "Proposal".into(),
        }]);
        assert_eq!(c.sentence(), "changed: stage (Qualified → Proposal)");
        assert_eq!(RefreshOutcome::NoChange.sentence(), "no change");
        assert_eq!(RefreshOutcome::Gone("Acme ATS".into()).sentence(), "no longer at Acme ATS");
        assert_eq!(
            RefreshOutcome::NotChecked("Acme ATS is switched off".into()).sentence(),
            "not checked: Acme ATS is switched off"
        );
    }
}
