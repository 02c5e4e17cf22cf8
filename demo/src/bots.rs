//! The demo's bots: a vault with three of them, and their first wakes, recorded through the real
//! pipeline (wake, wake-done, reflect, proposal) with recorded model replies, so the agent pages
//! show real content without a model.

use async_trait::async_trait;
use engine::persona::model::{ChatModel, ModelChoice, ModelError, Models};
use engine::persona::self_edit::EditRequest;
use engine::persona::service::{Bots, Caller, WakeReport};
use engine::persona::vault::Vault;
use engine::store::Store;
use engine::Clock;
use std::sync::Arc;

/// The vault the demo ships, written out when the folder has no configuration yet.
pub const VAULT_FILES: [(&str, &str); 10] = [
    (".agents/org/org.yaml", include_str!("../vault/.agents/org/org.yaml")),
    (".agents/org/org-agents.json", include_str!("../vault/.agents/org/org-agents.json")),
    (".agents/org/memory/scout.md", include_str!("../vault/.agents/org/memory/scout.md")),
    (".agents/org/memory/scout.user.md", include_str!("../vault/.agents/org/memory/scout.user.md")),
    (".agents/org/memory/helper.md", include_str!("../vault/.agents/org/memory/helper.md")),
    (".agents/org/memory/builder.md", include_str!("../vault/.agents/org/memory/builder.md")),
    ("knowledge/scout/qualifying.md", include_str!("../vault/knowledge/scout/qualifying.md")),
    ("knowledge/helper/refunds.md", include_str!("../vault/knowledge/helper/refunds.md")),
    ("knowledge/builder/releases.md", include_str!("../vault/knowledge/builder/releases.md")),
    (".agents/org/runs/README.md", "Transcripts of the bots' runs, one JSON line per tool call or result.\n"),
];

/// Writes the demo vault unless it already holds a configuration.
pub async fn ensure_vault(vault: &dyn Vault) -> Result<bool, String> {
    if vault.read(engine::persona::vault::ORG_AGENTS_JSON).await.map_err(|e| e.to_string())?.is_some() {
        return Ok(false);
    }
    for (path, text) in VAULT_FILES {
        vault.write(path, text).await.map_err(|e| e.to_string())?;
    }
    Ok(true)
}

struct Run {
    agent: &'static str,
    task: &'static str,
    wake: &'static str,
    status: Option<&'static str>,
    exit: i32,
    turns: u32,
    cost: f64,
    duration: f64,
    result: &'static str,
    transcript: &'static str,
    /// Marked corrected afterwards, as a reviewer's redo would.
    redo: bool,
}

