//! Asking: a question starts a thread (or continues one) and records a run for it; Try again
//! records a new run in the old one's place. `execute` answers what is recorded here.

use super::*;
use crate::org::PersonId;
use crate::runs::{Author, NewRun, NewStep, RunState, QUESTION_MAX_CHARS};

/// A thread's title: its first question, cut at a word near 80 characters.
pub(super) fn title_of(question: &str) -> String {
    let line = question.lines().next().unwrap_or_default();
    if line.chars().count() <= 80 {
        return line.to_string();
    }
    let cut: String = line.chars().take(80).collect();
    let at = cut.rfind(' ').filter(|i| *i > 40).unwrap_or(cut.len());
    format!("{}…", &cut[..at])
}

/// A question as asked, trimmed; refused in words when it cannot be asked.
pub fn parse_question(question: &str) -> Result<String, RunError> {
    let q = question.trim();
    if q.is_empty() {
        return Err(RunError::Invalid("Write a question first".into()));
    }
    let n = q.chars().count();
    if n > QUESTION_MAX_CHARS {
        return Err(RunError::Invalid(format!(
            "A question can be at most {} characters; this one has {}",
            crate::tokens::format_count(QUESTION_MAX_CHARS as u32),
            crate::tokens::format_count(n as u32)
        )));
    }
    Ok(q.to_string())
}

/// The question of a run nobody asked: a standing instruction (bounded as a question is), and for
/// a trigger's run what was posted, quoted as data, bounded on its own.
fn parse_unasked(question: &str) -> Result<String, RunError> {
    use crate::runs::schedules::fire::{trigger_question, TRIGGER_BODY_MAX_CHARS};
    let room = QUESTION_MAX_CHARS + TRIGGER_BODY_MAX_CHARS + trigger_question("", "").chars().count();
    let q = question.trim();
    if q.is_empty() {
        return Err(RunError::Invalid("Write the instruction the agent follows each time first".into()));
    }
    if q.chars().count() > room {
        return Err(RunError::Invalid(format!(
            "An instruction with what was posted can be at most {} characters",
            crate::tokens::format_count(room as u32)
        )));
    }
    Ok(q.to_string())
}

impl Runs {
    /// The company's agents a person may ask, and their own private agents, by name.
    pub async fn agents_to_ask(&self, person: &Person) -> Result<Vec<AgentChoice>, RunError> {
        if person.left_at.is_some() {
            return Err(RunError::NotAllowed("Only current people can ask an agent".into()));
        }
        // The outline holds the company agents and roles, never the people.
        let dir = self.store.outline().await?;
        let mut out: Vec<AgentChoice> = dir
            .agents
            .iter()
            .map(|a| AgentChoice {
                id: a.id,
                name: a.name.clone(),
                role: a.role.and_then(|r| dir.role(r)).map(|r| r.name.clone()),
                private: false,
            })
            .collect();
        out.extend(self.store.private_agents(person.id).await?.into_iter().map(|a| AgentChoice {
            id: a.id,
            name: a.name,
            role: None,
            private: true,
        }));
        out.sort_by(|a, b| a.name.to_lowercase().cmp(&b.name.to_lowercase()).then(a.id.cmp(&b.id)));
        Ok(out)
    }

    /// An agent a person may ask, by its id or its name (case-insensitive), as the command line
    /// and the API name it.
    pub async fn find_agent(&self, person: &Person, name_or_id: &str) -> Result<AgentId, RunError> {
        let wanted = name_or_id.trim();
        let agents = self.agents_to_ask(person).await?;
        agents
            .iter()
            .find(|a| a.name.eq_ignore_ascii_case(wanted) || a.id.0.to_string() == wanted)
            .map(|a| a.id)
            .ok_or_else(|| RunError::NotFound(format!("There is no agent called {wanted:?}")))
    }

    pub(super) async fn agent(&self, id: AgentId) -> Result<crate::org::Agent, RunError> {
        agent_in(&*self.store, id).await
    }

    /// An agent that may run for `person`: a company agent, or their own private agent. Another
    /// person's private agent is no agent at all to them.
    async fn agent_for(&self, id: AgentId, person: Option<PersonId>) -> Result<crate::org::Agent, RunError> {
        match self.agent(id).await? {
            a if person.map_or(!a.private, |p| a.visible_to(p)) => Ok(a),
            _ => Err(RunError::NotFound("There is no such agent".into())),
        }
    }

    /// Starts a thread with a question to an agent. Records it; `execute` answers it.
    pub async fn ask(&self, asker: &Asker, agent: AgentId, question: &str) -> Result<Started, RunError> {
        let question = parse_question(question)?;
        if asker.person.left_at.is_some() {
            return Err(RunError::NotAllowed("Only current people can ask an agent".into()));
        }
        let agent = self.agent_for(agent, Some(asker.person.id)).await?;
        let now = self.now();
        let author = Author::Person(asker.person.id);
        let (thread, message) = self
            .store
            .create_thread(agent.id, Some(asker.person.id), &title_of(&question), &author, &question, now)
            .await?;
        let new = NewRun {
            thread: thread.id,
            message: message.id,
            agent: agent.id,
            for_person: Some(asker.person.id),
            kind: RunKind::Ask,
            unwatched: asker.unwatched,
            retry_of: None,
        };
        let run = self.store.create_run(&new, now).await?;
        tracing::info!(run = %run.id, thread = %thread.id, agent = %agent.id, unwatched = asker.unwatched, "asked");
        Ok(Started { thread: thread.id, run: run.id })
    }

