//! Answering a recorded run: the block, then the model and its tool calls (at most
//! `MAX_TOOL_STEPS`), each a step with its line, then the answer. A model that fails or is slow
//! ends the run plainly and nothing is lost: the question and the run stay, and Try again works.

use super::prepare::{replay, tool_name, Carried, Held, Prepared};
use super::spans;
use super::*;
use crate::cards::service::RunTool;
use crate::quoting::{attribute, escape_data as quote};
use crate::runs::check::CheckState;
use crate::runs::inbox::{ActionKind, NewAction};
use crate::runs::model::{AgentModel, Reply, ToolCall, Turn, TurnRole};
use crate::runs::outbox::{OutgoingMessage, SEND_EMAIL};
use crate::runs::provenance::{self, Provenance};
use crate::runs::{NewStep, Run, RunEnd, RunState, StepKind, MAX_TOOL_STEPS};
use chrono::NaiveTime;
use serde_json::json;
use tracing::Instrument;

/// What the model is told when a tool that acts waits for the person.
pub const WAITING_FOR_APPROVAL: &str =
    "Put in the person's Inbox for their approval; it has not happened yet. Tell them it waits there.";

impl Answering {
    /// Takes a recorded run to its end. A run that already ended is returned as it is, so two
    /// servers (or a retry and a reload) never answer one run twice.
    pub async fn execute(&self, run: RunId) -> Result<RunView, RunError> {
        self.execute_in(run, spans::run(run, false)).await
    }

    /// As `execute`, in the span given (`launch` makes one that follows from the request).
    pub(super) async fn execute_in(&self, run: RunId, span: tracing::Span) -> Result<RunView, RunError> {
        let traced = span.clone();
        async move {
            let r = self.store.run(run).await?.ok_or_else(|| RunError::NotFound("There is no such run".into()))?;
            traced.record("engram.run.kind", r.kind.as_str());
            traced.record("gen_ai.agent.id", tracing::field::display(r.agent));
            traced.record("gen_ai.conversation.id", tracing::field::display(r.thread));
            // An external run is taken to its end by its outside agent, never by a model here.
            if r.state != RunState::Running || r.kind == RunKind::External {
                return self.threads.view(r).await;
            }
            let ended = self.answer(&r).await?;
            traced.record("engram.run.state", ended.state.as_str());
            self.threads.view(ended).await
        }
        .instrument(span)
        .await
    }

    async fn answer(&self, r: &Run) -> Result<Run, RunError> {
        let mut p = self.prepare(r).await?;
        let model = match self.models.for_agent(&p.agent) {
            AgentModelChoice::Use(m) => m,
            AgentModelChoice::Off(why) => {
                return self.fail(r, &format!("The model did not answer: {why}"), None, &p.carried).await
            }
        };
        let Held { running, tools, specs } = self.held(r, p.approver.as_ref()).await?;
        let mut turns = vec![Turn::system(p.block.system.clone()), Turn::user(p.block.user_turn(&p.question))];
        // A retry from a step replays the reads it kept, so they are not made again, and the
        // tools that acts it refused or put in the Inbox, so they are not asked for twice.
        let replayed = replay(r, &mut p);
        let mut steps_taken = replayed.len() as u32;
        for (call, result) in replayed {
            push_tool_turns(&mut turns, call, result);
        }
        let Prepared { agent, person, question, cards, snapshots, mut provenance, mut carried, approver, .. } = p;
        loop {
            if !self.claim_call(&agent.name).await? {
                let why = format!("today's cap of {} model calls is spent", self.max_calls_per_day);
                return self.fail(r, &format!("The model did not answer: {why}"), Some(model.as_ref()), &carried).await;
            }
            let call = spans::model_call(model.as_ref(), specs.len());
            let reply = match model.reply(&turns, &specs).instrument(call.clone()).await {
                Ok(reply) => {
                    spans::replied(&call, &turns, &specs, &reply);
                    if let Some(cost) = carried.cost.as_mut() {
                        cost.add_call(model.cents_per_million_tokens(), &turns, &specs, &reply);
                    }
                    reply
                }
                Err(e) => {
                    spans::failed(&call);
                    tracing::warn!(run = %r.id, model = model.name(), error = %e, "the model did not answer");
                    return self
                        .fail(r, &format!("The model did not answer: {e}"), Some(model.as_ref()), &carried)
                        .await;
                }
            };
            match reply {
                Reply::Answer(text) => {
                    let check = self.check_start(person.as_ref(), &cards, &snapshots).await;
                    let checked_only = check == CheckState::Checking && self.checked_only_for(person.as_ref()).await;
                    let model_name = Some(Self::model_name(model.as_ref()));
                    let ended = self.finish(r, &text, model_name, &carried, (check, checked_only)).await?;
                    return match &person {
                        Some(p) if ended.checking() => self.check_answer(&ended, p, &cards, &snapshots).await,
                        _ => Ok(ended),
                    };
                }
                Reply::ToolCalls(calls) => {
                    for call in calls {
                        if steps_taken >= MAX_TOOL_STEPS {
                            let why = format!("The agent made {MAX_TOOL_STEPS} tool calls without answering");
                            return self.fail(r, &why, Some(model.as_ref()), &carried).await;
                        }
                        steps_taken += 1;
                        let traced = spans::tool_call(&call);
                        let result = self
                            .tool_call(
                                r,
                                (person.as_ref(), approver.as_ref()),
                                (&running, &question),
                                &tools,
                                &call,
                                &mut carried,
                                &mut provenance,
                            )
                            .instrument(traced)
                            .await?;
                        push_tool_turns(&mut turns, call, result);
                    }
                }
            }
        }
    }

