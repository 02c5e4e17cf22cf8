//! What a run takes from person memory: the cards its block carries, the read tools its agent
//! holds, and its reads, which go through the same gate as Refresh (who may read, the kill switch,
//! the hourly limit) and keep what they read as the person's cards.

use super::*;
use crate::cards::access::{DataLabel, RunningAgent};
use crate::cards::select::{
    question_terms, select_cards, wants_padding, Candidate, Selection, PAD_TO, READ_PADS_BELOW,
};
use crate::cards::store::KeptForQuestion;
use crate::runs::block::BlockCard;
use std::collections::HashSet;

/// A kept card a run may be shown, with its connector and its class.
type Shown = (Card, CardUse, Arc<Connector>, DataLabel);

/// The person's cards a question names, read before the run's agent is known: see
/// [`PersonMemory::read_cards_for_run`].
pub(crate) struct CardsRead {
    terms: Vec<String>,
    kept: Vec<KeptForQuestion>,
    deciding: super::views::Deciding,
}

/// A tool a run's agent may call: a ticked tool of a connector its toolsets hold. A read runs in
/// the run; a tool that acts waits in the person's Inbox.
#[derive(Debug, Clone, PartialEq)]
pub struct RunTool {
    pub connector: i64,
    pub connector_name: String,
    pub tool: String,
    pub description: String,
    pub parameters: Value,
    pub acts: bool,
}

/// What a read in a run returned, and what it tells the run about its data.
#[derive(Debug, Clone, PartialEq)]
pub struct RunRead {
    pub value: Value,
    pub label: DataLabel,
    pub source: String,
    /// The read returned text someone outside wrote (a free-text field of the tool's shape).
    pub outside_text: bool,
    pub kept: usize,
}

/// Of the cards shown to a run, those its question's selection may load: the ones sharing a term
/// with the question, and of the others the strongest pinned and open-work cards, enough to pad.
/// The selection made from these is the one made from all of them (a property test in `select`
/// holds it to that).
fn candidates_of<T>(
    shown: Vec<(Card, CardUse, T, DataLabel)>,
    named: &HashSet<i64>,
    now: DateTime<Utc>,
) -> Vec<(Card, CardUse, T, DataLabel)> {
    let mut pad: Vec<(f64, i64)> = shown
        .iter()
        .filter(|(card, u, ..)| !named.contains(&card.id) && (u.pinned || card.open_work))
        .map(|(card, u, ..)| (rank_score(u.summary.activation(now), u.pinned, card.open_work), card.id))
        .collect();
    pad.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let pad: HashSet<i64> = pad.into_iter().take(PAD_TO).map(|(_, id)| id).collect();
    shown.into_iter().filter(|(card, ..)| named.contains(&card.id) || pad.contains(&card.id)).collect()
}

/// A run's agent may be given a connector's data only up to the label its model is cleared for.
pub(super) fn cleared(c: &Connector, agent: &RunningAgent) -> Result<(), String> {
    if c.label > agent.cleared_for {
        return Err(format!(
            "{} holds {} data, and this agent's model is cleared for {} data",
            c.name,
            c.label.as_str(),
            agent.cleared_for.as_str()
        ));
    }
    Ok(())
}

impl PersonMemory {
    /// The cards a run acting for `person` carries for `question`: each decided now for the person
    /// and the agent, selected by match and use, with what the block needs to quote them. The flag
    /// says a free-text field loads.
    pub async fn cards_for_run(
        &self,
        person: &Person,
        question: &str,
        agent: &RunningAgent,
    ) -> Result<(Vec<BlockCard>, bool), MemoryError> {
        let read = self.read_cards_for_run(person, question).await?;
        self.cards_from_read(person, question, agent, read).await
    }

