use engine::runs::Event;
use leptos::prelude::*;

/// Events after an id (0 for the first), oldest first as the service gives them.
#[server(prefix = "/fn", endpoint = "load_events")]
pub async fn load_events(after: i64) -> Result<Vec<Event>, ServerFnError> {
    use crate::ssr::*;
    let me = signed_in().await?;
    if !me.is_admin {
        return Err(ServerFnError::new("Only an admin can see Events"));
    }
    runs()?.threads.events_after(&me, after).await.map_err(refused)
}
