use engine::cards::source::Connector;
use leptos::prelude::*;

#[server(prefix = "/fn", endpoint = "load_connectors")]
pub async fn load_connectors() -> Result<Vec<Connector>, ServerFnError> {
    use crate::ssr::*;
    let (_, me) = signed_in().await?;
    memory()?.connectors(&me).await.map_err(|e| ServerFnError::new(memory_refusal(&e)))
}
