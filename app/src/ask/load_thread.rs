use engine::runs::service::ThreadView;
use leptos::prelude::*;

/// The thread alone, for the open page to look again while a run is working.
#[server(prefix = "/fn", endpoint = "load_thread")]
pub async fn load_thread(id: i64) -> Result<ThreadView, ServerFnError> {
    use crate::ssr::*;
    let me = signed_in().await?;
    runs()?.threads.thread(&me, engine::runs::ThreadId(id)).await.map_err(refused)
}