    /// What `cards_for_run` reads from the store first: the person's cards `question` names, with
    /// the ones that may pad when it names few, and what deciding them needs. None of it depends
    /// on the agent, so a run reads it while it reads the agent.
    pub(crate) async fn read_cards_for_run(&self, person: &Person, question: &str) -> Result<CardsRead, MemoryError> {
        let terms = question_terms(question);
        let (kept, deciding) = futures_util::try_join!(
            async { Ok(self.store.kept_for_question(person.id, &terms, READ_PADS_BELOW as u32).await?) },
            self.deciding(person)
        )?;
        Ok(CardsRead { terms, kept, deciding })
    }

    /// `cards_for_run` from what `read_cards_for_run` read for the same person and question.
    pub(crate) async fn cards_from_read(
        &self,
        person: &Person,
        question: &str,
        agent: &RunningAgent,
        read: CardsRead,
    ) -> Result<(Vec<BlockCard>, bool), MemoryError> {
        let CardsRead { terms, kept, deciding } = read;
        let pads_read = kept.iter().filter(|k| k.named).count() < READ_PADS_BELOW;
        let (mut shown, mut selection) = self.select_for_run(person, question, agent, &deciding, kept).await?;
        // The cards that pad were left unread, as the question named many cards; too few of
        // them matched, so the selection is made again with those cards.
        if !pads_read && wants_padding(&selection) {
            let kept = self.store.kept_for_question(person.id, &terms, u32::MAX).await?;
            (shown, selection) = self.select_for_run(person, question, agent, &deciding, kept).await?;
        }
        let cards = selection
            .cards
            .into_iter()
            .filter_map(|s| {
                let (card, _, c, class) = shown.iter().find(|(card, ..)| card.id == s.card_id)?;
                Some(BlockCard {
                    card: card.id,
                    kind: card.kind.clone(),
                    record_id: card.record_id.clone(),
                    source: c.name.clone(),
                    read_at: card.read_at,
                    fields: s.fields,
                    label: *class,
                })
            })
            .collect();
        Ok((cards, selection.review_mode))
    }

    /// The selection for a run's question from the kept cards read for it, each decided now for
    /// the person and the agent, with the cards it was made from.
    async fn select_for_run(
        &self,
        person: &Person,
        question: &str,
        agent: &RunningAgent,
        deciding: &super::views::Deciding,
        kept: Vec<KeptForQuestion>,
    ) -> Result<(Vec<Shown>, Selection), MemoryError> {
        let now = self.now();
        let named: HashSet<i64> = kept.iter().filter(|k| k.named).map(|k| k.card.id).collect();
        // Each card the run may load is decided now, and what must go goes; the person's other
        // cards are decided when something next reads them.
        let kept = kept.into_iter().map(|k| (k.card, k.usage)).collect();
        let mut shown = candidates_of(self.settle_of(person, Some(agent), deciding, kept).await?, &named, now);
        // Each card's fields move to the selection, which hands back those that load.
        let candidates: Vec<_> = shown
            .iter_mut()
            .map(|(card, u, _, _)| Candidate {
                card_id: card.id,
                score: rank_score(u.summary.activation(now), u.pinned, card.open_work),
                record_id: card.record_id.clone(),
                fields: std::mem::take(&mut card.fields),
                pinned: u.pinned,
                open_work: card.open_work,
            })
            .collect();
        let selection = select_cards(question, &candidates);
        Ok((shown, selection))
    }

