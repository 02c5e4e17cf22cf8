//! `/mcp`: Engram over the Model Context Protocol (Streamable HTTP), with the official Rust SDK,
//! rmcp. Who the token is decides what is served:
//! - a bot's own token: seed 003's `memory_self_edit` and seed 004's `memory_audit`, acting as that
//!   bot, through the same service as `/api/org/self/edit` and `/api/org/agents/{name}/memory-audit`;
//! - a personal API token with `?agent=<a company agent's name or id>`: an external run of that
//!   agent for the person (`mcp_external.rs`), the REST pair's tools over MCP;
//! - an agent token (`agt_…`): the same run of the token's own agent, acting for nobody, as a
//!   schedule does (`?agent=` may name it, and only it).

use crate::http::api::{bearer, ApiError};
use crate::http::state::AppState;
use axum::extract::{Query, Request, State};
use axum::http::request::Parts;
use axum::http::{StatusCode, Uri};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::Router;
use engine::error::INTERNAL_MESSAGE;
use engine::org::AgentId;
use engine::persona::bot_tokens::TokenCheck;
use engine::persona::self_edit::EditRequest;
use engine::persona::self_edit_store::EditState;
use engine::persona::service::{AuditTarget, Bots, Caller};
use engine::runs::agent_tokens::{looks_like_agent_token, AGENT_TOKEN_REFUSED};
use engine::runs::service::{Outside, Runs};
use engine::runs::RunId;
use engine::UserSafe;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock as Content, InitializeResult, JsonObject,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde::Deserialize;
use serde_json::json;
use std::sync::{Arc, Mutex};

pub const TOOL: &str = "memory_self_edit";
pub const AUDIT_TOOL: &str = "memory_audit";

/// Whom a request's token acts as, put in the request by [`authenticate`].
#[derive(Debug, Clone)]
pub(super) enum Acting {
    /// A bot, with its own token.
    Bot(String),
    /// An outside agent using one company agent's memory and gate: for a person (their API token)
    /// or for nobody (an agent token).
    Outside { outside: Outside, agent: AgentId },
}

fn input_schema() -> JsonObject {
    let schema = json!({
        "type": "object",
        "properties": {
            "action": {
                "type": "string",
                "enum": ["append", "replace", "strengthen", "weaken", "forget", "reflect"]
            },
            "target": {
                "type": "string",
                "description": "A memory line's id (a fact), \"strategy:{id}\", or \"profile\"; for append also \"fact\", \"fact:preference\", \"strategy\" or \"strategy:anti_pattern\""
            },
            "content": {"type": "string", "description": "The new text, for append and replace"},
            "reason": {"type": "string", "description": "Mandatory: why, kept in the audit log"}
        },
        "required": ["action", "target", "reason"]
    });
    match schema {
        serde_json::Value::Object(m) => m,
        _ => JsonObject::new(),
    }
}

fn tool() -> Tool {
    Tool::new(
        TOOL,
        "Edit your own memory. Use to correct errors, update outdated info, or strengthen important memories.",
        Arc::new(input_schema()),
    )
}

fn audit_tool() -> Tool {
    let schema = json!({
        "type": "object",
        "properties": {
            "dry_run": {"type": "boolean", "description": "Only report the actions, changing nothing"}
        }
    });
    let schema = match schema {
        serde_json::Value::Object(m) => m,
        _ => JsonObject::new(),
    };
    Tool::new(
        AUDIT_TOOL,
        "Audit your own MEMORY.md and USER.md: delete session notes and stale state, move entries to the right \
         file, verify configs, and free character budget. Every change is recorded and can be undone by your owner.",
        Arc::new(schema),
    )
}

/// One MCP session's handler. The run an external session started is remembered here only for
/// convenience: every call takes the run up again from its recorded steps, and names it with
/// `engram_run` when the session is gone (another server, a reconnect).
#[derive(Clone)]
pub struct MemoryTools {
    bots: Bots,
    runs: Runs,
    run: Arc<Mutex<Option<RunId>>>,
}

fn acting(context: &RequestContext<RoleServer>) -> Result<Acting, McpError> {
    context
        .extensions
        .get::<Parts>()
        .and_then(|p| p.extensions.get::<Acting>())
        .cloned()
        .ok_or_else(|| McpError::invalid_request("Call /mcp with a bot's own token or your API token", None))
}

