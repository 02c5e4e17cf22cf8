//! The self-edits' rules, tested against a small fake of their narrow port (`SelfEditPorts`) and
//! a vault in memory: no database. The store's own decisions (the policy's limits, approvals,
//! the grace period) are the contract suite's; here is what the service decides before it asks.

use super::*;
use crate::clock::ManualClock;
use crate::kernel::StoreError;
use crate::org::PersonId;
use crate::persona::audn::AudnOp;
use crate::persona::backlog::{AppliedOps, Episode, NewEpisode, NewTask, StatusEntry, Task, Wakeup};
use crate::persona::bot_tokens::{AgentToken, PresentedToken};
use crate::persona::config::SelfEditPolicy;
use crate::persona::model::{ModelChoice, Models};
use crate::persona::self_edit_store::{KnowledgeGap, SelfEditStore};
use crate::persona::store::{FinishedWake, PersonaStore};
use crate::persona::vault::{core_path, Link, Vault, VaultError, ORG_AGENTS_JSON, ORG_YAML};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use std::collections::HashMap;
use std::sync::Mutex;

/// What the fake store was asked to do, in order, so a test can say the store was never asked.
#[derive(Debug, Clone, PartialEq)]
enum Asked {
    /// A request, with the policy it was to be decided under.
    Request(String, SelfEditPolicy),
    Decide(i64, bool),
    Undo(i64, Option<PersonId>),
}

/// The self-edits a store keeps, in memory; a request is always applied. It keeps no memory rows,
/// and nothing else of the bots: what the self-edits never call answers an error saying so.
#[derive(Default)]
struct Edits {
    kept: Mutex<Vec<SelfEdit>>,
    asked: Mutex<Vec<Asked>>,
}

impl Edits {
    fn with(edits: Vec<SelfEdit>) -> Self {
        Self { kept: Mutex::new(edits), asked: Mutex::default() }
    }

    fn asked(&self) -> Vec<Asked> {
        self.asked.lock().unwrap().clone()
    }

    /// Sets an edit's state and answers it as the store's settle does.
    fn settle(&self, id: i64, state: EditState) -> Result<Settled, StoreError> {
        let mut kept = self.kept.lock().unwrap();
        let edit = kept.iter_mut().find(|e| e.id == id).ok_or_else(|| StoreError::NotFound(format!("{id}")))?;
        edit.state = state;
        Ok(Settled::Done(Box::new(edit.clone())))
    }
}

fn edit(id: i64, agent: &str, state: EditState, at: DateTime<Utc>) -> SelfEdit {
    SelfEdit {
        id,
        agent: agent.into(),
        action: "append".into(),
        target: "memory".into(),
        content: Some("I check the CRM before I answer.".into()),
        reason: "Twice I answered from an old note.".into(),
        state,
        approval: None,
        refusal: None,
        change: None,
        row: None,
        new_row: None,
        before: None,
        after: None,
        created_at: at,
        applied_at: None,
        undo_until: None,
        decided_at: None,
        decided_by: None,
        decided_why: None,
        undone_at: None,
        undone_by: None,
    }
}

fn elsewhere<T>(what: &str) -> Result<T, StoreError> {
    Err(StoreError::Backend(format!("the self-edits' fake keeps no {what}")))
}

