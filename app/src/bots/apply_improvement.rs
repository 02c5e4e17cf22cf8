use leptos::prelude::*;

/// Writes the card's change into the vault file, or says why not; nothing is written on refusal.
#[server(prefix = "/fn", endpoint = "apply_improvement")]
pub async fn apply_improvement(id: i64, back: String) -> Result<(), ServerFnError> {
    use crate::flash::Notice;
    use crate::paths::IMPROVE;
    use crate::ssr::*;
    use engine::persona::service::Caller;
    let me = signed_in().await?;
    let back = local_path(&back, IMPROVE);
    let notice = match bots()?.improve.apply_improvement(&Caller::Person(me), id).await {
        Ok(t) => Notice::ok(format!(
            "Applied improve card #{id}: {} is changed",
            t.improve.map(|i| i.target_path).unwrap_or_default()
        )),
        Err(e) => Notice::refused(refusal(&e)),
    };
    notice_back(&back, notice).await
}
