//! The spans a run is traced by (see `server::telemetry` and docs/operator-guide.md, "Traces"):
//! the run itself, each model call with the GenAI semantic conventions' attributes, and each tool
//! call. Ids, counts, states and configured names only: never a question, an answer, a turn sent
//! to the model or a tool's arguments. The memory spans (block assembly, card reads, lesson
//! search, the check) are on the functions that do them.

use crate::runs::model::{AgentModel, Reply, ToolCall, ToolSpec, Turn};
use crate::runs::RunId;

/// The span a run is answered in, for the exported trace and the log lines alike: ids, the run's
/// kind and how it ended, never its question or answer. A run answered within its request is that
/// request's child; one answered in the background (`root`) is a root span of its own, so the
/// request's span ends when its response goes.
pub(super) fn run(run: RunId, root: bool) -> tracing::Span {
    macro_rules! span {
        ($($parent:tt)*) => {
            tracing::info_span!(
                $($parent)*
                "run",
                otel.name = "invoke_agent",
                gen_ai.operation.name = "invoke_agent",
                engram.run.id = run.0,
                engram.run.kind = tracing::field::Empty,
                engram.run.state = tracing::field::Empty,
                gen_ai.agent.id = tracing::field::Empty,
                gen_ai.conversation.id = tracing::field::Empty,
            )
        };
    }
    if root {
        span!(parent: None,)
    } else {
        span!()
    }
}

/// One call to the agent's model, with the GenAI semantic conventions' attributes: the provider
/// and model from the model's `<provider>/<model>` name, and once it answered the tokens sent and
/// received (Engram's count, the spend ledger's) and why it stopped. Never what was sent.
pub(super) fn model_call(model: &dyn AgentModel, tools: usize) -> tracing::Span {
    let name = model.name();
    let (provider, model_id) = name.split_once('/').unwrap_or(("unknown", name.as_str()));
    let provider = if model.is_demo() { "demo" } else { provider };
    tracing::info_span!(
        "model_call",
        otel.name = %format!("chat {model_id}"),
        otel.kind = "client",
        otel.status_code = tracing::field::Empty,
        gen_ai.operation.name = "chat",
        gen_ai.provider.name = provider,
        gen_ai.system = provider,
        gen_ai.request.model = model_id,
        gen_ai.usage.input_tokens = tracing::field::Empty,
        gen_ai.usage.output_tokens = tracing::field::Empty,
        gen_ai.response.finish_reasons = tracing::field::Empty,
        engram.tools.offered = tools,
        error.type = tracing::field::Empty,
    )
}

/// What a model call that answered sent and received, in tokens, and why it stopped.
pub(super) fn replied(call: &tracing::Span, turns: &[Turn], specs: &[ToolSpec], reply: &Reply) {
    let (input, output) = crate::runs::cost::call_tokens(turns, specs, reply);
    call.record("gen_ai.usage.input_tokens", input);
    call.record("gen_ai.usage.output_tokens", output);
    let reason = match reply {
        Reply::Answer(_) => "stop",
        Reply::ToolCalls(_) => "tool_calls",
    };
    call.record("gen_ai.response.finish_reasons", reason);
}

/// A model call that did not answer; why is in the run's step and the log, not the trace.
pub(super) fn failed(call: &tracing::Span) {
    call.record("error.type", "model_error");
    call.record("otel.status_code", "ERROR");
}

/// One tool call: the tool's name and the call's id, never its arguments or what it returned.
pub(super) fn tool_call(call: &ToolCall) -> tracing::Span {
    tracing::info_span!(
        "tool_call",
        otel.name = %format!("execute_tool {}", call.name),
        gen_ai.operation.name = "execute_tool",
        gen_ai.tool.name = %call.name,
        gen_ai.tool.call.id = %call.id,
    )
}