#[async_trait]
impl SelfEditStore for Edits {
    async fn self_edit(
        &self,
        agent: &str,
        policy: &SelfEditPolicy,
        req: &EditRequest,
        at: DateTime<Utc>,
    ) -> Result<SelfEdit, StoreError> {
        self.asked.lock().unwrap().push(Asked::Request(agent.into(), policy.clone()));
        let mut kept = self.kept.lock().unwrap();
        let mut new = edit(kept.len() as i64 + 1, agent, EditState::Applied, at);
        (new.action, new.target, new.content, new.reason) =
            (req.action.clone(), req.target.clone(), req.content.clone(), req.reason.clone());
        kept.push(new.clone());
        Ok(new)
    }
    async fn self_edit_by_id(&self, id: i64) -> Result<Option<SelfEdit>, StoreError> {
        Ok(self.kept.lock().unwrap().iter().find(|e| e.id == id).cloned())
    }
    async fn self_edits(&self, agent: &str, limit: u32) -> Result<Vec<SelfEdit>, StoreError> {
        let kept = self.kept.lock().unwrap();
        Ok(kept.iter().rev().filter(|e| e.agent == agent).take(limit as usize).cloned().collect())
    }
    async fn self_edit_counts(&self, _: &str) -> Result<Vec<(EditState, u32)>, StoreError> {
        elsewhere("counts")
    }
    async fn waiting_self_edits(&self, agents: &[String]) -> Result<Vec<SelfEdit>, StoreError> {
        let kept = self.kept.lock().unwrap();
        Ok(kept.iter().filter(|e| e.state == EditState::Waiting && agents.contains(&e.agent)).cloned().collect())
    }
    async fn decide_self_edit(
        &self,
        id: i64,
        approve: bool,
        _: Option<&str>,
        _: &str,
        _: Actor,
    ) -> Result<Settled, StoreError> {
        self.asked.lock().unwrap().push(Asked::Decide(id, approve));
        self.settle(id, if approve { EditState::Applied } else { EditState::Declined })
    }
    async fn undo_self_edit(&self, id: i64, _: &str, actor: Actor) -> Result<Settled, StoreError> {
        self.asked.lock().unwrap().push(Asked::Undo(id, actor.person));
        self.settle(id, EditState::Undone)
    }
    async fn self_profile(&self, _: &str) -> Result<Option<String>, StoreError> {
        Ok(None)
    }
    async fn add_knowledge_gaps(&self, _: &str, _: i64, _: &[String], _: DateTime<Utc>) -> Result<(), StoreError> {
        elsewhere("knowledge gaps")
    }
    async fn knowledge_gaps(&self, _: &str, _: u32) -> Result<Vec<KnowledgeGap>, StoreError> {
        elsewhere("knowledge gaps")
    }
}

#[async_trait]
impl PersonaStore for Edits {
    async fn memory_rows(&self, _: &str, _: bool) -> Result<Vec<MemoryRow>, StoreError> {
        Ok(Vec::new())
    }
    async fn bot_memory_rows(&self, _: &str, _: bool) -> Result<Vec<MemoryRow>, StoreError> {
        Ok(Vec::new())
    }
    async fn create_task(&self, _: &NewTask) -> Result<Task, StoreError> {
        elsewhere("tasks")
    }
    async fn task(&self, _: i64) -> Result<Option<Task>, StoreError> {
        elsewhere("tasks")
    }
    async fn task_log(&self, _: i64) -> Result<Vec<StatusEntry>, StoreError> {
        elsewhere("tasks")
    }
    async fn improve_tasks(&self, _: Option<&str>) -> Result<Vec<Task>, StoreError> {
        elsewhere("tasks")
    }
    async fn post_task_status(&self, _: i64, _: &str, _: &str, _: &str, _: DateTime<Utc>) -> Result<(), StoreError> {
        elsewhere("tasks")
    }
    async fn open_wakeup(&self, _: &str, _: Option<i64>, _: &str, _: DateTime<Utc>) -> Result<Wakeup, StoreError> {
        elsewhere("wakeups")
    }
    async fn wakeups(&self, _: &[i64]) -> Result<Vec<Wakeup>, StoreError> {
        elsewhere("wakeups")
    }
    async fn finish_wakeups(
        &self,
        _: &[i64],
        _: &str,
        _: (&str, &str),
        _: DateTime<Utc>,
    ) -> Result<FinishedWake, StoreError> {
        elsewhere("wakeups")
    }
    async fn insert_episode(&self, _: &NewEpisode) -> Result<Episode, StoreError> {
        elsewhere("episodes")
    }
    async fn episode_by_wake(&self, _: &str, _: &str) -> Result<Option<Episode>, StoreError> {
        elsewhere("episodes")
    }
    async fn episodes(&self, _: &str, _: Option<DateTime<Utc>>) -> Result<Vec<Episode>, StoreError> {
        elsewhere("episodes")
    }
    async fn mark_corrected(&self, _: i64, _: &str) -> Result<Option<Episode>, StoreError> {
        elsewhere("episodes")
    }
    async fn bot_episodes(&self, _: &str) -> Result<Vec<Episode>, StoreError> {
        elsewhere("episodes")
    }
    async fn memory_row(&self, _: i64) -> Result<Option<MemoryRow>, StoreError> {
        elsewhere("memory rows")
    }
    async fn apply_ops(&self, _: &str, _: i64, _: &[AudnOp], _: DateTime<Utc>) -> Result<AppliedOps, StoreError> {
        elsewhere("memory rows")
    }
    async fn edit_memory(&self, _: i64, _: &str, _: &str, _: DateTime<Utc>) -> Result<MemoryRow, StoreError> {
        elsewhere("memory rows")
    }
    async fn retire_memory(&self, _: i64, _: &str, _: &str, _: DateTime<Utc>) -> Result<(), StoreError> {
        elsewhere("memory rows")
    }
    async fn claim_model_call(
        &self,
        _: &str,
        _: &str,
        _: DateTime<Utc>,
        _: u32,
        _: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        elsewhere("model calls")
    }
    async fn model_calls_since(&self, _: DateTime<Utc>) -> Result<u32, StoreError> {
        elsewhere("model calls")
    }
    async fn file_proposal(&self, _: &NewTask, _: i64) -> Result<Task, StoreError> {
        elsewhere("tasks")
    }
    async fn settle_task(
        &self,
        _: i64,
        _: &str,
        _: Option<&str>,
        _: PersonId,
        _: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        elsewhere("tasks")
    }
    async fn create_agent_token(
        &self,
        _: &str,
        _: PersonId,
        _: &str,
        _: &str,
        _: DateTime<Utc>,
        _: DateTime<Utc>,
    ) -> Result<i64, StoreError> {
        elsewhere("tokens")
    }
    async fn agent_token(&self, _: &str) -> Result<Option<PresentedToken>, StoreError> {
        elsewhere("tokens")
    }
    async fn agent_token_used(&self, _: i64, _: DateTime<Utc>) -> Result<(), StoreError> {
        elsewhere("tokens")
    }
    async fn agent_tokens(&self, _: &str) -> Result<Vec<AgentToken>, StoreError> {
        elsewhere("tokens")
    }
    async fn revoke_agent_token(&self, _: &str, _: i64, _: &str, _: Actor) -> Result<bool, StoreError> {
        elsewhere("tokens")
    }
}