    /// Asks again in a thread the asker may read; refused while its last question is unanswered.
    pub async fn ask_in_thread(&self, asker: &Asker, thread: ThreadId, question: &str) -> Result<Started, RunError> {
        let question = parse_question(question)?;
        let t = self.threads.readable_thread(&asker.person, thread).await?;
        let runs = self.store.runs_of_thread(t.id).await?;
        if t.person.is_none() && runs.iter().any(|r| r.kind == RunKind::Schedule) {
            return Err(RunError::Invalid(
                "A scheduled run's thread is read, not asked in; ask the agent on the Ask page".into(),
            ));
        }
        if t.person.is_none() && runs.iter().any(super::reading::for_nobody) {
            return Err(RunError::Invalid(
                "An agent token's run is read here, not asked in; ask the agent on the Ask page".into(),
            ));
        }
        if runs.iter().any(|r| r.state == RunState::Running) {
            return Err(RunError::Invalid("Wait for the answer before asking again".into()));
        }
        let now = self.now();
        let message = self.store.add_message(t.id, &Author::Person(asker.person.id), &question, now).await?;
        let new = NewRun {
            thread: t.id,
            message: message.id,
            agent: t.agent,
            for_person: Some(asker.person.id),
            kind: RunKind::Ask,
            unwatched: asker.unwatched,
            retry_of: None,
        };
        let run = self.store.create_run(&new, now).await?;
        Ok(Started { thread: t.id, run: run.id })
    }

    /// Records a run nobody asked in a thread (a schedule, a trigger, an eval, a consult).
    pub async fn start(&self, request: RunRequest) -> Result<Started, RunError> {
        if request.kind == RunKind::Ask {
            return Err(RunError::Invalid("A person's ask starts with Ask, not a scheduled run".into()));
        }
        let question = match request.kind {
            RunKind::Schedule => parse_unasked(&request.question)?,
            _ => parse_question(&request.question)?,
        };
        let agent = self.agent_for(request.agent, request.for_person.as_ref().map(|p| p.id)).await?;
        let now = self.now();
        let person = request.for_person.as_ref().map(|p| p.id);
        let author = match person {
            Some(p) => Author::Person(p),
            None => Author::Agent(agent.id),
        };
        let (thread, message) =
            self.store.create_thread(agent.id, person, &title_of(&question), &author, &question, now).await?;
        let new = NewRun {
            thread: thread.id,
            message: message.id,
            agent: agent.id,
            for_person: person,
            kind: request.kind,
            // Nobody watches a scheduled run: its answer is posted once checked.
            unwatched: request.kind == RunKind::Schedule,
            retry_of: None,
        };
        let run = self.store.create_run(&new, now).await?;
        Ok(Started { thread: thread.id, run: run.id })
    }

    /// Try again: a new run on the same message; the old one is closed as retried, never deleted.
    pub async fn retry(&self, asker: &Asker, run: RunId) -> Result<Started, RunError> {
        self.retry_from(asker, run, None).await
    }

    /// Try again from step `n`: a new run that keeps the steps before it (what memory it was
    /// given and the reads it made) and takes the rest again.
    pub async fn retry_step(&self, asker: &Asker, run: RunId, step: u32) -> Result<Started, RunError> {
        self.retry_from(asker, run, Some(step)).await
    }

    async fn retry_from(&self, asker: &Asker, run: RunId, step: Option<u32>) -> Result<Started, RunError> {
        let old = self.threads.readable_run(&asker.person, run).await?;
        if old.kind == RunKind::External {
            return Err(RunError::Invalid(
                "An external run is taken by the outside agent that started it; start a new one there".into(),
            ));
        }
        // A scheduled run is taken up again once by the tick; beyond that, only its agent's owner
        // tries it again (its team's lead and admins read it).
        if old.kind == RunKind::Schedule && self.agent(old.agent).await?.owner != asker.person.id {
            return Err(RunError::NotAllowed("Only the agent's owner can try a scheduled run again".into()));
        }
        match old.state {
            RunState::Running => return Err(RunError::Invalid("This run is still working; wait for it to end".into())),
            RunState::Retried => return Err(RunError::Invalid("This run was already tried again".into())),
            RunState::Answered | RunState::Failed => {}
        }
        if let Some(n) = step {
            if !old.steps.iter().any(|s| s.n == n) {
                return Err(RunError::NotFound(format!("This run has no step {n}")));
            }
        }
        let now = self.now();
        let new = NewRun {
            thread: old.thread,
            message: old.message,
            agent: old.agent,
            for_person: old.for_person,
            kind: old.kind,
            unwatched: asker.unwatched,
            retry_of: Some(old.id),
        };
        let fresh = self.store.create_run(&new, now).await?;
        if let Some(n) = step {
            for s in old.steps.iter().filter(|s| s.n < n) {
                let kept = NewStep {
                    kind: s.kind,
                    line: s.line.clone(),
                    words: s.words.clone(),
                    refs: s.refs.clone(),
                    detail: s.detail.clone(),
                };
                self.store.add_step(fresh.id, &kept, now).await?;
            }
        }
        self.store.close_retried(old.id, fresh.id, now).await?;
        Ok(Started { thread: old.thread, run: fresh.id })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn questions_are_trimmed_and_bounded_in_words() {
        assert_eq!(parse_question("  what are our sales stages \n").unwrap(), "what are our sales stages");
        assert_eq!(parse_question(" \n ").unwrap_err().to_string(), "Write a question first");
        let long = "a".repeat(QUESTION_MAX_CHARS + 1);
        assert_eq!(
            parse_question(&long).unwrap_err().to_string(),
            "A question can be at most 4,000 characters; this one has 4,001"
        );
    }

    #[test]
    fn a_title_is_the_first_line_cut_at_a_word() {
        assert_eq!(title_of("what are our sales stages\nmore"), "what are our sales stages");
        let t = title_of(&"word ".repeat(40));
        assert!(t.ends_with('…') && t.chars().count() <= 81, "{t}");
    }
}
