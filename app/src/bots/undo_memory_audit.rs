use leptos::prelude::*;

/// Puts a bot's MEMORY.md and USER.md back as they were before an audit, while they are still as
/// it left them; otherwise says why not.
#[server(prefix = "/fn", endpoint = "undo_memory_audit")]
pub async fn undo_memory_audit(id: i64, agent: String) -> Result<(), ServerFnError> {
    use crate::flash::Notice;
    use crate::paths::org_agent;
    use crate::ssr::*;
    use engine::persona::service::Caller;
    let me = signed_in().await?;
    let notice = match bots()?.memory_audits.undo_memory_audit(&Caller::Person(me), id, None).await {
        Ok(_) => Notice::ok(format!("Undid memory audit #{id}: both files are as they were before it")),
        Err(e) => Notice::refused(refusal(&e)),
    };
    notice_back(&org_agent(&agent), notice).await
}
