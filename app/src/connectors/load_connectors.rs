use crate::flash::Notice;
use engine::cards::source::Connector;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConnectorsData {
    pub connectors: Vec<Connector>,
    pub notice: Option<Notice>,
}

#[server(prefix = "/fn", endpoint = "load_connectors")]
pub async fn load_connectors() -> Result<ConnectorsData, ServerFnError> {
    use crate::flash::notice_key;
    use crate::paths::CONNECTORS;
    use crate::ssr::*;
    let me = signed_in().await?;
    let connectors = memory()?.connectors.connectors(&me).await.map_err(refused)?;
    let notice = take_flash(&notice_key(CONNECTORS)).await?;
    Ok(ConnectorsData { connectors, notice })
}
