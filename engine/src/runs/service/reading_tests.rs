//! Who may read a thread, tried against the in-memory directory and a list of threads, messages
//! and runs: its person, or for a run acting for nobody the agent's owner; anyone else is told
//! there is no such thread. An answer held for its check stays out. No database.

use super::*;
use crate::kernel::DataLabel;
use crate::kernel::StoreError;
use crate::kernel::{AgentId, MessageId, PersonId, RunId, TeamId, ThreadId};
use crate::org::fake::{person, WithOrg};
use crate::org::Agent;
use crate::runs::check::{CheckEnd, CheckState, LimitNotice};
use crate::runs::store::{RunStore, ThreadListStore};
use crate::runs::{Author, Message, NewEvent, NewRun, NewStep, Run, RunCheck, RunEnd, RunKind, Step, ThreadLine};
use std::sync::Mutex;

#[derive(Default)]
struct RunRows {
    threads: Vec<Thread>,
    messages: Vec<Message>,
    runs: Mutex<Vec<Run>>,
}

type Fake = WithOrg<RunRows>;

fn unsupported(what: &str) -> StoreError {
    StoreError::Backend(format!("the fake does not {what}"))
}

/// As the real stores: the agent's name, the first message's time, and whether a run works.
#[async_trait::async_trait]
impl ThreadListStore for Fake {
    async fn thread_lines(&self, person: PersonId, limit: u32) -> Result<Vec<ThreadLine>, StoreError> {
        let mut lines = Vec::new();
        for t in self.threads_for(person, limit).await? {
            let agent_name = crate::org::store::OrgStore::agent(self, t.agent).await?.map(|a| a.name);
            let runs = self.runs_of_thread(t.id).await?;
            lines.push(ThreadLine {
                id: t.id,
                agent: t.agent,
                agent_name,
                title: t.title,
                asked_at: self.rows.messages.iter().find(|m| m.thread == t.id).map(|m| m.at),
                working: runs.iter().any(|r| r.state == RunState::Running || r.checking()),
            });
        }
        Ok(lines)
    }
}

#[async_trait::async_trait]
impl RunStore for Fake {
    async fn create_thread(
        &self,
        _: AgentId,
        _: Option<PersonId>,
        _: &str,
        _: &Author,
        _: &str,
        _: DateTime<Utc>,
    ) -> Result<(Thread, Message), StoreError> {
        Err(unsupported("start threads"))
    }
    async fn add_message(&self, _: ThreadId, _: &Author, _: &str, _: DateTime<Utc>) -> Result<Message, StoreError> {
        Err(unsupported("add messages"))
    }
    async fn thread(&self, id: ThreadId) -> Result<Option<Thread>, StoreError> {
        Ok(self.rows.threads.iter().find(|t| t.id == id).cloned())
    }
    async fn messages(&self, thread: ThreadId) -> Result<Vec<Message>, StoreError> {
        Ok(self.rows.messages.iter().filter(|m| m.thread == thread).cloned().collect())
    }
    async fn threads_for(&self, person: PersonId, limit: u32) -> Result<Vec<Thread>, StoreError> {
        let mine = self.rows.threads.iter().rev().filter(|t| t.person == Some(person));
        Ok(mine.take(limit as usize).cloned().collect())
    }
    async fn create_run(&self, _: &NewRun, _: DateTime<Utc>) -> Result<Run, StoreError> {
        Err(unsupported("record runs"))
    }
    async fn run(&self, id: RunId) -> Result<Option<Run>, StoreError> {
        Ok(self.rows.runs.lock().expect("the rows").iter().find(|r| r.id == id).cloned())
    }
    async fn runs_of_thread(&self, thread: ThreadId) -> Result<Vec<Run>, StoreError> {
        Ok(self.rows.runs.lock().expect("the rows").iter().filter(|r| r.thread == thread).cloned().collect())
    }
    async fn add_step(&self, _: RunId, _: &NewStep, _: DateTime<Utc>) -> Result<Step, StoreError> {
        Err(unsupported("add steps"))
    }
    async fn end_run(&self, _: RunId, _: &RunEnd, _: DateTime<Utc>) -> Result<Run, StoreError> {
        Err(unsupported("end runs"))
    }
    async fn close_retried(&self, _: RunId, _: RunId, _: DateTime<Utc>) -> Result<(), StoreError> {
        Err(unsupported("retry runs"))
    }
    async fn stale_runs(&self, _: DateTime<Utc>) -> Result<Vec<RunId>, StoreError> {
        Err(unsupported("find stale runs"))
    }
    async fn record_event(&self, _: &NewEvent, _: DateTime<Utc>) -> Result<Event, StoreError> {
        Err(unsupported("record events"))
    }
    async fn events_after(&self, _: i64, _: u32) -> Result<Vec<Event>, StoreError> {
        Ok(vec![])
    }
    async fn record_check(&self, _: RunId, _: &CheckEnd, _: DateTime<Utc>) -> Result<Vec<LimitNotice>, StoreError> {
        Err(unsupported("record checks"))
    }
    async fn stale_checks(&self, _: DateTime<Utc>) -> Result<Vec<RunId>, StoreError> {
        Err(unsupported("find stale checks"))
    }
    async fn limit_notices(&self, _: i64) -> Result<Vec<LimitNotice>, StoreError> {
        Err(unsupported("read notices"))
    }
    async fn checked_only(&self) -> Result<Vec<String>, StoreError> {
        Ok(vec![])
    }
    async fn set_checked_only(&self, _: &str, _: bool, _: crate::kernel::Actor) -> Result<(), StoreError> {
        Err(unsupported("change checked-only scopes"))
    }
    async fn message(&self, id: MessageId) -> Result<Option<Message>, StoreError> {
        Ok(self.rows.messages.iter().find(|m| m.id == id).cloned())
    }
}