/// A vault in memory, holding the roster; what is written stays.
struct Files(Mutex<HashMap<String, String>>);

#[async_trait]
impl Vault for Files {
    async fn read(&self, path: &str) -> Result<Option<String>, VaultError> {
        Ok(self.0.lock().unwrap().get(path).cloned())
    }
    async fn read_tail(&self, path: &str, _: usize) -> Result<Option<String>, VaultError> {
        self.read(path).await
    }
    async fn link(&self, _: &str) -> Result<Option<Link>, VaultError> {
        Ok(None)
    }
    async fn markdown_under(&self, _: &str) -> Result<Vec<String>, VaultError> {
        Ok(Vec::new())
    }
    async fn write(&self, path: &str, text: &str) -> Result<(), VaultError> {
        self.0.lock().unwrap().insert(path.into(), text.into());
        Ok(())
    }
    async fn replace_if_unchanged(&self, path: &str, expected: &str, text: &str) -> Result<bool, VaultError> {
        let mut files = self.0.lock().unwrap();
        if files.get(path).map(String::as_str).unwrap_or("") != expected {
            return Ok(false);
        }
        files.insert(path.into(), text.into());
        Ok(true)
    }
}

/// The self-edits call no model.
struct NoModels;

impl Models for NoModels {
    fn resolve(&self, _: &str) -> ModelChoice {
        ModelChoice::Off("no model in these tests".into())
    }
    fn describe(&self) -> String {
        "no model".into()
    }
}

/// scout is sam's, led by ada, and may make two edits a session; helper is sue's; broken's memory
/// block is refused.
const ROSTER: &str = r#"{"agents": {
    "scout": {"owner": "sam@acme.example", "lead": "ada@acme.example",
              "memory": {"self_edit": {"maxEditsPerSession": 2}}},
    "helper": {"owner": "sue@acme.example"},
    "broken": {"owner": "sam@acme.example", "memory": {"core_budget_tokens": 9000}}}}"#;

fn now() -> DateTime<Utc> {
    "2027-01-04T09:00:00Z".parse().unwrap()
}

fn self_edits(store: Edits) -> (SelfEdits, Arc<Edits>, Arc<Files>) {
    let files = [(ORG_AGENTS_JSON, ROSTER), (ORG_YAML, "agents: {}\n")];
    let vault = Arc::new(Files(Mutex::new(files.iter().map(|(p, t)| (p.to_string(), t.to_string())).collect())));
    let store = Arc::new(store);
    let env = BotEnv::new(Arc::new(ManualClock::new(now())), Some(vault.clone()), Arc::new(NoModels), 10);
    (SelfEdits::new(store.clone(), env), store, vault)
}

