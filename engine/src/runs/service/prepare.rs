//! What a recorded run is given before it takes its first turn: its block (recorded once, with its
//! Memory used step and `memory_used` event), what it remembers for the gate, the tools it holds,
//! and the steps it already took. Engram's own runs answer from here with a model; an external
//! run is driven from here by an outside agent, one call at a time (`external.rs`).

use super::block_for::Loaded;
use super::*;
use crate::cards::access::RunningAgent;
use crate::cards::service::RunTool;
use crate::kernel::DataLabel;
use crate::runs::block::{Block, BlockCard, BlockSnapshot};
use crate::runs::cost::RunCost;
use crate::runs::model::{ToolCall, ToolSpec};
use crate::runs::outbox::send_email_spec;
use crate::runs::provenance::{Provenance, RememberedCard, RememberedLesson};
use crate::runs::{NewEvent, NewStep, Run, StepKind};
use serde_json::json;

/// The name a model's tool goes by: the connector's name as a slug, then the tool.
pub fn tool_name(connector_name: &str, tool: &str) -> String {
    let mut slug = String::new();
    for c in connector_name.chars() {
        if c.is_ascii_alphanumeric() {
            slug.push(c.to_ascii_lowercase());
        } else if !slug.ends_with('_') && !slug.is_empty() {
            slug.push('_');
        }
    }
    format!("{}__{tool}", slug.trim_end_matches('_'))
}

/// What the run carried so far, beyond the block: the reads' labels, sources and outside text.
pub(super) struct Carried {
    pub label: DataLabel,
    pub sources: Vec<String>,
    pub review_mode: bool,
    /// What the run cost so far, kept when it ends; `None` for a run ended without its block
    /// (a server stopped under it), whose cost is not known.
    pub cost: Option<RunCost>,
}

impl Carried {
    /// What a run recorded it carried, when it ends without its block: its cost is not known.
    pub fn of_run(r: &Run) -> Self {
        Carried { label: r.data_label, sources: r.sources.clone(), review_mode: r.review_mode, cost: None }
    }

    pub fn add(&mut self, label: DataLabel, source: &str, outside_text: bool) {
        self.label = self.label.max(label);
        if !self.sources.iter().any(|s| s == source) {
            self.sources.push(source.to_string());
        }
        self.review_mode |= outside_text;
    }

    /// What a read step kept of what it carried, so that a run taken up again (a retry from a
    /// step, an external run's next call) carries it again without reading it again.
    pub fn of_read(label: DataLabel, source: &str, outside_text: bool) -> serde_json::Value {
        json!({"label": label.as_str(), "source": source, "outside_text": outside_text})
    }

    fn add_kept(&mut self, kept: &serde_json::Value) {
        let label = kept["label"].as_str().and_then(DataLabel::parse);
        if let (Some(label), Some(source)) = (label, kept["source"].as_str()) {
            self.add(label, source, kept["outside_text"].as_bool().unwrap_or(false));
        }
    }
}

/// A run made ready to take its turns.
pub(super) struct Prepared {
    pub agent: crate::org::Agent,
    pub person: Option<Person>,
    pub question: String,
    pub block: Block,
    /// The cards and list snapshots the block carried: the check reads them again.
    pub cards: Vec<BlockCard>,
    pub snapshots: Vec<BlockSnapshot>,
    pub provenance: Provenance,
    pub carried: Carried,
    /// Whose Inbox what the run would do that acts waits in: its person's; for a scheduled run or
    /// an agent token's external run, which act for nobody, its agent's owner's (while they are
    /// current); else nobody's.
    pub approver: Option<Person>,
}

/// The tools a run holds, as it calls them and as they are offered.
pub(super) struct Held {
    pub running: RunningAgent,
    pub tools: Vec<RunTool>,
    pub specs: Vec<ToolSpec>,
}

impl Answering {
    /// Loads the run's block and what it remembers, and records its Memory used step and
    /// `memory_used` event the first time only: taking a run up again records nothing twice.
    pub(super) async fn prepare(&self, r: &Run) -> Result<Prepared, RunError> {
        let message = self
            .store
            .message(r.message)
            .await?
            .ok_or_else(|| RunError::NotFound("There is no such message".into()))?;
        let agent = agent_in(&*self.store, r.agent).await?;
        let person = match r.for_person {
            Some(p) => {
                Some(self.store.person(p).await?.ok_or_else(|| RunError::NotFound("There is no such person".into()))?)
            }
            None => None,
        };
        let question = message.text.clone();
        let Loaded { block, review_mode, cards, lessons, snapshots, directory, listed } =
            self.blocks.load(r.kind, &agent, person.as_ref(), &question).await?;
        // What the run remembers, for the gate on tools that act: its cards and its notes.
        let remembered: Vec<RememberedCard> = cards
            .iter()
            .map(|c| RememberedCard {
                card: c.card,
                source: c.source.clone(),
                record_id: c.record_id.clone(),
                fields: c.fields.clone(),
            })
            .collect();
        let own = person.as_ref().map(|p| (format!("person:{}", p.id.0), p.email.clone()));
        // A list snapshot's record ids, and a kept who's-who entry, are remembered as a lesson's
        // values are; a read of the list's own source may carry them.
        let lessons: Vec<RememberedLesson> = lessons
            .into_iter()
            .map(|l| RememberedLesson { id: l.id, text: l.text, claim: l.claim, source: None })
            .chain(snapshots.iter().map(|s| RememberedLesson {
                id: format!("snapshot:{}", s.id),
                text: s.records.join(" "),
                claim: None,
                source: Some(s.source.clone()),
            }))
            .chain(listed.into_iter().map(|l| RememberedLesson {
                id: l.id,
                text: l.text,
                claim: None,
                source: Some(l.source),
            }))
            .collect();
        let mut provenance =
            Provenance::new(&remembered, &lessons, own.as_ref().map(|(id, e)| (id.as_str(), e.as_str())), &question);
        // The directory's lines are read from the organisation as the block is made: current, so
        // a teammate's address in them counts as read in this run.
        for line in &directory {
            provenance.read_text(line);
        }
        // The person's own name never counts, as their id and email do not.
        if let Some(p) = &person {
            provenance.read_text(&p.name);
        }
        let now = self.now();
        if let Some(line) = &block.step_line {
            if !r.steps.iter().any(|s| s.kind == StepKind::MemoryUsed) {
                let step = NewStep {
                    kind: StepKind::MemoryUsed,
                    line: line.clone(),
                    words: block.words.clone(),
                    refs: block.refs.clone(),
                    detail: None,
                };
                self.store.add_step(r.id, &step, now).await?;
                let event = NewEvent {
                    name: "memory_used".into(),
                    run: Some(r.id),
                    thread: Some(r.thread),
                    refs: block.refs.clone(),
                    ..NewEvent::default()
                };
                self.store.record_event(&event, now).await?;
            }
        }
        let carried = Carried {
            label: block.data_label,
            sources: block.sources.clone(),
            review_mode,
            cost: Some(RunCost::of_block(&block)),
        };
        let approver = match (&person, r.kind) {
            (Some(p), _) => Some(p.clone()),
            (None, RunKind::Schedule | RunKind::External) => {
                self.store.person(agent.owner).await?.filter(|o| o.left_at.is_none())
            }
            (None, _) => None,
        };
        Ok(Prepared { agent, person, question, block, cards, snapshots, provenance, carried, approver })
    }