    /// The ticked tools the agent's toolsets hold, reads and tools that act, as each live
    /// connector lists them. A connector that cannot list its tools now is left out, and logged.
    pub async fn run_tools(&self, agent: &RunningAgent) -> Result<Vec<RunTool>, MemoryError> {
        let mut out = Vec::new();
        for id in &agent.holds_toolsets {
            let Some(c) = self.store.connector(*id).await? else { continue };
            if c.killed || (c.ticked.is_empty() && c.acting.is_empty()) || c.label > agent.cleared_for {
                continue;
            }
            let Some(key) = self.store.company_key(c.id).await? else { continue };
            let listed = match self.source.tools(&c.base_url, &key).await {
                Ok(t) => t,
                Err(e) => {
                    tracing::warn!(connector = c.id, error = %e, "the connector's tools were not listed for a run");
                    continue;
                }
            };
            let ticked = |t: &crate::cards::source::ToolInfo| match t.access.as_str() {
                "read" => c.ticked.contains(&t.name),
                "write" => c.acting.contains(&t.name),
                _ => false,
            };
            for t in listed.into_iter().filter(ticked) {
                out.push(RunTool {
                    connector: c.id,
                    connector_name: c.name.clone(),
                    acts: t.access == "write",
                    tool: t.name,
                    description: t.description,
                    parameters: t.parameters,
                });
            }
        }
        Ok(out)
    }

    /// Carries out a tool that acts, approved by the person a run acted for, through the same
    /// gate as a run's reads, decided now: the agent still holds the toolset and the tool is
    /// still ticked, the connector's label, kill switch and hourly limit, and the key the person
    /// reads with. What it returns is not kept. The refusal is a sentence for the Inbox.
    pub async fn act_for_person(
        &self,
        person: &Person,
        agent: &RunningAgent,
        connector: i64,
        tool: &str,
        args: &Value,
    ) -> Result<Value, String> {
        let c = self.connector(connector).await.map_err(|e| e.to_string())?;
        if !agent.holds_toolsets.contains(&c.id) || !c.acting.iter().any(|t| t == tool) {
            return Err(format!("{tool} is no longer a tool this agent holds"));
        }
        cleared(&c, agent)?;
        if let Some(target) = c.write_targets.iter().find(|t| t.tool == tool) {
            self.read_before_write(person, &c, target, args).await?;
        }
        let (_, key) = self.key_for(&c, tool, person).await.map_err(|r| r.to_string())?;
        match self.call(&c, &key, tool, args, "act").await.map_err(|r| r.to_string())? {
            Ok(v) => Ok(v),
            Err(SourceError::Forbidden) => Err(refused_read(&c)),
            Err(e) => Err(format!("{}: {e}", c.name)),
        }
    }

    /// A change with a write target reads its record first, as the person, with the get tool of
    /// a confirmed read shape of that kind. It goes ahead only if the record is as the person last
    /// read it: the same version (or, with no version, the same fields).
    async fn read_before_write(
        &self,
        person: &Person,
        c: &Connector,
        target: &crate::cards::source::WriteTarget,
        args: &Value,
    ) -> Result<(), String> {
        let id = match args.get(&target.id_argument) {
            Some(Value::String(s)) if !s.trim().is_empty() => s.trim().to_string(),
            Some(Value::Number(n)) => n.to_string(),
            _ => return Err(format!("the change names no {} in {}", target.kind, target.id_argument)),
        };
        let shapes = self.store.shapes(c.id).await.map_err(|e| e.to_string())?;
        let Some(shape) = shapes.into_iter().find(|s| s.confirmed && s.kind == target.kind) else {
            return Err(format!("{} has no confirmed read shape of {} records", c.name, target.kind));
        };
        let last = self
            .store
            .kept(person.id)
            .await
            .map_err(|e| e.to_string())?
            .into_iter()
            .map(|(card, _)| card)
            .find(|card| card.connector == c.id && card.kind == target.kind && card.record_id == id);
        let named = |fields: &[CardField]| {
            ["company", "name", "title", "subject"]
                .iter()
                .find_map(|n| fields.iter().find(|f| f.name == *n && !f.value.trim().is_empty()))
                .map(|f| f.value.clone())
        };
        let mut name = last.as_ref().and_then(|card| named(&card.fields)).unwrap_or_else(|| id.clone());
        let key = match self.key_for(c, &shape.get_tool, person).await {
            Ok((_, key)) => key,
            Err(r) => return Err(format!("{name} could not be read before the change: {r}")),
        };
        let read = serde_json::json!({ shape.id_field.clone(): id });
        let record = match self.call(c, &key, &shape.get_tool, &read, "act").await {
            Err(refusal) => return Err(format!("{name} could not be read before the change: {refusal}")),
            Ok(Err(SourceError::NotFound)) => return Err(format!("{name} is no longer at {}", c.name)),
            Ok(Err(SourceError::Forbidden)) => {
                return Err(format!("{name} could not be read before the change: {}", refused_read(c)))
            }
            Ok(Err(e)) => return Err(format!("{name} could not be read before the change: {}: {e}", c.name)),
            Ok(Ok(record)) => record,
        };
        let Some(now) = keep_fields(&shape, &record) else {
            return Err(format!("{name} could not be read before the change: {} answered it without its id", c.name));
        };
        if last.is_none() {
            name = named(&now.fields).unwrap_or(name);
        }
        let same = last.is_some_and(|card| match (&card.version, &now.version) {
            (Some(before), Some(after)) => before == after,
            _ => now.fields.iter().all(|f| card.fields.iter().any(|o| o.name == f.name && o.value == f.value)),
        });
        if same {
            Ok(())
        } else {
            Err(format!("{name} changed since it was read; read it again"))
        }
    }

