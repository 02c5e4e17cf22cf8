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
    signed_in().await?;
    let bots = bots()?;
    let lines = bots.pages.roster_lines().await.map_err(refused)?;
    Ok(RosterData { lines, model: bots.model_status() })
}
