use leptos::prelude::*;

#[server(prefix = "/fn", endpoint = "retire_memory_line")]
pub async fn retire_memory_line(id: i64, agent: String, reason: String) -> Result<(), ServerFnError> {
    use crate::flash::Notice;
    use crate::paths::org_agent;
    use crate::ssr::*;
    use engine::persona::service::Caller;
    let me = signed_in().await?;
    let back = org_agent(&agent);
    let notice = match bots()?.pages.retire_memory(&Caller::Person(me), id, &reason).await {
        Ok(()) => Notice::ok(format!("Retired line #{id}; it stays in the closed lines with your reason")),
        Err(e) => Notice::refused(refusal(&e)),
    };
    notice_back(&back, notice).await
}