    /// One tool call of a run. Acting for a person, it reads as they would and keeps what the
    /// tool's confirmed shape keeps, and a list read keeps its snapshot as the answer to
    /// `question`; acting for nobody, it reads only with the company key and keeps nothing. The
    /// refusal is a sentence for the run's step.
    pub async fn read_for_run(
        &self,
        person: Option<&Person>,
        agent: &RunningAgent,
        connector: i64,
        tool: &str,
        args: &Value,
        question: &str,
    ) -> Result<RunRead, String> {
        let c = self.connector(connector).await.map_err(|e| e.to_string())?;
        if !agent.holds_toolsets.contains(&c.id) || c.reads_with(tool).is_none() {
            return Err(format!("{tool} is not a read tool this agent holds"));
        }
        cleared(&c, agent)?;
        let (kind, key) = match person {
            Some(p) => self.key_for(&c, tool, p).await.map_err(|r| r.to_string())?,
            None if c.reads_with(tool) == Some(KeyKind::Company) => (KeyKind::Company, ReadKey::Company),
            None => return Err(format!("{} reads with people's keys, and this run acts for nobody", c.name)),
        };
        let value = match self.call(&c, &key, tool, args, "run").await.map_err(|r| r.to_string())? {
            Ok(v) => v,
            Err(SourceError::Forbidden) => return Err(refused_read(&c)),
            Err(e) => return Err(format!("{}: {e}", c.name)),
        };
        let shape = self
            .store
            .shapes(c.id)
            .await
            .map_err(|e| e.to_string())?
            .into_iter()
            .find(|s| s.tool == tool && s.confirmed);
        let records: Vec<Value> = match value.get("records").and_then(Value::as_array) {
            Some(list) => list.clone(),
            None => vec![value.clone()],
        };
        let outside_text = shape.as_ref().is_some_and(|shape| {
            records
                .iter()
                .any(|r| shape.fields.iter().any(|f| f.free_text && r.get(&f.name).is_some_and(|v| !v.is_null())))
        });
        let mut kept = 0;
        if let (Some(p), Some(shape)) = (person, shape.as_ref()) {
            let weight = use_weight(records.len());
            for r in &records {
                if self.keep(p, &c, shape, kind, r, reading::Keeping::Read(weight)).await.map_err(|e| e.to_string())? {
                    kept += 1;
                }
            }
            if super::lists::is_list(shape) && value.get("records").is_some() {
                self.keep_snapshot(p, &c, shape, args, question, &records).await;
            }
        }
        Ok(RunRead { value, label: c.label, source: c.name.clone(), outside_text, kept })
    }
}