fn person(id: i64, email: &str) -> Caller {
    Caller::Person(crate::org::Person {
        id: PersonId(id),
        name: email.split('@').next().unwrap_or_default().into(),
        email: email.into(),
        is_admin: false,
        main_team: None,
        role_override: None,
        manager: None,
        left_at: None,
    })
}

fn request(content: &str) -> EditRequest {
    EditRequest {
        action: "append".into(),
        target: "memory".into(),
        content: Some(content.into()),
        reason: "Twice I answered from an old note.".into(),
    }
}

#[tokio::test]
async fn a_self_edit_is_the_bots_own_decided_under_its_own_policy_and_a_secret_is_never_kept() {
    let (edits, store, vault) = self_edits(Edits::default());
    let req = request("I check the CRM before I answer.");

    let by_owner = edits.self_edit(&person(1, "sam@acme.example"), &req).await.unwrap_err();
    assert!(matches!(by_owner, PersonaError::NotAllowed(_)), "{by_owner:?}");
    let secret = request("The CRM key is AKIAIOSFODNN7EXAMPLE.");
    let refused = edits.self_edit(&Caller::Bot("scout".into()), &secret).await.unwrap_err();
    assert!(matches!(refused, PersonaError::Secret(_)), "{refused:?}");
    let broken = edits.self_edit(&Caller::Bot("broken".into()), &req).await.unwrap_err();
    assert!(matches!(broken, PersonaError::Invalid(_)), "{broken:?}");
    assert_eq!(store.asked(), vec![], "nothing refused here reached the store, so no secret was recorded");

    let done = edits.self_edit(&Caller::Bot("scout".into()), &req).await.unwrap();
    assert_eq!((done.agent.as_str(), done.state), ("scout", EditState::Applied));
    let Asked::Request(agent, policy) = &store.asked()[0] else { panic!("{:?}", store.asked()) };
    assert_eq!((agent.as_str(), policy.max_edits_per_session), ("scout", 2), "scout's own limit, not the default");
    assert!(vault.read(&core_path("scout")).await.unwrap().is_some(), "an applied edit renders core.md again");
}

#[tokio::test]
async fn only_the_owner_or_lead_decides_a_waiting_edit_and_the_store_is_not_asked_otherwise() {
    let (edits, store, vault) = self_edits(Edits::with(vec![edit(1, "scout", EditState::Waiting, now())]));

    for who in [person(3, "sue@acme.example"), Caller::Bot("scout".into()), Caller::Operator] {
        let e = edits.decide_self_edit(&who, 1, true, None).await.unwrap_err();
        assert!(matches!(e, PersonaError::NotAllowed(_)), "{who:?}: {e:?}");
    }
    assert_eq!(store.asked(), vec![]);
    assert_eq!(edits.waiting_self_edits(&person(3, "sue@acme.example")).await.unwrap(), vec![], "not sue's bot");
    assert_eq!(edits.waiting_self_edits(&person(2, "ada@acme.example")).await.unwrap().len(), 1, "ada leads scout");

    let declined = edits.decide_self_edit(&person(2, "ada@acme.example"), 1, false, Some("no")).await.unwrap();
    assert_eq!(declined.state, EditState::Declined);
    assert_eq!(store.asked(), vec![Asked::Decide(1, false)]);
    assert!(vault.read(&core_path("scout")).await.unwrap().is_none(), "a declined edit changed no memory");
}

#[tokio::test]
async fn a_bot_undoes_only_its_own_edits_and_as_no_person() {
    let (edits, store, _) = self_edits(Edits::with(vec![edit(1, "scout", EditState::Applied, now())]));

    let e = edits.undo_self_edit(&Caller::Bot("helper".into()), 1).await.unwrap_err();
    assert!(matches!(e, PersonaError::NotAllowed(_)), "{e:?}");
    let e = edits.undo_self_edit(&person(3, "sue@acme.example"), 1).await.unwrap_err();
    assert!(matches!(e, PersonaError::NotAllowed(_)), "{e:?}");
    assert_eq!(store.asked(), vec![]);

    let undone = edits.undo_self_edit(&Caller::Bot("scout".into()), 1).await.unwrap();
    assert_eq!(undone.state, EditState::Undone);
    assert_eq!(store.asked(), vec![Asked::Undo(1, None)], "the bot's own undo names no person");
}