const OWNER: PersonId = PersonId(1);
const ASKER: PersonId = PersonId(2);
const OTHER: PersonId = PersonId(3);
const AGENT: AgentId = AgentId(7);
/// Asker's thread: their question and the agent's answer, whose run is held for its check.
const ASKED: ThreadId = ThreadId(1);
/// The agent's scheduled thread, acting for nobody.
const SCHEDULED: ThreadId = ThreadId(2);

fn at() -> DateTime<Utc> {
    chrono::DateTime::parse_from_rfc3339("2026-12-01T09:00:00Z").expect("a time").with_timezone(&Utc)
}

fn message(id: i64, thread: ThreadId, author: Author, text: &str, answer_of: Option<RunId>) -> Message {
    Message { id: MessageId(id), thread, author, text: text.into(), at: at(), answer_of }
}

fn run(id: i64, thread: ThreadId, message: i64, for_person: Option<PersonId>) -> Run {
    Run {
        id: RunId(id),
        thread,
        message: MessageId(message),
        agent: AGENT,
        for_person,
        kind: if for_person.is_some() { RunKind::Ask } else { RunKind::Schedule },
        state: RunState::Answered,
        unwatched: false,
        data_label: DataLabel::Internal,
        sources: vec![],
        review_mode: false,
        model: None,
        answer: Some("The answer".into()),
        failure: None,
        retry_of: None,
        check: Some(RunCheck { state: CheckState::NotNeeded, reason: None }),
        checked_only: false,
        steps: vec![],
        created_at: at(),
        finished_at: Some(at()),
    }
}

fn threads() -> (Threads, Arc<Fake>) {
    let org = crate::org::fake::FakeOrg::with(
        vec![person(1, "Olga", false, Some(1)), person(2, "Arun", false, Some(1)), person(3, "Bea", true, Some(1))],
        vec![],
        vec![],
    );
    org.dir.lock().expect("the directory").agents.push(Agent {
        id: AGENT,
        name: "Support Agent".into(),
        template: "support".into(),
        role: None,
        owner: OWNER,
        team_copy: None::<TeamId>,
        description: String::new(),
        copy_of: None,
        private: false,
    });
    let rows = RunRows {
        threads: vec![
            Thread { id: ASKED, agent: AGENT, person: Some(ASKER), title: "Refunds".into(), created_at: at() },
            Thread { id: SCHEDULED, agent: AGENT, person: None, title: "Escalations".into(), created_at: at() },
        ],
        messages: vec![
            message(1, ASKED, Author::Person(ASKER), "What is our refund window?", None),
            message(2, ASKED, Author::Agent(AGENT), "30 days", Some(RunId(1))),
            message(3, SCHEDULED, Author::Agent(AGENT), "Two escalations are open", Some(RunId(2))),
        ],
        runs: Mutex::new(vec![run(1, ASKED, 1, Some(ASKER)), run(2, SCHEDULED, 3, None)]),
    };
    let fake = Arc::new(WithOrg { org, rows });
    (Threads { store: fake.clone() }, fake)
}