    /// One tool call, recorded as a step with its line. A read goes through the same gate as
    /// Refresh, as `person` (for nobody, with the company's key only). A tool that acts is refused
    /// if it would use a value the run only remembered; otherwise it waits in `approver`'s Inbox.
    #[allow(clippy::too_many_arguments)]
    pub(super) async fn tool_call(
        &self,
        r: &Run,
        (person, approver): (Option<&Person>, Option<&Person>),
        (running, question): (&crate::cards::access::RunningAgent, &str),
        tools: &[RunTool],
        call: &ToolCall,
        carried: &mut Carried,
        provenance: &mut Provenance,
    ) -> Result<String, RunError> {
        if call.name == SEND_EMAIL && self.outbox.is_some() {
            return self.send_call(r, approver, call, provenance).await;
        }
        if call.name == crate::runs::handon::CREATE_TASK && self.tasks.is_some() {
            return self.task_call(r, approver, call, provenance).await;
        }
        let tool = tools.iter().find(|t| tool_name(&t.connector_name, &t.tool) == call.name);
        if let Some(t) = tool.filter(|t| t.acts) {
            return self.act_call(r, approver, t, call, provenance).await;
        }
        let (line, result, kept) = match tool {
            None => (
                format!("Asked for {}, which this agent does not hold", call.name),
                format!("There is no tool called {}", call.name),
                None,
            ),
            Some(t) => match provenance.check_read(&t.connector_name, &call.arguments) {
                Err(refusal) => {
                    let line = format!("Refused {} on {}: {}", t.tool, t.connector_name, refusal.sentence());
                    let detail = json!({"call": call, "result": refusal.sentence(), "remembered": refusal.from});
                    let step =
                        NewStep { kind: StepKind::Refused, line, words: vec![], refs: vec![], detail: Some(detail) };
                    self.store.add_step(r.id, &step, self.now()).await?;
                    return Ok(refusal.sentence().to_string());
                }
                Ok(()) => match self
                    .cards
                    .read_for_run(person, running, t.connector, &t.tool, &call.arguments, question)
                    .await
                {
                    Ok(read) => {
                        provenance.read_value(&read.value);
                        carried.add(read.label, &read.source, read.outside_text);
                        let kept =
                            if read.kept > 0 { format!(" and kept {} as cards", read.kept) } else { String::new() };
                        (
                            format!("Read with {} from {}{kept}", t.tool, t.connector_name),
                            format!(
                                "<data source=\"{}\" tool=\"{}\" label=\"{}\">\n{}\n</data>",
                                attribute(&t.connector_name),
                                attribute(&t.tool),
                                read.label.as_str(),
                                quote(&read.value.to_string())
                            ),
                            Some(Carried::of_read(read.label, &read.source, read.outside_text)),
                        )
                    }
                    Err(why) => {
                        if let Some(detail) = crate::error::UserSafe::internal_detail(&why) {
                            tracing::error!(%detail, tool = %t.tool, "a run's read failed inside");
                        }
                        (
                            format!("Not read with {} from {}: {why}", t.tool, t.connector_name),
                            format!("Not read: {why}"),
                            None,
                        )
                    }
                },
            },
        };
        let step = NewStep {
            kind: StepKind::ToolCall,
            line,
            words: vec![],
            refs: vec![],
            detail: Some(match kept {
                Some(kept) => json!({"call": call, "result": result, "carried": kept}),
                None => json!({"call": call, "result": result}),
            }),
        }
        .masked();
        self.store.add_step(r.id, &step, self.now()).await?;
        Ok(result)
    }

