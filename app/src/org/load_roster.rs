use engine::persona::service::RosterLine;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RosterData {
    pub lines: Vec<RosterLine>,
    pub model: String,
}

#[server(prefix = "/fn", endpoint = "load_roster")]
pub async fn load_roster() -> Result<RosterData, ServerFnError> {
    use crate::ssr::*;
    let (_, _me) = signed_in().await?;
    let org = org()?;
    let lines = org.roster_lines().await.map_err(refused)?;
    Ok(RosterData { lines, model: org.model_status() })
}
