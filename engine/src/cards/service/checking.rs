//! The check after an answer, as person memory makes it: of the cards a run's block showed, only
//! the structured fields past their kind's soft limit are due, and each due record is read again
//! once, as the person, grouped per source, through the same gate as the run's own reads. These
//! reads count as no use of the card. A record read again since the block was made (by the run
//! itself, most often) needs no read: what the block showed is compared with what was read.

use super::*;
use crate::cards::access::RunningAgent;
use crate::cards::loaded::CardChecked;
use crate::cards::loaded::LoadedCard;
use std::collections::HashMap;

/// A shown card the check looks at, with the connector that reads it.
struct Due {
    card: Card,
    connector: Connector,
    /// The structured fields as the block showed them: what the check compares.
    shown: Vec<CardField>,
    /// Read again since the block was made: compared with what the card holds, not read.
    read_since: bool,
}

impl RunCards {
    /// Of the cards a block showed, those read again since, and those with a structured field
    /// past its soft limit now, in the block's order grouped per source. Reads no source.
    async fn due_cards(&self, shown: &[LoadedCard]) -> Result<Vec<Due>, MemoryError> {
        let now = self.reads.now();
        let mut connectors: HashMap<i64, Connector> = HashMap::new();
        let mut due = Vec::new();
        for b in shown {
            // Removed since the block was made (forgotten, gone): nothing left to check.
            let Some(card) = self.store.card(b.card).await? else { continue };
            let c = match connectors.get(&card.connector) {
                Some(c) => c.clone(),
                None => {
                    let c = self.reads.connector(card.connector).await?;
                    connectors.insert(c.id, c.clone());
                    c
                }
            };
            let shown: Vec<CardField> = b.fields.iter().filter(|f| !f.free_text).cloned().collect();
            // Read again since: later, or (within the same instant) holding other values.
            let read_since = card.read_at > b.read_at
                || !crate::cards::loaded::compare_fields(&shown, &card.fields, true).0.is_empty();
            if read_since || shown.iter().any(|f| c.due(f, b.read_at, now)) {
                due.push(Due { card, connector: c, shown, read_since });
            }
        }
        due.sort_by_key(|d| d.connector.id);
        Ok(due)
    }

    /// Whether any card the block showed is due for a check now.
    pub async fn any_due(&self, shown: &[LoadedCard]) -> Result<bool, MemoryError> {
        Ok(!self.due_cards(shown).await?.is_empty())
    }

    /// Reads again each due record the block showed, once, as the person and with the key it was
    /// kept with. A record the agent may no longer be given is "not checked", never read.
    pub async fn check_cards(
        &self,
        person: &Person,
        agent: &RunningAgent,
        shown: &[LoadedCard],
    ) -> Result<Vec<CardChecked>, MemoryError> {
        let mut out = Vec::new();
        for d in self.due_cards(shown).await? {
            let c = &d.connector;
            // The agent's hold on the toolset is decided now, before any value is shown again.
            let (outcome, compared) = if !agent.holds_toolsets.contains(&c.id) {
                (RefreshOutcome::NotChecked(format!("this agent no longer holds {}", c.name)), vec![])
            } else if let Err(why) = cleared(c, agent) {
                (RefreshOutcome::NotChecked(why.to_string()), vec![])
            } else if d.read_since {
                let (changes, kinds) = crate::cards::loaded::compare_fields(&d.shown, &d.card.fields, true);
                (RefreshOutcome::changed(changes), kinds)
            } else {
                self.reads.reread(person, c, &d.card, Some(&d.shown), CHECK_READ).await?
            };
            out.push(CardChecked {
                card: d.card.id,
                connector: c.id,
                kind: d.card.kind.clone(),
                record_id: d.card.record_id.clone(),
                source: c.name.clone(),
                compared,
                outcome,
            });
        }
        Ok(out)
    }
}
