//! An external run: an outside agent (over MCP or the REST pair) uses one company agent's memory
//! and gate, acting for the person whose API token it holds, as an unwatched ask would, or, with
//! an agent token, for nobody, as a schedule does.
//!
//! It is a run like any other, driven one call at a time instead of by a model here: starting it
//! records the block as Engram's own run of that agent would get it (its Memory used step and
//! `memory_used` event); each tool call goes through the same gate as a model's (reads as the
//! person within the hourly limits, tools that act refused with the seed's sentence or put in the
//! person's Inbox); `finish` records the answer and checks it before it returns. Each call takes
//! the run up again from its recorded steps, as a retry from a step does, so nothing lives
//! between calls but the run itself; once finished it takes no more calls.
//!
//! What the block carries: cores, who's who, and the cards and lists the question brings, as the
//! person's own ask's block does, with the same limits, labels, clearance and review mode. It
//! never carries the lessons that are the person's alone (their own, their private agents'): only
//! a signed-in session reads those, so a token's block holds only team, company and partner
//! lessons.
//!
//! With an agent token the run acts for nobody: its block loads only the role's company core
//! (no person's cards, lists or lessons), it reads only with the agent's company-key tools, and
//! what it would do waits in the Inbox of the agent's owner. Only the token that started it takes
//! it further.

use super::prepare::{replay, replayed, Carried, Held};
use super::*;
use crate::quoting::{attribute, escape_data};
use crate::runs::agent_tokens::{LiveAgentToken, OTHER_AGENT};
use crate::runs::block::AGENT_SYSTEM;
use crate::runs::model::ToolCall;
use crate::runs::{NewRun, Run, RunState, MAX_TOOL_STEPS};
use serde_json::Value;
use tracing::Instrument;

/// Who drives an external run from outside Engram.
#[derive(Debug, Clone, PartialEq)]
pub enum Outside {
    /// An outside agent holding a person's API token: it acts for that person, unwatched.
    Person(Person),
    /// An outside agent holding an agent token: it acts for nobody, as a schedule does.
    Token(LiveAgentToken),
}

/// The longest answer an outside agent may finish a run with.
pub const EXTERNAL_ANSWER_MAX_CHARS: usize = 20_000;

/// An external run as it starts: its block, quoted as data, and the tools it may call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ExternalStart {
    pub thread: ThreadId,
    pub run: RunId,
    pub agent: AgentId,
    pub agent_name: String,
    pub block: ExternalBlock,
    pub tools: Vec<ExternalTool>,
}

/// The block as the outside agent is given it: every stored text inside `<data>` quotes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ExternalBlock {
    /// The cores and the memory part, quoted as data, never as instructions; empty when nothing
    /// loads.
    pub text: String,
    /// The Memory used step's line, `None` when nothing loaded.
    pub line: Option<String>,
    /// What it carried, in words, one per ref: "Sales company core, version 1".
    pub words: Vec<String>,
    pub refs: Vec<MemoryRef>,
    /// The highest label of what it carried.
    pub data_label: String,
    pub sources: Vec<String>,
    pub review_mode: bool,
}

/// A tool an external run may call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ExternalTool {
    pub name: String,
    /// The source's own words, quoted as data.
    pub description: String,
    /// JSON Schema of the arguments.
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub parameters: Value,
    /// A read changes nothing outside; a tool that acts waits for the person's approval.
    pub read_only: bool,
}

/// What one tool call of an external run did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ExternalCall {
    pub run: RunId,
    /// The step it recorded: "tool_call", "refused" or "waiting".
    pub kind: String,
    /// The step's line: "Read with get_lead from Acme ATS", "Refused send_email: …".
    pub line: String,
    /// What the call returned: a read's result quoted as data, the refusal's sentence, or that
    /// it waits in the person's Inbox.
    pub result: String,
}

