use leptos::prelude::*;

/// What an admin sees on a person's panel: how much is kept, never what it says.
#[server(prefix = "/fn", endpoint = "load_memory_counts")]
pub async fn load_memory_counts(person: i64) -> Result<String, ServerFnError> {
    use crate::ssr::*;
    let (_, me) = signed_in().await?;
    memory()?.counts_line(&me, engine::org::PersonId(person)).await.map_err(|e| ServerFnError::new(memory_refusal(&e)))
}
