//! List snapshots as person memory keeps them: a list read made as a person keeps which records
//! it returned; a question that asks it again loads the snapshot (and, through its record ids,
//! its cards); and the check after the answer runs the query once more, as the person, through
//! the same gate as the run's own reads, and keeps what it found.

use super::*;
use crate::cards::access::RunningAgent;
use crate::cards::loaded::ListChecked;
use crate::cards::loaded::LoadedSnapshot;
use crate::cards::snapshots::{snapshots_for, ListChange, ListSnapshot, NewSnapshot, SNAPSHOT_RECORDS};

/// The ids of the records a list returned, in its order, as its shape names them.
fn listed_ids(shape: &RecordShape, records: &[Value]) -> Vec<String> {
    let mut ids: Vec<String> = Vec::new();
    for id in records.iter().filter_map(|r| keep_fields(shape, r)).map(|r| r.id) {
        if !ids.contains(&id) && ids.len() < SNAPSHOT_RECORDS {
            ids.push(id);
        }
    }
    ids
}

impl Reads {
    /// Keeps a snapshot of a list read as the person, answering `asked`. A failure is logged and
    /// the read stands: a snapshot is memory, never the read itself.
    pub(super) async fn keep_snapshot(
        &self,
        person: &Person,
        c: &Connector,
        shape: &RecordShape,
        args: &Value,
        asked: &str,
        records: &[Value],
    ) {
        let s = NewSnapshot {
            person: person.id,
            connector: c.id,
            tool: shape.tool.clone(),
            arguments: args.clone(),
            asked: asked.trim().to_string(),
            records: listed_ids(shape, records),
            taken_at: self.now(),
        };
        if let Err(e) = self.store.keep_snapshot(&s).await {
            tracing::warn!(person = %person.id, connector = c.id, error = %e, "a list snapshot was not kept");
        }
    }
}

impl RunCards {
    /// The list snapshots kept for `person`, read for a run before its agent is known.
    pub(crate) async fn kept_snapshots(&self, person: &Person) -> Result<Vec<ListSnapshot>, MemoryError> {
        Ok(self.store.snapshots_of(person.id).await?)
    }

    /// Of the snapshots kept for `person`, those a run loads for `question`: those it asks again,
    /// of connectors the agent holds and whose toolset still admits the person.
    pub async fn snapshots_for_run(
        &self,
        person: &Person,
        question: &str,
        agent: &RunningAgent,
        kept: &[ListSnapshot],
    ) -> Result<Vec<LoadedSnapshot>, MemoryError> {
        let mut out = Vec::new();
        for s in snapshots_for(question, kept) {
            if !agent.holds_toolsets.contains(&s.connector) {
                continue;
            }
            let c = self.reads.connector(s.connector).await?;
            if self.reads.key_for(&c, &s.tool, person).await.is_err() {
                continue;
            }
            out.push(LoadedSnapshot {
                id: s.id,
                connector: c.id,
                source: c.name.clone(),
                asked: s.asked.clone(),
                tool: s.tool.clone(),
                arguments: s.arguments.clone(),
                records: s.records.clone(),
                taken_at: s.taken_at,
                label: c.label,
            });
        }
        Ok(out)
    }

    /// Runs each shown snapshot's query once more, as the person and through the same gate as
    /// the run's reads, and keeps what it returned as the snapshot's successor. The read counts
    /// as no use of any card.
    pub async fn check_lists(
        &self,
        person: &Person,
        agent: &RunningAgent,
        shown: &[LoadedSnapshot],
    ) -> Result<Vec<ListChecked>, MemoryError> {
        let mut out = Vec::new();
        for s in shown {
            let c = self.reads.connector(s.connector).await?;
            let outcome = self.read_list_again(person, agent, &c, s).await;
            out.push(ListChecked { snapshot: s.id, asked: s.asked.clone(), source: c.name.clone(), outcome });
        }
        Ok(out)
    }

    async fn read_list_again(
        &self,
        person: &Person,
        agent: &RunningAgent,
        c: &Connector,
        s: &LoadedSnapshot,
    ) -> Result<ListChange, MemoryError> {
        if !agent.holds_toolsets.contains(&c.id) {
            return Err(MemoryError::NotAllowed(format!("this agent no longer holds {}", c.name)));
        }
        cleared(c, agent)?;
        let shapes = self.store.shapes(c.id).await?;
        let Some(shape) = shapes.into_iter().find(|x| x.tool == s.tool && x.confirmed) else {
            return Err(MemoryError::NotFound(format!("{} is no longer a confirmed list of {}", s.tool, c.name)));
        };
        let (_, key) = self.reads.key_for(c, &s.tool, person).await?;
        let value =
            self.reads.call(c, &key, &s.tool, &s.arguments, CHECK_READ).await?.map_err(|e| source_failed(c, e))?;
        // An answer that is not a list says nothing of what is gone.
        let Some(records) = value.get("records").and_then(Value::as_array).cloned() else {
            return Err(MemoryError::Invalid(format!("{} did not answer {} with a list", c.name, s.tool)));
        };
        let now = listed_ids(&shape, &records);
        let change = ListChange::between(&s.records, &now);
        self.reads.keep_snapshot(person, c, &shape, &s.arguments, &s.asked, &records).await;
        Ok(change)
    }
}