impl Runs {
    /// Starts an external run of `agent` for whoever drives it and returns its block and tools.
    /// A run whose block cannot be made ends failed, saying why, and the refusal is returned.
    pub async fn start_external(
        &self,
        outside: &Outside,
        agent: AgentId,
        question: &str,
    ) -> Result<ExternalStart, RunError> {
        let question = super::asking::parse_question(question)?;
        let (agent, person) = match outside {
            Outside::Person(p) => {
                if p.left_at.is_some() {
                    return Err(RunError::NotAllowed("Only current people can ask an agent".into()));
                }
                match self.agent(agent).await? {
                    a if a.visible_to(p.id) => (a, Some(p.id)),
                    _ => return Err(RunError::NotFound("There is no such agent".into())),
                }
            }
            Outside::Token(t) => (self.token_agent(t, agent).await?, None),
        };
        let now = self.now();
        let author = match person {
            Some(p) => crate::runs::Author::Person(p),
            None => crate::runs::Author::Agent(agent.id),
        };
        let title = super::asking::title_of(&question);
        let (thread, message) = self.store.create_thread(agent.id, person, &title, &author, &question, now).await?;
        let new = NewRun {
            thread: thread.id,
            message: message.id,
            agent: agent.id,
            for_person: person,
            kind: RunKind::External,
            // Nobody watches it in Engram: its answer is checked before it returns.
            unwatched: true,
            retry_of: None,
        };
        let run = self.store.create_run(&new, now).await?;
        if let Outside::Token(t) = outside {
            // Only the token that started the run takes it further; a run no token holds would
            // take no call at all, so it ends here rather than wait.
            if let Err(e) = self.store.bind_token_run(run.id, t.id).await {
                let why = "Engram could not record which agent token started this run";
                if let Err(f) = self.answering.fail(&run, why, None, &Carried::of_run(&run)).await {
                    tracing::warn!(run = %run.id, error = %f, "an external run that could not start stays running");
                }
                return Err(e.into());
            }
        }
        tracing::info!(run = %run.id, thread = %thread.id, agent = %agent.id, for_nobody = person.is_none(), "external run started");
        let (block, tools) = self.answering.open_external(&run).await?;
        Ok(ExternalStart { thread: thread.id, run: run.id, agent: agent.id, agent_name: agent.name, block, tools })
    }

    /// The agent an agent token's call names, by id or name, or leaves out: only the token's own.
    pub async fn agent_for_token(&self, t: &LiveAgentToken, named: Option<&str>) -> Result<AgentId, RunError> {
        let a = self.agent(t.agent).await?;
        match named.map(str::trim).filter(|n| !n.is_empty()) {
            None => Ok(a.id),
            Some(n) if n == a.id.0.to_string() || n.eq_ignore_ascii_case(a.name.trim()) => Ok(a.id),
            Some(_) => Err(RunError::NotAllowed(OTHER_AGENT.into())),
        }
    }

    /// The agent a token drives: only its own, and only while it is a company agent.
    async fn token_agent(&self, t: &LiveAgentToken, agent: AgentId) -> Result<crate::org::Agent, RunError> {
        if t.agent != agent {
            return Err(RunError::NotAllowed(OTHER_AGENT.into()));
        }
        let a = self.agent(agent).await?;
        if a.private {
            return Err(RunError::NotAllowed(
                "This agent is now private: it works only for its owner, and its agent tokens no longer work".into(),
            ));
        }
        Ok(a)
    }
}

/// The tools as an outside agent is offered them: the source's words quoted as data, and whether
/// each only reads.
fn external_tools(held: Held) -> Vec<ExternalTool> {
    let Held { tools, specs, .. } = held;
    let acting: Vec<String> =
        tools.iter().filter(|t| t.acts).map(|t| super::prepare::tool_name(&t.connector_name, &t.tool)).collect();
    specs
        .into_iter()
        .map(|s| {
            let acts = acting.contains(&s.name)
                || s.name == crate::runs::outbox::SEND_EMAIL
                || s.name == crate::runs::handon::CREATE_TASK;
            ExternalTool { name: s.name, description: s.description, parameters: s.parameters, read_only: !acts }
        })
        .collect()
}

impl Runs {
    /// The tools an external run of `agent` would hold, before one starts: an MCP client lists
    /// them when it connects. Another person's private agent is no agent at all; a token's run
    /// holds what a run for nobody holds, acting through the owner's Inbox.
    pub async fn external_tools(&self, outside: &Outside, agent: AgentId) -> Result<Vec<ExternalTool>, RunError> {
        let approver = match outside {
            Outside::Person(p) => match self.agent(agent).await? {
                a if a.visible_to(p.id) => Some(p.clone()),
                _ => return Err(RunError::NotFound("There is no such agent".into())),
            },
            Outside::Token(t) => {
                let a = self.token_agent(t, agent).await?;
                self.store.person(a.owner).await?.filter(|o| o.left_at.is_none())
            }
        };
        let held = self.answering.held_by(agent, RunKind::External, approver.as_ref()).await?;
        Ok(external_tools(held))
    }
}

impl Answering {
    /// Records the run's block and says what it may call.
    async fn open_external(&self, r: &Run) -> Result<(ExternalBlock, Vec<ExternalTool>), RunError> {
        let p = self.prepare(r).await?;
        let tools = external_tools(self.held(r, p.approver.as_ref()).await?);
        let b = &p.block;
        let cores = b.system.strip_prefix(AGENT_SYSTEM).unwrap_or(&b.system).trim();
        let mut text = String::new();
        if !cores.is_empty() {
            // Cores steer Engram's own runs; to an outside agent they are stored text like the rest.
            text.push_str(&format!(
                "<data source=\"{}\">\n{}\n</data>",
                attribute(&format!("{} cores", p.agent.name)),
                escape_data(cores)
            ));
        }
        if let Some(memory) = &b.memory {
            if !text.is_empty() {
                text.push_str("\n\n");
            }
            text.push_str(memory);
        }
        let block = ExternalBlock {
            text,
            line: b.step_line.clone(),
            words: b.words.clone(),
            refs: b.refs.clone(),
            data_label: p.carried.label.as_str().to_string(),
            sources: p.carried.sources.clone(),
            review_mode: p.carried.review_mode,
        };
        Ok((block, tools))
    }

