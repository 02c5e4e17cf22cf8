//! What a run takes from person memory: the cards its block carries, the read tools its agent
//! holds, and its reads, which go through the same gate as Refresh (who may read, the kill switch,
//! the hourly limit) and keep what they read as the person's cards.

use super::*;
use crate::cards::access::{DataLabel, RunningAgent};
use crate::cards::loaded::LoadedCard;
use crate::cards::select::{
    question_terms, select_cards, wants_padding, Candidate, Selection, PAD_TO, READ_PADS_BELOW,
};
use crate::cards::source::FreshnessNow;
use crate::cards::store::KeptForQuestion;
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

/// What reading a card past its hard limit found before its run's model was asked.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ReadFirst {
    /// Read just now: the record's fields as the source returned them, and when.
    Read { fields: Vec<CardField>, at: DateTime<Utc> },
    /// No longer at its source: the card was removed.
    Gone,
    /// Not read: why, in words.
    NotRead(String),
}

/// A card past its hard limit as the block carries it once its record was read: each field the
/// selection loaded at the value just read (one the source left out is unknown now, so it is
/// left out, not shown at its old value); nothing once gone; and when it could not be read, no
/// value at all, only why.
pub(crate) fn carried_after_read(mut card: LoadedCard, read: ReadFirst) -> Option<LoadedCard> {
    match read {
        ReadFirst::Read { fields, at } => {
            card.fields = card
                .fields
                .into_iter()
                .filter_map(|f| {
                    let now = fields.iter().find(|n| n.name == f.name)?;
                    Some(CardField { value: now.value.clone(), ..f })
                })
                .collect();
            card.read_at = at;
            Some(card)
        }
        ReadFirst::Gone => None,
        ReadFirst::NotRead(why) => {
            card.fields.clear();
            card.not_read = Some(why);
            Some(card)
        }
    }
}

impl RunCards {
    /// What the agent holds and is cleared for, as a run reads it.
    pub async fn running_agent(
        &self,
        agent: crate::org::AgentId,
    ) -> Result<crate::cards::access::RunningAgent, MemoryError> {
        self.reads.running_agent(agent).await
    }

    /// The slug of the person's department role, as a run's check names it.
    pub async fn role_slug(&self, person: &Person) -> Result<Option<String>, MemoryError> {
        self.reads.role_slug(person).await
    }

    /// The cards a run acting for `person` carries for `question`: each decided now for the person
    /// and the agent, selected by match and use, with what the block needs to quote them. The flag
    /// says a free-text field loads.
    pub async fn cards_for_run(
        &self,
        person: &Person,
        question: &str,
        agent: &RunningAgent,
    ) -> Result<(Vec<LoadedCard>, bool), MemoryError> {
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
            self.reads.deciding(person)
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
    ) -> Result<(Vec<LoadedCard>, bool), MemoryError> {
        let CardsRead { terms, kept, deciding } = read;
        let pads_read = kept.iter().filter(|k| k.named).count() < READ_PADS_BELOW;
        let (mut shown, mut selection) = self.select_for_run(person, question, agent, &deciding, kept).await?;
        // The cards that pad were left unread, as the question named many cards; too few of
        // them matched, so the selection is made again with those cards.
        if !pads_read && wants_padding(&selection) {
            let kept = self.store.kept_for_question(person.id, &terms, u32::MAX).await?;
            (shown, selection) = self.select_for_run(person, question, agent, &deciding, kept).await?;
        }
        let now = self.reads.now();
        // A card past its hard limit is too old to answer from: its record is read first, and
        // the block carries what that read found.
        let picked: Vec<(LoadedCard, Option<(&Card, &Connector)>)> = selection
            .cards
            .into_iter()
            .filter_map(|s| {
                let (card, _, c, class) = shown.iter().find(|(card, ..)| card.id == s.card_id)?;
                let past_hard = c.freshness(card.read_at, now, &s.fields) == FreshnessNow::PastHard;
                let carried = LoadedCard {
                    card: card.id,
                    kind: card.kind.clone(),
                    record_id: card.record_id.clone(),
                    source: c.name.clone(),
                    read_at: card.read_at,
                    fields: s.fields,
                    label: *class,
                    not_read: None,
                };
                Some((carried, past_hard.then_some((card, c.as_ref()))))
            })
            .collect();
        // One after another, as the check after the answer reads: past-hard cards are few, as
        // every read and every check keeps what it read.
        let mut cards = Vec::with_capacity(picked.len());
        for (carried, past_hard) in picked {
            match past_hard {
                Some((card, c)) => {
                    let read = self.read_first(person, agent, c, card, &carried.fields).await;
                    cards.extend(carried_after_read(carried, read));
                }
                None => cards.push(carried),
            }
        }
        Ok((cards, selection.review_mode))
    }

