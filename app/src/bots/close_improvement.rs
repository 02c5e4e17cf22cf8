use leptos::prelude::*;

#[server(prefix = "/fn", endpoint = "close_improvement")]
pub async fn close_improvement(id: i64, back: String, reason: String) -> Result<(), ServerFnError> {
    use crate::flash::Notice;
    use crate::paths::IMPROVE;
    use crate::ssr::*;
    use engine::persona::service::Caller;
    let me = signed_in().await?;
    let back = local_path(&back, IMPROVE);
    let notice = match bots()?.improve.close_improvement(&Caller::Person(me), id, &reason).await {
        Ok(_) => Notice::ok(format!("Closed improve card #{id}; nothing was changed in the vault")),
        Err(e) => Notice::refused(refusal(&e)),
    };
    notice_back(&back, notice).await
}
