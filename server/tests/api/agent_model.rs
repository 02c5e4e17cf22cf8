//! The chat clients agents answer through, against a stand-in model over real HTTP.

use crate::agent_model_server::{AgentModelServer, AgentReply};
use crate::helpers::spawn_app_with_agent_model;
use crate::model_server::dead_url;
use engine::runs::model::{AgentModel, AgentModelChoice, ModelError, Reply, ToolCall, ToolSpec, Turn, TurnRole};
use serde_json::{json, Value};
use server::agent_model::ConfiguredAgentModels;
use server::llm::ModelSettings;
use std::sync::Arc;
use std::time::Duration;

fn model(settings: &ModelSettings) -> Arc<dyn AgentModel> {
    match ConfiguredAgentModels::new(settings).choice() {
        AgentModelChoice::Use(m) => m.clone(),
        AgentModelChoice::Off(why) => panic!("no agent model: {why}"),
    }
}

fn tools() -> Vec<ToolSpec> {
    vec![ToolSpec {
        name: "acme_ats__search_leads".into(),
        description: "Finds leads whose company, contact, city, notes or id contain the query.".into(),
        parameters: json!({"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}),
    }]
}

fn question() -> Vec<Turn> {
    vec![Turn::system("You are one of the company's AI agents."), Turn::user("What stage is Nimbus Logistics at?")]
}

/// Asks, gets a call, sends its result back, gets the answer.
async fn round_trip(m: &dyn AgentModel, stand_in: &AgentModelServer) -> (Vec<Turn>, ToolCall) {
    stand_in.script([
        AgentReply::call("acme_ats__search_leads", json!({"query": "Nimbus Logistics"})),
        AgentReply::answer("Nimbus Logistics is at the Proposal stage."),
    ]);
    let mut turns = question();
    let Reply::ToolCalls(calls) = m.reply(&turns, &tools()).await.expect("a reply") else {
        panic!("the model asked for a tool")
    };
    assert_eq!(calls.len(), 1);
    let call = calls[0].clone();
    assert_eq!(call.name, "acme_ats__search_leads");
    assert_eq!(call.arguments, json!({"query": "Nimbus Logistics"}));
    turns.push(Turn { role: TurnRole::Assistant, content: String::new(), tool_calls: calls, tool_call_id: None });
    turns.push(Turn {
        role: TurnRole::Tool,
        content: r#"{"records": [{"id": "L-1001", "stage": "Proposal"}]}"#.into(),
        tool_calls: vec![],
        tool_call_id: Some(call.id.clone()),
    });
    let answer = m.reply(&turns, &tools()).await.expect("an answer");
    assert_eq!(answer, Reply::Answer("Nimbus Logistics is at the Proposal stage.".into()));
    (turns, call)
}

#[tokio::test]
async fn an_openai_tool_call_round_trip() {
    let stand_in = AgentModelServer::start().await;
    let m = model(&stand_in.openai_settings());
    assert_eq!(m.name(), "openai/stand-in");
    assert!(!m.is_demo());
    let (_, call) = round_trip(m.as_ref(), &stand_in).await;
    assert_eq!(call.id, "call_1_0", "the id the model gave");

    let asked = stand_in.requests();
    assert_eq!(asked.len(), 2);
    for body in &asked {
        assert_eq!(body["model"], "stand-in");
        assert_eq!(body["temperature"], 0);
        assert_eq!(
            body["tools"],
            json!([{"type": "function", "function": {
                "name": "acme_ats__search_leads",
                "description": "Finds leads whose company, contact, city, notes or id contain the query.",
                "parameters": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
            }}])
        );
    }
    assert_eq!(
        asked[0]["messages"],
        json!([
            {"role": "system", "content": "You are one of the company's AI agents."},
            {"role": "user", "content": "What stage is Nimbus Logistics at?"},
        ])
    );
    let messages = asked[1]["messages"].as_array().expect("messages");
    assert_eq!(messages.len(), 4);
    assert_eq!(
        messages[2],
        json!({"role": "assistant", "content": null, "tool_calls": [{
            "id": "call_1_0", "type": "function",
            "function": {"name": "acme_ats__search_leads", "arguments": "{\"query\":\"Nimbus Logistics\"}"},
        }]})
    );
    assert_eq!(
        messages[3],
        json!({"role": "tool", "tool_call_id": "call_1_0",
               "content": r#"{"records": [{"id": "L-1001", "stage": "Proposal"}]}"#})
    );
}

#[tokio::test]
async fn an_ollama_tool_call_round_trip() {
    let stand_in = AgentModelServer::start().await;
    let m = model(&stand_in.ollama_settings());
    assert_eq!(m.name(), "ollama/stand-in");
    let (_, call) = round_trip(m.as_ref(), &stand_in).await;
    assert_eq!(call.id, "call_2_0", "Ollama gives no id: one is made from the turn count");

    let asked = stand_in.requests();
    assert_eq!(asked.len(), 2);
    assert_eq!(asked[0]["stream"], false);
    assert_eq!(asked[0]["options"]["temperature"], 0);
    assert_eq!(asked[0]["tools"][0]["function"]["name"], "acme_ats__search_leads");
    let messages = asked[1]["messages"].as_array().expect("messages");
    assert_eq!(
        messages[2]["tool_calls"],
        json!([{"function": {"name": "acme_ats__search_leads", "arguments": {"query": "Nimbus Logistics"}}}]),
        "Ollama takes the arguments as an object"
    );
    assert_eq!(messages[3]["role"], "tool");
    assert_eq!(messages[3]["tool_name"], "acme_ats__search_leads");
}

#[tokio::test]
async fn a_status_500_is_a_status_error() {
    let stand_in = AgentModelServer::start().await;
    for settings in [stand_in.openai_settings(), stand_in.ollama_settings()] {
        stand_in.script([AgentReply::Status(500)]);
        let err = model(&settings).reply(&question(), &tools()).await.expect_err("a failure");
        assert_eq!(err, ModelError::Status(500));
    }
}

#[tokio::test]
async fn a_hang_past_the_timeout_is_a_timeout() {
    let stand_in = AgentModelServer::start().await;
    stand_in.set_default(AgentReply::Hang(Duration::from_secs(5)));
    for settings in [stand_in.openai_settings(), stand_in.ollama_settings()] {
        let settings = ModelSettings { timeout: Duration::from_secs(1), ..settings };
        let started = std::time::Instant::now();
        let err = model(&settings).reply(&question(), &[]).await.expect_err("a failure");
        assert_eq!(err, ModelError::Timeout(1));
        assert!(started.elapsed() < Duration::from_secs(4), "gave up at the timeout");
    }
    assert!(stand_in.requests().iter().all(|b| b.get("tools").is_none()), "no empty list of tools is sent");
}

#[tokio::test]
async fn an_answer_out_of_shape_or_nobody_listening_is_said_so() {
    let stand_in = AgentModelServer::start().await;
    stand_in.set_default(AgentReply::Hang(Duration::ZERO));
    let err = model(&stand_in.openai_settings()).reply(&question(), &[]).await.expect_err("a failure");
    assert!(matches!(err, ModelError::BadResponse(_)), "{err:?}");

    let settings = ModelSettings { openai_base_url: format!("{}/v1", dead_url()), ..stand_in.openai_settings() };
    let err = model(&settings).reply(&question(), &[]).await.expect_err("a failure");
    assert!(matches!(err, ModelError::Unreachable(_)), "{err:?}");
}

#[tokio::test]
async fn the_test_server_helper_points_agents_at_the_stand_in() {
    let stand_in = AgentModelServer::start().await;
    let app = spawn_app_with_agent_model(&stand_in).await;
    assert_eq!(app.settings.models.agent_model.as_deref(), Some("openai/stand-in"));
    let m = model(&app.settings.models);
    let answer = m.reply(&question(), &[]).await.expect("an answer");
    assert_eq!(answer, Reply::Answer("The stand-in model's answer.".into()));
    let asked: Vec<Value> = stand_in.requests();
    assert_eq!(asked.len(), 1, "only the call made here reached the stand-in: {asked:?}");
}