    /// The connectors' tools the agent holds, and Engram's own tools that act, when someone's
    /// Inbox (`approver`'s) can approve them.
    pub(super) async fn held(&self, r: &Run, approver: Option<&Person>) -> Result<Held, RunError> {
        self.held_by(r.agent, r.kind, approver).await
    }

    /// What [`Self::held`] gives a run of `kind` of `agent` with `approver`, before any run exists:
    /// an outside agent lists an external run's tools before it starts one.
    pub(super) async fn held_by(
        &self,
        agent: AgentId,
        kind: RunKind,
        approver: Option<&Person>,
    ) -> Result<Held, RunError> {
        let running = self.cards.running_agent(agent).await.map_err(RunError::from)?;
        let tools = if kind == RunKind::Eval && approver.is_none() {
            vec![]
        } else {
            self.cards.run_tools(&running).await.map_err(RunError::from)?
        };
        let mut specs: Vec<ToolSpec> = tools
            .iter()
            // A tool's description and parameters are its source's words, as an admin pinned them:
            // given to the model as quoted data, never as instructions.
            .map(|t| ToolSpec {
                name: tool_name(&t.connector_name, &t.tool),
                description: crate::cards::pins::quoted_description(&t.connector_name, &t.tool, &t.description),
                parameters: if t.parameters.is_null() {
                    json!({"type": "object", "properties": {}})
                } else {
                    crate::cards::pins::quoted_parameters(&t.parameters)
                },
            })
            .collect();
        if approver.is_some() && self.outbox.is_some() {
            specs.push(send_email_spec());
        }
        if approver.is_some() && self.tasks.is_some() {
            specs.push(crate::runs::handon::create_task_spec());
        }
        Ok(Held { running, tools, specs })
    }
}

/// A step the run already took that is taken up again, not taken twice: a read, or a tool that
/// acts it refused or put in the Inbox.
pub(super) fn replayed(kind: &StepKind) -> bool {
    matches!(kind, StepKind::ToolCall | StepKind::Refused | StepKind::Waiting)
}

/// The calls the run already made, with their results: what its reads returned counts as read
/// again, and what they carried is carried again.
pub(super) fn replay(r: &Run, p: &mut Prepared) -> Vec<(ToolCall, String)> {
    let mut out = Vec::new();
    for s in r.steps.iter().filter(|s| replayed(&s.kind)) {
        if let Some(d) = &s.detail {
            if let Ok(call) = serde_json::from_value::<ToolCall>(d["call"].clone()) {
                let result = d["result"].as_str().unwrap_or_default().to_string();
                if s.kind == StepKind::ToolCall {
                    p.provenance.read_text(&result);
                    p.carried.add_kept(&d["carried"]);
                }
                out.push((call, result));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A read kept as a step is carried again when the run is taken up again: its label, its
    /// source and its outside text, each source once.
    #[test]
    fn what_a_read_carried_is_carried_again_from_its_step() {
        let mut carried =
            Carried { label: DataLabel::Internal, sources: vec!["directory".into()], review_mode: false, cost: None };
        carried.add_kept(&Carried::of_read(DataLabel::Personal, "Acme ATS", true));
        carried.add_kept(&Carried::of_read(DataLabel::Public, "Acme ATS", false));
        // A step kept before reads recorded what they carried adds nothing.
        carried.add_kept(&serde_json::Value::Null);
        assert_eq!(carried.label, DataLabel::Personal);
        assert_eq!(carried.sources, ["directory", "Acme ATS"]);
        assert!(carried.review_mode);
    }

    #[test]
    fn tool_names_are_the_connector_slug_and_the_tool() {
        assert_eq!(tool_name("Acme ATS", "get_lead"), "acme_ats__get_lead");
        assert_eq!(tool_name("  Zendesk (EU) ", "search"), "zendesk_eu__search");
    }
}