    /// Reads the record of a card past its hard limit from its source, as the person, before the
    /// model is asked: the read the check after an answer makes, through the same gate (the agent
    /// still holds the connector and is cleared for it, the key the card was kept with, the kill
    /// switch and the hourly limit). What it reads is kept on the card as Refresh keeps it,
    /// without counting a use. A source that fails or is slow leaves the card not read, logged;
    /// the run goes on.
    async fn read_first(
        &self,
        person: &Person,
        agent: &RunningAgent,
        c: &Connector,
        card: &Card,
        shown: &[CardField],
    ) -> ReadFirst {
        let not_read = |why: String| {
            let (card, connector) = (card.id, c.id);
            tracing::warn!(card, connector, reason = %why, "a card past its hard limit was not read before its run");
            ReadFirst::NotRead(why)
        };
        if !agent.holds_toolsets.contains(&c.id) {
            return not_read(format!("this agent no longer holds {}", c.name));
        }
        if let Err(why) = cleared(c, agent) {
            return not_read(why.to_string());
        }
        let outcome = match self.reads.reread(person, c, card, Some(shown), "run").await {
            Ok((outcome, _)) => outcome,
            Err(e) => {
                tracing::warn!(card = card.id, error = %e, "a card past its hard limit could not be read again");
                return ReadFirst::NotRead("its record could not be read".into());
            }
        };
        match outcome {
            RefreshOutcome::Gone(_) => ReadFirst::Gone,
            RefreshOutcome::NotChecked(why) => not_read(why),
            // The card now holds what was read, and when.
            RefreshOutcome::Changed(_) | RefreshOutcome::NoChange => match self.store.card(card.id).await {
                Ok(Some(read)) => ReadFirst::Read { fields: read.fields, at: read.read_at },
                Ok(None) => ReadFirst::Gone,
                Err(e) => {
                    tracing::warn!(card = card.id, error = %e, "a card read before its run could not be loaded again");
                    ReadFirst::NotRead("its record could not be read".into())
                }
            },
        }
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
        let now = self.reads.now();
        let named: HashSet<i64> = kept.iter().filter(|k| k.named).map(|k| k.card.id).collect();
        // Each card the run may load is decided now, and what must go goes; the person's other
        // cards are decided when something next reads them.
        let kept = kept.into_iter().map(|k| (k.card, k.usage)).collect();
        let mut shown = candidates_of(self.reads.settle_of(person, Some(agent), deciding, kept).await?, &named, now);
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
    ) -> Result<Value, MemoryError> {
        let c = self.reads.connector(connector).await?;
        if !agent.holds_toolsets.contains(&c.id) || !c.acting.iter().any(|t| t == tool) {
            return Err(MemoryError::NotAllowed(format!("{tool} is no longer a tool this agent holds")));
        }
        cleared(&c, agent)?;
        if let Some(target) = c.write_targets.iter().find(|t| t.tool == tool) {
            self.read_before_write(person, &c, target, args).await?;
        }
        let (_, key) = self.reads.key_for(&c, tool, person).await?;
        match self.reads.call(&c, &key, tool, args, "act").await? {
            Ok(v) => Ok(v),
            Err(SourceError::Forbidden) => Err(MemoryError::NotAllowed(refused_read(&c))),
            Err(e) => Err(source_failed(&c, e)),
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
    ) -> Result<(), MemoryError> {
        let id = match args.get(&target.id_argument) {
            Some(Value::String(s)) if !s.trim().is_empty() => s.trim().to_string(),
            Some(Value::Number(n)) => n.to_string(),
            _ => {
                return Err(MemoryError::Invalid(format!(
                    "the change names no {} in {}",
                    target.kind, target.id_argument
                )))
            }
        };
        let shapes = self.store.shapes(c.id).await?;
        let Some(shape) = shapes.into_iter().find(|s| s.confirmed && s.kind == target.kind) else {
            return Err(MemoryError::NotFound(format!(
                "{} has no confirmed read shape of {} records",
                c.name, target.kind
            )));
        };
        let last = self
            .store
            .kept(person.id)
            .await?
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
        let unread =
            |why: String| MemoryError::NotAllowed(format!("{name} could not be read before the change: {why}"));
        let key = match self.reads.key_for(c, &shape.get_tool, person).await {
            Ok((_, key)) => key,
            Err(r) => return Err(unread(r.to_string())),
        };
        let read = serde_json::json!({ shape.id_field.clone(): id });
        let record = match self.reads.call(c, &key, &shape.get_tool, &read, "act").await {
            Err(refusal) => return Err(unread(refusal.to_string())),
            Ok(Err(SourceError::NotFound)) => {
                return Err(MemoryError::NotFound(format!("{name} is no longer at {}", c.name)))
            }
            Ok(Err(SourceError::Forbidden)) => return Err(unread(refused_read(c))),
            Ok(Err(e)) => return Err(unread(format!("{}: {e}", c.name))),
            Ok(Ok(record)) => record,
        };
        let Some(now) = keep_fields(&shape, &record) else {
            return Err(unread(format!("{} answered it without its id", c.name)));
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
            Err(MemoryError::NotAllowed(format!("{name} changed since it was read; read it again")))
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
    ) -> Result<RunRead, MemoryError> {
        let c = self.reads.connector(connector).await?;
        if !agent.holds_toolsets.contains(&c.id) || c.reads_with(tool).is_none() {
            return Err(MemoryError::NotAllowed(format!("{tool} is not a read tool this agent holds")));
        }
        cleared(&c, agent)?;
        let (kind, key) = match person {
            Some(p) => self.reads.key_for(&c, tool, p).await?,
            None if c.reads_with(tool) == Some(KeyKind::Company) => (KeyKind::Company, ReadKey::Company),
            None => {
                return Err(MemoryError::NotAllowed(format!(
                    "{} reads with people's keys, and this run acts for nobody",
                    c.name
                )))
            }
        };
        let value = match self.reads.call(&c, &key, tool, args, "run").await? {
            Ok(v) => v,
            Err(SourceError::Forbidden) => return Err(MemoryError::NotAllowed(refused_read(&c))),
            Err(e) => return Err(source_failed(&c, e)),
        };
        let shape = self.store.shapes(c.id).await?.into_iter().find(|s| s.tool == tool && s.confirmed);
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
                if self.reads.keep(p, &c, shape, kind, r, reading::Keeping::Read(weight)).await? {
                    kept += 1;
                }
            }
            if is_list(shape) && value.get("records").is_some() {
                self.reads.keep_snapshot(p, &c, shape, args, question, &records).await;
            }
        }
        Ok(RunRead { value, label: c.label, source: c.name.clone(), outside_text, kept })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn field(name: &str, value: &str, free_text: bool) -> CardField {
        CardField { name: name.into(), value: value.into(), free_text }
    }

    fn stale() -> LoadedCard {
        LoadedCard {
            card: 7,
            kind: "lead".into(),
            record_id: "L-1001".into(),
            source: "Acme ATS".into(),
            read_at: Utc.with_ymd_and_hms(2026, 1, 1, 9, 0, 0).unwrap(),
            fields: vec![
                field("stage", "Qualified", false),
                field("value", "12000", false),
                field("notes", "old", true),
            ],
            label: DataLabel::Internal,
            not_read: None,
        }
    }

    #[test]
    fn a_card_read_first_carries_the_values_read_and_when() {
        let at = Utc.with_ymd_and_hms(2026, 2, 1, 9, 0, 0).unwrap();
        let read = ReadFirst::Read {
            fields: vec![
                field("stage", "Won", false),
                field("value", "15000", false),
                field("notes", "signed", true),
                field("owner_email", "sam@acme.example", false),
            ],
            at,
        };
        let carried = carried_after_read(stale(), read).unwrap();
        assert_eq!(
            carried.fields,
            vec![field("stage", "Won", false), field("value", "15000", false), field("notes", "signed", true)],
            "the fields the selection loaded, each at its new value; nothing it did not load"
        );
        assert_eq!(carried.read_at, at);
        assert_eq!(carried.not_read, None);
    }

    #[test]
    fn a_field_the_read_left_out_is_not_carried_at_its_old_value() {
        let read = ReadFirst::Read { fields: vec![field("stage", "Won", false)], at: stale().read_at };
        let carried = carried_after_read(stale(), read).unwrap();
        assert_eq!(carried.fields, vec![field("stage", "Won", false)]);
    }

    #[test]
    fn a_card_that_could_not_be_read_carries_why_and_no_value_and_a_gone_one_nothing() {
        let carried = carried_after_read(stale(), ReadFirst::NotRead("Acme ATS is switched off".into())).unwrap();
        assert!(carried.fields.is_empty(), "no stale value goes to the model");
        assert_eq!(carried.not_read.as_deref(), Some("Acme ATS is switched off"));
        assert_eq!((carried.card, carried.record_id.as_str()), (7, "L-1001"));
        assert_eq!(carried_after_read(stale(), ReadFirst::Gone), None);
    }
}