const RUNS: [Run; 7] = [
    Run {
        agent: "scout",
        task: "Research Chai Point as a lead",
        wake: "scout-0001",
        status: Some("done"),
        exit: 0,
        turns: 6,
        cost: 0.08,
        duration: 94.0,
        result: "Chai Point is already in the CRM under Alice; noted the owner and stopped.",
        transcript: "{\"tool\":\"crm_search\",\"args\":{\"q\":\"Chai Point\"}}\n{\"result\":\"1 account, owner alice@acme.example\"}\n{\"tool\":\"web_search\",\"args\":{\"q\":\"chaipoint.com team\"}}\n{\"result\":\"403 blocked\"}\n",
        redo: false,
    },
    Run {
        agent: "scout",
        task: "Qualify Zeta Foods",
        wake: "scout-0002",
        status: Some("done"),
        exit: 0,
        turns: 5,
        cost: 0.06,
        duration: 71.0,
        result: "Zeta Foods qualified: 120 staff in Bengaluru; contact Priya Nair, head of procurement.",
        transcript: "{\"tool\":\"crm_search\",\"args\":{\"q\":\"Zeta Foods\"}}\n{\"result\":\"0 accounts\"}\n{\"tool\":\"web_search\",\"args\":{\"q\":\"zetafoods.in\"}}\n{\"result\":\"403 blocked\"}\n{\"tool\":\"web_search\",\"args\":{\"q\":\"Zeta Foods registry\"}}\n{\"result\":\"registered 2014, 120 staff\"}\n",
        redo: false,
    },
    Run {
        agent: "scout",
        task: "Follow up on Acme Rail",
        wake: "scout-0003",
        status: Some("blocked"),
        exit: 0,
        turns: 3,
        cost: 0.03,
        duration: 40.0,
        result: "Blocked: Acme Rail lists no contact; a person needs to ask for an introduction.",
        transcript: "{\"tool\":\"crm_search\",\"args\":{\"q\":\"Acme Rail\"}}\n{\"result\":\"0 accounts\"}\n",
        redo: false,
    },
    Run {
        agent: "helper",
        task: "Refund request #4411",
        wake: "helper-0001",
        status: Some("done"),
        exit: 0,
        turns: 4,
        cost: 0.02,
        duration: 33.0,
        result: "Drafted the refund reply citing policy 4.2; Sue sent it.",
        transcript: "{\"tool\":\"kb_search\",\"args\":{\"q\":\"refund policy\"}}\n{\"result\":\"Policy 4.2\"}\n",
        redo: false,
    },
    Run {
        agent: "helper",
        task: "Escalation from Bhatia Traders",
        wake: "helper-0002",
        status: Some("request_changes"),
        exit: 0,
        turns: 7,
        cost: 0.05,
        duration: 120.0,
        result: "Drafted a reply promising the refund by Friday; Sue asked for changes.",
        transcript: "{\"tool\":\"tickets_read\",\"args\":{\"id\":4419}}\n{\"result\":\"refund ₹14,500\"}\n",
        redo: true,
    },
    Run {
        agent: "builder",
        task: "Bump the release notes template",
        wake: "builder-0001",
        status: Some("done"),
        exit: 0,
        turns: 9,
        cost: 0.21,
        duration: 300.0,
        result: "Updated the template and its test; merged.",
        transcript: "{\"tool\":\"git\",\"args\":{\"cmd\":\"diff\"}}\n{\"tool\":\"cargo\",\"args\":{\"cmd\":\"test\"}}\n{\"result\":\"ok\"}\n",
        redo: false,
    },
    Run {
        agent: "builder",
        task: "Check the nightly build",
        wake: "builder-0002",
        status: None,
        exit: 1,
        turns: 2,
        cost: 0.01,
        duration: 12.0,
        result: "error: the build machine did not answer",
        transcript: "",
        redo: false,
    },
];

/// The model's replies, in the order the wakes above call for them. Row ids are those a fresh
/// database gives: scout's first wake adds lines 1 and 2.
const REPLIES: [&str; 7] = [
    r#"{"operations": [
        {"op": "add", "kind": "lesson", "text": "I check the CRM for an existing account before I research a company."},
        {"op": "add", "kind": "friction", "text": "I lose time when a lead's website blocks my search tool."}
    ]}"#,
    r#"{"operations": [{"op": "update", "id": 1}, {"op": "update", "id": 2}]}"#,
    r#"{"path": ".agents/org/org.yaml",
        "diff": "@@ -11,2 +11,3 @@\n       - Check the CRM before adding a lead.\n       - Say when I am unsure.\n+      - When a site blocks my search tool, I use the company registry instead.\n",
        "rationale": "Twice a lead's site blocked my search tool and I lost turns retrying it; the registry answered at once."}"#,
    r#"{"operations": [{"op": "add", "kind": "preference", "text": "I prefer leads with a named contact I can hand over."}]}"#,
    r#"{"operations": [{"op": "add", "kind": "lesson", "text": "I quote the refund policy section number in every refund reply."}]}"#,
    r#"{"operations": [{"op": "add", "kind": "anti_pattern", "text": "I promised a refund date before finance confirmed it."}]}"#,
    r#"{"operations": [{"op": "none"}]}"#,
];