    /// The driver's own external run, still open to calls: the person's, or the one this very
    /// token started (another token of the same agent is refused as if there were no run).
    async fn open_run(&self, outside: &Outside, run: RunId) -> Result<Run, RunError> {
        let none = || RunError::NotFound("There is no such run".into());
        let r = self.store.run(run).await?.ok_or_else(none)?;
        let theirs = r.kind == RunKind::External
            && match outside {
                Outside::Person(p) => r.for_person == Some(p.id),
                Outside::Token(t) => {
                    r.for_person.is_none() && r.agent == t.agent && self.store.token_of_run(r.id).await? == Some(t.id)
                }
            };
        if !theirs {
            return Err(none());
        }
        if r.state != RunState::Running {
            return Err(RunError::Changed(
                "This run has ended and takes no more calls; start a new external run".into(),
            ));
        }
        Ok(r)
    }

    /// One tool call of the driver's external run, through the same gate as a model's call, kept
    /// as a step. A tool the agent does not hold is refused and nothing is recorded.
    pub async fn external_call(
        &self,
        outside: &Outside,
        run: RunId,
        name: &str,
        arguments: Value,
    ) -> Result<ExternalCall, RunError> {
        let r = self.open_run(outside, run).await?;
        let arguments = match arguments {
            Value::Null => Value::Object(Default::default()),
            a @ Value::Object(_) => a,
            _ => return Err(RunError::Invalid("A tool's arguments are a JSON object".into())),
        };
        let taken = r.steps.iter().filter(|s| replayed(&s.kind)).count() as u32;
        if taken >= MAX_TOOL_STEPS {
            return Err(RunError::Invalid(format!(
                "This run has made {MAX_TOOL_STEPS} tool calls, as many as a run may; finish it with your answer"
            )));
        }
        let mut p = self.prepare(&r).await?;
        let Held { running, tools, specs } = self.held(&r, p.approver.as_ref()).await?;
        if !specs.iter().any(|s| s.name == name) {
            return Err(RunError::NotFound(format!("This agent holds no tool called {name:?}")));
        }
        replay(&r, &mut p);
        let call = ToolCall { id: format!("external-{}", taken + 1), name: name.to_string(), arguments };
        // Traced as a run's own tool call is: the tool's name and the call's id, never its arguments.
        let traced = super::spans::tool_call(&call);
        let result = self
            .tool_call(
                &r,
                (p.person.as_ref(), p.approver.as_ref()),
                (&running, &p.question),
                &tools,
                &call,
                &mut p.carried,
                &mut p.provenance,
            )
            .instrument(traced)
            .await?;
        let after = self.store.run(r.id).await?.ok_or_else(|| RunError::NotFound("There is no such run".into()))?;
        let step = after
            .steps
            .iter()
            .rev()
            .find(|s| replayed(&s.kind))
            .ok_or_else(|| RunError::Store("a tool call's step was not kept".into()))?;
        Ok(ExternalCall { run: r.id, kind: step.kind.as_str().to_string(), line: step.line.clone(), result })
    }

    /// Ends the driver's external run with the outside agent's answer, and checks it before it
    /// returns (nobody watches it): the run as its person reads it, with the check's lines. A run
    /// for nobody carried no person's cards or lists, so it has nothing to check.
    pub async fn external_finish(&self, outside: &Outside, run: RunId, answer: &str) -> Result<RunView, RunError> {
        let r = self.open_run(outside, run).await?;
        let answer = answer.trim();
        if answer.is_empty() {
            return Err(RunError::Invalid("Write the answer first".into()));
        }
        let n = answer.chars().count();
        if n > EXTERNAL_ANSWER_MAX_CHARS {
            return Err(RunError::Invalid(format!(
                "An answer can be at most {} characters; this one has {}",
                crate::tokens::format_count(EXTERNAL_ANSWER_MAX_CHARS as u32),
                crate::tokens::format_count(n as u32)
            )));
        }
        let mut p = self.prepare(&r).await?;
        replay(&r, &mut p);
        let check = self.check_start(p.person.as_ref(), &p.cards, &p.snapshots).await;
        let checked_only =
            check == crate::runs::check::CheckState::Checking && self.checked_only_for(p.person.as_ref()).await;
        let ended = self.finish(&r, answer, None, &p.carried, (check, checked_only)).await?;
        let ended = match &p.person {
            // Only the call whose end stands checks it: a second finish meanwhile returns it as is.
            Some(who) if ended.checking() && ended.answer.as_deref() == Some(answer) => {
                self.check_answer(&ended, who, &p.cards, &p.snapshots).await?
            }
            _ => ended,
        };
        self.threads.view(ended).await
    }
}