    /// A tool that acts: refused with the seed's sentence when an argument is a remembered value
    /// the run has not read; with nobody to approve it, not done; otherwise put in the Inbox of
    /// `person`, who approves it (the run's person, or a scheduled run's agent's owner).
    async fn act_call(
        &self,
        r: &Run,
        person: Option<&Person>,
        t: &RunTool,
        call: &ToolCall,
        provenance: &Provenance,
    ) -> Result<String, RunError> {
        let what = format!("{} on {}", t.tool, t.connector_name);
        let (kind, line, result, detail) =
            match (provenance.check(provenance::StepKind::Write, &call.arguments), person) {
                (Err(refusal), _) => (
                    StepKind::Refused,
                    format!("Refused {what}: {}", refusal.sentence()),
                    refusal.sentence().to_string(),
                    json!({"call": call, "result": refusal.sentence(), "remembered": refusal.from}),
                ),
                (Ok(()), None) => {
                    let why = format!("{what} acts only with a person's approval, and this run acts for nobody");
                    let result = format!("Not done: {why}");
                    (
                        StepKind::Refused,
                        format!("Not done: {why}"),
                        result.clone(),
                        json!({"call": call, "result": result}),
                    )
                }
                (Ok(()), Some(p)) => {
                    let action = NewAction {
                        person: p.id,
                        run: r.id,
                        kind: ActionKind::Write,
                        connector: Some(t.connector),
                        tool: t.tool.clone(),
                        arguments: call.arguments.clone(),
                        line: what.clone(),
                    };
                    let added = self.store.add_action(&action, self.now()).await?;
                    (
                        StepKind::Waiting,
                        format!("Waiting for your approval in the Inbox: {what}"),
                        WAITING_FOR_APPROVAL.to_string(),
                        json!({"call": call, "result": WAITING_FOR_APPROVAL, "action": added.id}),
                    )
                }
            };
        let step = NewStep { kind, line, words: vec![], refs: vec![], detail: Some(detail) }.masked();
        self.store.add_step(r.id, &step, self.now()).await?;
        Ok(result)
    }

    /// `send_email`: refused with the seed's sentence when an argument is a remembered value the
    /// run has not read; for nobody, not sent; otherwise the message waits in the person's Inbox.
    async fn send_call(
        &self,
        r: &Run,
        person: Option<&Person>,
        call: &ToolCall,
        provenance: &Provenance,
    ) -> Result<String, RunError> {
        let gate = (provenance::StepKind::Send, "send_email", "Not sent");
        self.to_inbox(r, person, call, provenance, gate, |p| {
            OutgoingMessage::from_call(&p.email, &call.arguments).map(|m| (ActionKind::Send, m.line()))
        })
        .await
    }

    /// `create_task`: handing work on. Refused with the seed's sentence when the task holds a value
    /// the run only remembered; otherwise it waits in the person's Inbox.
    async fn task_call(
        &self,
        r: &Run,
        person: Option<&Person>,
        call: &ToolCall,
        provenance: &Provenance,
    ) -> Result<String, RunError> {
        let gate = (provenance::StepKind::HandOn, "create_task", "Not handed on");
        self.to_inbox(r, person, call, provenance, gate, |_| {
            crate::runs::handon::HandedTask::from_call(&call.arguments).map(|t| (ActionKind::Task, t.line()))
        })
        .await
    }

    /// One of Engram's own tools that act, as a step: refused with the seed's sentence when an
    /// argument is a remembered value the run has not read; not done for nobody, or when `plan`
    /// says why; otherwise put in the person's Inbox with the line `plan` gives.
    async fn to_inbox<E: std::fmt::Display>(
        &self,
        r: &Run,
        person: Option<&Person>,
        call: &ToolCall,
        provenance: &Provenance,
        (gate, tool, not_done): (provenance::StepKind, &str, &str),
        plan: impl FnOnce(&Person) -> Result<(ActionKind, String), E>,
    ) -> Result<String, RunError> {
        let not = |why: &str| {
            let line = format!("{not_done}: {why}");
            (StepKind::Refused, line.clone(), line.clone(), json!({"call": call, "result": line}))
        };
        let (kind, line, result, detail) = match (provenance.check(gate, &call.arguments), person) {
            (Err(refusal), _) => (
                StepKind::Refused,
                format!("Refused {tool}: {}", refusal.sentence()),
                refusal.sentence().to_string(),
                json!({"call": call, "result": refusal.sentence(), "remembered": refusal.from}),
            ),
            (Ok(()), None) => not("this run acts for nobody, so nobody can approve it"),
            (Ok(()), Some(p)) => match plan(p) {
                Err(why) => not(&why.to_string()),
                Ok((action_kind, what)) => {
                    let action = NewAction {
                        person: p.id,
                        run: r.id,
                        kind: action_kind,
                        connector: None,
                        tool: tool.into(),
                        arguments: call.arguments.clone(),
                        line: what.clone(),
                    };
                    let added = self.store.add_action(&action, self.now()).await?;
                    (
                        StepKind::Waiting,
                        format!("Waiting for your approval in the Inbox: {what}"),
                        WAITING_FOR_APPROVAL.to_string(),
                        json!({"call": call, "result": WAITING_FOR_APPROVAL, "action": added.id}),
                    )
                }
            },
        };
        let step = NewStep { kind, line, words: vec![], refs: vec![], detail: Some(detail) }.masked();
        self.store.add_step(r.id, &step, self.now()).await?;
        Ok(result)
    }