fn who(fake: &Fake, id: PersonId) -> Person {
    fake.org.person_now(id).expect("in the directory")
}

#[tokio::test]
async fn a_thread_is_read_by_its_person_and_anyone_else_is_told_there_is_none() {
    let (threads, fake) = threads();
    let view = threads.thread(&who(&fake, ASKER), ASKED).await.expect("their own thread");
    assert_eq!(view.messages.len(), 2);
    assert_eq!(view.messages[1].author, "Support Agent");
    let none = RunError::NotFound("There is no such thread".into());
    assert_eq!(threads.thread(&who(&fake, OWNER), ASKED).await.unwrap_err(), none, "not the agent's owner");
    assert_eq!(threads.thread(&who(&fake, OTHER), ASKED).await.unwrap_err(), none, "not an admin either");
    let run = RunError::NotFound("There is no such run".into());
    assert_eq!(threads.run(&who(&fake, OTHER), RunId(1)).await.unwrap_err(), run);
    let mine = threads.my_threads(&who(&fake, ASKER)).await.expect("their threads");
    assert_eq!(mine.iter().map(|t| t.id).collect::<Vec<_>>(), vec![ASKED]);
}

#[tokio::test]
async fn a_run_for_nobody_is_read_by_its_agents_owner_alone() {
    let (threads, fake) = threads();
    let view = threads.thread(&who(&fake, OWNER), SCHEDULED).await.expect("the owner reads it");
    assert_eq!(view.messages[0].text, "Two escalations are open");
    assert!(threads.thread(&who(&fake, ASKER), SCHEDULED).await.is_err());
    assert!(threads.run(&who(&fake, OWNER), RunId(2)).await.is_ok());
}

#[tokio::test]
async fn an_answer_that_shows_only_once_checked_stays_out_while_it_is_checked() {
    let (threads, fake) = threads();
    {
        let mut runs = fake.rows.runs.lock().expect("the rows");
        runs[0].checked_only = true;
        runs[0].check = Some(RunCheck { state: CheckState::Checking, reason: None });
    }
    let view = threads.thread(&who(&fake, ASKER), ASKED).await.expect("their thread");
    assert_eq!(view.messages.len(), 1, "the answer waits for its check");
    assert!(view.working, "the thread says it is still working");

    fake.rows.runs.lock().expect("the rows")[0].check = Some(RunCheck { state: CheckState::Checked, reason: None });
    let view = threads.thread(&who(&fake, ASKER), ASKED).await.expect("their thread");
    assert_eq!(view.messages.len(), 2, "once checked, the answer shows");
}

#[tokio::test]
async fn only_an_admin_reads_events() {
    let (threads, fake) = threads();
    let refused = threads.events_after(&who(&fake, ASKER), 0).await.unwrap_err();
    assert_eq!(refused, RunError::NotAllowed("Only an admin can see events".into()));
    assert!(threads.events_after(&who(&fake, OTHER), 0).await.is_ok());
}

#[tokio::test]
async fn a_persons_list_of_threads_says_what_their_threads_say() {
    let (threads, fake) = threads();
    let asker = who(&fake, ASKER);
    let full = threads.my_threads(&asker).await.expect("their threads");
    let list = threads.my_thread_list(&asker).await.expect("their list");
    let summary = |t: &ThreadView| ThreadSummary {
        id: t.id,
        agent_name: t.agent_name.clone(),
        title: t.title.clone(),
        asked_at: t.messages.first().map(|m| m.at),
        working: t.working,
    };
    assert_eq!(list, full.iter().map(summary).collect::<Vec<_>>());
    assert_eq!((list[0].agent_name.as_str(), list[0].working), ("Support Agent", false));

    fake.rows.runs.lock().expect("the rows")[0].check = Some(RunCheck { state: CheckState::Checking, reason: None });
    let list = threads.my_thread_list(&asker).await.expect("their list");
    assert!(list[0].working, "an answer being checked is still working");
    assert!(threads.my_thread_list(&who(&fake, OWNER)).await.expect("none").is_empty(), "not another's threads");
}