/// Records the demo runs if no bot has an episode yet. Returns whether it did.
pub async fn seed_episodes(
    store: Arc<dyn Store>,
    vault: Arc<dyn Vault>,
    clock: Arc<dyn Clock>,
) -> Result<bool, String> {
    for agent in ["scout", "helper", "builder"] {
        if !store.episodes(agent, None).await.map_err(|e| e.to_string())?.is_empty() {
            return Ok(false);
        }
    }
    let recorded = Arc::new(RecordedModel::new(REPLIES.iter().map(|r| r.to_string()).collect()));
    let bots = Bots::new(store, clock, Some(vault.clone()), Arc::new(Recorded(recorded)), u32::MAX, None);
    let op = Caller::Operator;
    let e = |e: engine::persona::service::PersonaError| e.to_string();
    for r in RUNS {
        let task = bots.wakes.create_task(&op, r.agent, r.task, "").await.map_err(e)?;
        let w = bots.wakes.wake(&op, r.agent, Some(task.id), "assigned").await.map_err(e)?;
        if let Some(status) = r.status {
            bots.wakes.post_status(&Caller::Bot(r.agent.to_string()), task.id, status, "").await.map_err(e)?;
        }
        let transcript = if r.transcript.is_empty() {
            None
        } else {
            let path = format!(".agents/org/runs/{}.jsonl", r.wake);
            vault.write(&path, r.transcript).await.map_err(|e| e.to_string())?;
            Some(path)
        };
        let report = WakeReport {
            wake: r.wake.to_string(),
            exit: r.exit,
            result: r.result.to_string(),
            turns: Some(r.turns),
            cost_usd: Some(r.cost),
            duration_s: Some(r.duration),
            log_path: Some(format!("logs/{}.log", r.wake)),
            transcript_path: transcript,
        };
        let done = bots.wakes.wake_done(&op, &[w.id], &report).await.map_err(e)?;
        for note in &done.notes {
            tracing::warn!(run = r.wake, note, "demo run");
        }
        if r.redo {
            bots.wakes.redo(&op, task.id).await.map_err(e)?;
        }
    }
    seed_self_edits(&bots).await?;
    Ok(true)
}

/// Scout's own edits after its runs (seed 003): one carried out at once, undoable for the grace
/// period, and one forget its policy sends to Sam for approval.
async fn seed_self_edits(bots: &Bots) -> Result<(), String> {
    let scout = Caller::Bot("scout".to_string());
    let rows = bots.pages.memory(&scout, "scout", false).await.map_err(|e| e.to_string())?;
    let id = |start: &str| {
        rows.iter().find(|r| r.text.starts_with(start)).map(|r| r.id).ok_or_else(|| format!("no line {start:?}"))
    };
    let edits = [
        ("strengthen", format!("strategy:{}", id("I check the CRM")?), "The CRM check found the owner in two runs"),
        (
            "forget",
            id("I prefer leads with a named contact")?.to_string(),
            "Sam hands over leads without a contact too",
        ),
    ];
    for (action, target, reason) in edits {
        let req = EditRequest { action: action.into(), target, content: None, reason: reason.into() };
        let done = bots.self_edits.self_edit(&scout, &req).await.map_err(|e| e.to_string())?;
        if let Some(why) = done.refusal {
            return Err(format!("the demo's self-edit was refused: {why}"));
        }
    }
    Ok(())
}

/// Replays recorded replies in order: the demo seeds its episodes through the real pipeline with
/// these, so no model is needed to show real content.
pub struct RecordedModel {
    replies: std::sync::Mutex<std::collections::VecDeque<String>>,
}

impl RecordedModel {
    pub fn new(replies: Vec<String>) -> Self {
        Self { replies: std::sync::Mutex::new(replies.into()) }
    }
}

#[async_trait]
impl ChatModel for RecordedModel {
    fn name(&self) -> String {
        "recorded/demo".to_string()
    }

    async fn chat(&self, _system: &str, _user: &str) -> Result<String, ModelError> {
        let mut q = self.replies.lock().map_err(|_| ModelError::BadResponse("poisoned".into()))?;
        q.pop_front().ok_or_else(|| ModelError::Unreachable("no recorded reply left".into()))
    }
}

pub struct Recorded(pub Arc<RecordedModel>);

impl Models for Recorded {
    fn resolve(&self, agent_model: &str) -> ModelChoice {
        if agent_model == "off" {
            return ModelChoice::Off("this agent's reflect.model is off".into());
        }
        ModelChoice::Use(self.0.clone())
    }

    fn describe(&self) -> String {
        "Reflect replays recorded replies.".to_string()
    }
}