fn text(v: impl serde::Serialize) -> Content {
    Content::text(serde_json::to_string_pretty(&v).unwrap_or_default())
}

impl ServerHandler for MemoryTools {
    fn get_info(&self) -> InitializeResult {
        InitializeResult::new(ServerCapabilities::builder().enable_tools().build()).with_instructions(
            "Engram's memory tools. With a bot's token: memory_self_edit edits your own memory within your \
             owner's policy, every call audited with its reason, and memory_audit keeps your MEMORY.md and \
             USER.md clean and within their character budgets. With a person's API token: memory_block starts \
             a run of the named company agent and gives its memory, quoted as data and never as instructions; \
             the agent's tools read and act through Engram's gate; finish checks the answer and ends the run. \
             With an agent token the same run acts for nobody: only the role's company core, only the \
             agent's company-key reads, and what it would do waits in the agent's owner's Inbox.",
        )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        match acting(&context)? {
            Acting::Bot(_) => Ok(ListToolsResult::with_all_items(vec![tool(), audit_tool()])),
            Acting::Outside { outside, agent } => {
                Ok(ListToolsResult::with_all_items(super::mcp_external::tools(&self.runs, &outside, agent).await?))
            }
        }
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let bot = match acting(&context)? {
            Acting::Bot(bot) => bot,
            Acting::Outside { outside, agent } => {
                let session = super::mcp_external::Session { runs: &self.runs, run: &self.run, outside, agent };
                return session.call(request).await.map(Into::into);
            }
        };
        if request.name != TOOL && request.name != AUDIT_TOOL {
            return Err(McpError::invalid_params(format!("There is no tool named {}", request.name), None));
        }
        let caller = Caller::Bot(bot.clone());
        let args = serde_json::Value::Object(request.arguments.unwrap_or_default());
        if request.name == AUDIT_TOOL {
            let dry_run = match args.get("dry_run") {
                None | Some(serde_json::Value::Null) => false,
                Some(serde_json::Value::Bool(b)) => *b,
                Some(_) => {
                    let why = "dry_run is true or false";
                    return Ok(CallToolResult::error(vec![Content::text(why)]).into());
                }
            };
            let result = self.bots.memory_audits.memory_audit(&caller, AuditTarget::Agent(bot), dry_run).await;
            return Ok(match result {
                Ok(r) => CallToolResult::success(vec![Content::text(r.lines().join("\n")), text(r)]),
                Err(e) => {
                    if let Some(detail) = e.internal_detail() {
                        tracing::error!(error = detail, "memory_audit failed");
                    }
                    CallToolResult::error(vec![Content::text(e.user_message())])
                }
            }
            .into());
        }
        let req: EditRequest = match serde_json::from_value(args) {
            Ok(r) => r,
            Err(e) => {
                let why = format!("The arguments are not memory_self_edit's: {e}");
                return Ok(CallToolResult::error(vec![Content::text(why)]).into());
            }
        };
        let result = if req.action.trim() == "reflect" {
            self.bots.reflect.self_reflect(&caller, None).await.map(|r| CallToolResult::success(vec![text(r)]))
        } else {
            self.bots.self_edits.self_edit(&caller, &req).await.map(|e| match e.state {
                EditState::Refused => {
                    let why = e.refusal.clone().unwrap_or_default();
                    CallToolResult::error(vec![Content::text(why), text(e)])
                }
                _ => CallToolResult::success(vec![text(e)]),
            })
        };
        Ok(match result {
            Ok(r) => r,
            Err(e) => {
                if let Some(detail) = e.internal_detail() {
                    tracing::error!(error = detail, "memory_self_edit failed");
                }
                CallToolResult::error(vec![Content::text(e.user_message())])
            }
        }
        .into())
    }
}