    async fn claim_call(&self, agent: &str) -> Result<bool, RunError> {
        let now = self.now();
        let day_start = now.date_naive().and_time(NaiveTime::MIN).and_utc();
        Ok(self.store.take_model_call(agent, "ask", day_start, self.max_calls_per_day, now).await?)
    }

    fn model_name(model: &dyn AgentModel) -> String {
        if model.is_demo() {
            format!("demo/{}", model.name().rsplit('/').next().unwrap_or_default())
        } else {
            model.name()
        }
    }

    /// Ends the run with its answer; `model` names the model that answered, `None` for an
    /// outside agent's answer.
    pub(super) async fn finish(
        &self,
        r: &Run,
        text: &str,
        model: Option<String>,
        carried: &Carried,
        (check, checked_only): (CheckState, bool),
    ) -> Result<Run, RunError> {
        let now = self.now();
        let step =
            NewStep { kind: StepKind::Answer, line: "Answered".into(), words: vec![], refs: vec![], detail: None };
        self.store.add_step(r.id, &step, now).await?;
        let end = RunEnd {
            state: RunState::Answered,
            answer: Some(text.trim().to_string()),
            failure: None,
            model,
            data_label: carried.label,
            sources: carried.sources.clone(),
            review_mode: carried.review_mode,
            check: Some(check),
            checked_only,
        };
        self.end(r, &end, carried).await
    }

    pub(super) async fn fail(
        &self,
        r: &Run,
        why: &str,
        model: Option<&dyn AgentModel>,
        carried: &Carried,
    ) -> Result<Run, RunError> {
        let now = self.now();
        let step = NewStep { kind: StepKind::Failed, line: why.to_string(), words: vec![], refs: vec![], detail: None };
        self.store.add_step(r.id, &step, now).await?;
        let end = RunEnd {
            state: RunState::Failed,
            answer: None,
            failure: Some(why.to_string()),
            model: model.map(Self::model_name),
            data_label: carried.label,
            sources: carried.sources.clone(),
            review_mode: carried.review_mode,
            check: None,
            checked_only: false,
        };
        self.end(r, &end, carried).await
    }

    /// Ends the run, and keeps what it cost: a cost not kept is logged and the run still ends, as a
    /// model call not counted in the spend ledger is.
    async fn end(&self, r: &Run, end: &RunEnd, carried: &Carried) -> Result<Run, RunError> {
        match self.store.end_run(r.id, end, self.now()).await {
            Ok(run) => {
                if let Some(cost) = &carried.cost {
                    if let Err(e) = self.store.record_run_cost(r.id, r.created_at, cost).await {
                        tracing::warn!(run = %r.id, error = %e, "what a run cost was not kept");
                    }
                }
                Ok(run)
            }
            // Another server ended it meanwhile: its end stands.
            Err(crate::kernel::StoreError::Changed { .. }) => {
                self.store.run(r.id).await?.ok_or_else(|| RunError::NotFound("There is no such run".into()))
            }
            Err(e) => Err(e.into()),
        }
    }

    /// Runs a server stopped under end plainly, so Try again works on them; answers whose check
    /// it stopped under are "not checked", with why.
    pub async fn end_stale(&self) -> Result<u32, RunError> {
        let before = self.now() - chrono::Duration::minutes(15);
        let mut ended = 0;
        for id in self.store.stale_runs(before).await? {
            let Some(r) = self.store.run(id).await? else { continue };
            let carried = Carried::of_run(&r);
            let why = match r.kind {
                RunKind::External => "The run ended unfinished: its outside agent did not finish it within 15 minutes",
                _ => "The run stopped before it answered: the server stopped under it",
            };
            self.fail(&r, why, None, &carried).await?;
            ended += 1;
        }
        let stopped = crate::runs::check::CheckEnd::not_checked("the server stopped before the check finished");
        for id in self.store.stale_checks(before).await? {
            if self.save_check(id, &stopped).await? {
                ended += 1;
            }
        }
        Ok(ended)
    }
}

fn push_tool_turns(turns: &mut Vec<Turn>, call: ToolCall, result: String) {
    let id = call.id.clone();
    turns.push(Turn { role: TurnRole::Assistant, content: String::new(), tool_calls: vec![call], tool_call_id: None });
    turns.push(Turn { role: TurnRole::Tool, content: result, tool_calls: vec![], tool_call_id: Some(id) });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_text_cannot_close_a_quote_early() {
        assert_eq!(quote("a</data>b"), "a&lt;/data>b");
    }
}
