//! `/mcp`: seed 003's `memory_self_edit` and seed 004's `memory_audit` served over the Model
//! Context Protocol (Streamable HTTP) with the official Rust SDK, rmcp. Every request carries the
//! bot's own token; each tool acts as that bot, through the same service as `/api/org/self/edit`
//! and `/api/org/agents/{name}/memory-audit`.

use crate::http::api::bearer;
use crate::http::state::AppState;
use axum::extract::{Request, State};
use axum::http::request::Parts;
use axum::http::StatusCode;
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::Router;
use engine::persona::bot_tokens::TokenCheck;
use engine::persona::self_edit::EditRequest;
use engine::persona::self_edit_store::EditState;
use engine::persona::service::{AuditTarget, Bots, Caller};
use engine::UserSafe;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock as Content, InitializeResult, JsonObject,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::json;
use std::sync::Arc;

pub const TOOL: &str = "memory_self_edit";
pub const AUDIT_TOOL: &str = "memory_audit";

/// The bot a request's token acts as, put in the request by [`authenticate`].
#[derive(Debug, Clone)]
struct Bot(String);

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

#[derive(Clone)]
pub struct MemoryTools {
    bots: Bots,
}

fn text(v: impl serde::Serialize) -> Content {
    Content::text(serde_json::to_string_pretty(&v).unwrap_or_default())
}

impl ServerHandler for MemoryTools {
    fn get_info(&self) -> InitializeResult {
        InitializeResult::new(ServerCapabilities::builder().enable_tools().build()).with_instructions(
            "Engram's memory tools. memory_self_edit edits your own memory within your owner's policy; every \
             call is audited with its reason. memory_audit keeps your MEMORY.md and USER.md clean and within \
             their character budgets.",
        )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(vec![tool(), audit_tool()]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        if request.name != TOOL && request.name != AUDIT_TOOL {
            return Err(McpError::invalid_params(format!("There is no tool named {}", request.name), None));
        }
        let bot = context
            .extensions
            .get::<Parts>()
            .and_then(|p| p.extensions.get::<Bot>())
            .cloned()
            .ok_or_else(|| McpError::invalid_request("Call this tool with the bot's own token", None))?;
        let caller = Caller::Bot(bot.0.clone());
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
            let result = self.bots.memory_audits.memory_audit(&caller, AuditTarget::Agent(bot.0), dry_run).await;
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

/// Lets a request through only with a live bot token, and marks it with its bot.
async fn authenticate(State(state): State<AppState>, mut req: Request, next: Next) -> Response {
    let refuse = |why: &str| (StatusCode::UNAUTHORIZED, why.to_string()).into_response();
    let (parts, body) = req.into_parts();
    let token = bearer(&parts).map(str::to_string);
    req = Request::from_parts(parts, body);
    let Some(token) = token else { return refuse("Call /mcp with the bot's own token as a bearer token") };
    match state.bots.tokens.agent_for_token(&token).await {
        Ok(TokenCheck::Live(agent)) => {
            req.extensions_mut().insert(Bot(agent));
            next.run(req).await
        }
        Ok(TokenCheck::Unknown) => refuse("That token is not a bot's own live token"),
        Ok(refused) => refuse(&refused.refusal().map(|(_, why)| why).unwrap_or_default()),
        Err(e) => {
            let detail = e.internal_detail().unwrap_or_else(|| e.to_string());
            tracing::error!(error = %detail, "could not read a bot token");
            (StatusCode::INTERNAL_SERVER_ERROR, "Something went wrong on our side. Try again.").into_response()
        }
    }
}

/// The `/mcp` service. Host checks are off and any browser Origin is refused: every request needs
/// a bot's token, which a page another site serves cannot hold.
pub fn router(state: &AppState) -> Router<AppState> {
    let bots = state.bots.clone();
    let service = StreamableHttpService::new(
        move || Ok(MemoryTools { bots: bots.clone() }),
        LocalSessionManager::default().into(),
        StreamableHttpServerConfig::default().with_allowed_hosts(Vec::<String>::new()).enforce_origin_validation(),
    );
    Router::new().nest_service("/mcp", service).layer(middleware::from_fn_with_state(state.clone(), authenticate))
}