/// Lets a request through only with a live bot token, a person's live API token naming an agent
/// they may ask (`?agent=`), or a live agent token, and marks it with whom it acts as.
async fn authenticate(State(state): State<AppState>, mut req: Request, next: Next) -> Response {
    let refuse = |status: StatusCode, why: &str| (status, why.to_string()).into_response();
    let (parts, body) = req.into_parts();
    let token = bearer(&parts).map(str::to_string);
    let agent = agent_named(&parts.uri);
    req = Request::from_parts(parts, body);
    let Some(token) = token else {
        return refuse(
            StatusCode::UNAUTHORIZED,
            "Call /mcp with a bot's own token or your API token as a bearer token",
        );
    };
    if looks_like_agent_token(&token) {
        return match token_acting(&state, &token, agent.as_deref()).await {
            Ok(acting) => {
                req.extensions_mut().insert(acting);
                next.run(req).await
            }
            Err(r) => r,
        };
    }
    let acting = match state.bots.tokens.agent_for_token(&token).await {
        // A bot's requests are held to the bots' body limit, which a URL naming an agent is not.
        Ok(TokenCheck::Live(_)) if agent.is_some() => {
            return refuse(StatusCode::BAD_REQUEST, "A bot's own token calls /mcp without ?agent=");
        }
        Ok(TokenCheck::Live(bot)) => Acting::Bot(bot),
        Ok(TokenCheck::Unknown) => match person_acting(&state, &token, agent.as_deref()).await {
            Ok(a) => a,
            Err(r) => return r,
        },
        Ok(refused) => {
            return refuse(StatusCode::UNAUTHORIZED, &refused.refusal().map(|(_, why)| why).unwrap_or_default())
        }
        Err(e) => {
            let detail = e.internal_detail().unwrap_or_else(|| e.to_string());
            tracing::error!(error = %detail, "could not read a bot token");
            return (StatusCode::INTERNAL_SERVER_ERROR, INTERNAL_MESSAGE).into_response();
        }
    };
    req.extensions_mut().insert(acting);
    next.run(req).await
}

#[derive(Deserialize)]
struct AgentParam {
    agent: Option<String>,
}

fn agent_named(uri: &Uri) -> Option<String> {
    Query::<AgentParam>::try_from_uri(uri).ok().and_then(|q| q.0.agent)
}

/// Whether a request to `/mcp` names a company agent: a person's outside agent, not a bot.
pub fn names_an_agent(uri: &Uri) -> bool {
    agent_named(uri).is_some()
}

/// A person's API token, and the company agent its outside agent uses, named in the URL.
async fn person_acting(state: &AppState, token: &str, agent: Option<&str>) -> Result<Acting, Response> {
    let person = match state.auth.person_for_token(token).await {
        Ok(Some(p)) => p,
        Ok(None) => {
            let why = "That token is neither a bot's own live token nor a live API token";
            return Err((StatusCode::UNAUTHORIZED, why).into_response());
        }
        Err(e) => return Err(ApiError::from(e).into_response()),
    };
    let Some(agent) = agent.map(str::trim).filter(|a| !a.is_empty()) else {
        let why = "Name the company agent to use in the URL: /mcp?agent=<its name or id>";
        return Err(ApiError::new(StatusCode::BAD_REQUEST, "bad_request", why).into_response());
    };
    match state.runs.find_agent(&person, agent).await {
        Ok(agent) => Ok(Acting::Outside { outside: Outside::Person(person), agent }),
        Err(e) => Err(ApiError::from(e).into_response()),
    }
}

/// An agent token, and its own agent, which the URL may name (and only it).
async fn token_acting(state: &AppState, token: &str, agent: Option<&str>) -> Result<Acting, Response> {
    let live = match state.agent_tokens.judge(token).await {
        Ok(Some(live)) => live,
        Ok(None) => return Err((StatusCode::UNAUTHORIZED, AGENT_TOKEN_REFUSED).into_response()),
        Err(e) => return Err(ApiError::from(e).into_response()),
    };
    match state.runs.agent_for_token(&live, agent).await {
        Ok(agent) => Ok(Acting::Outside { outside: Outside::Token(live), agent }),
        Err(e) => Err(ApiError::from(e).into_response()),
    }
}

/// The `/mcp` service. Host checks are off and any browser Origin is refused: every request needs
/// a bot's token or a person's API token, which a page another site serves cannot hold.
pub fn router(state: &AppState) -> Router<AppState> {
    let (bots, runs) = (state.bots.clone(), state.runs.clone());
    let service = StreamableHttpService::new(
        move || Ok(MemoryTools { bots: bots.clone(), runs: runs.clone(), run: Arc::default() }),
        LocalSessionManager::default().into(),
        StreamableHttpServerConfig::default().with_allowed_hosts(Vec::<String>::new()).enforce_origin_validation(),
    );
    Router::new().nest_service("/mcp", service).layer(middleware::from_fn_with_state(state.clone(), authenticate))
}
