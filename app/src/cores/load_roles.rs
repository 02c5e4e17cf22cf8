use crate::flash::Notice;
use engine::cores::service::RolesOverview;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RolesPageData {
    pub overview: RolesOverview,
    pub notice: Option<Notice>,
}

/// Loads the roles and teams with their cores; `page` names which page's notice to show.
#[server(prefix = "/fn", endpoint = "load_roles")]
pub async fn load_roles(page: String) -> Result<RolesPageData, ServerFnError> {
    use crate::{flash::notice_key, ssr::*};
    let me = signed_in().await?;
    let overview = cores()?.roles_overview(&me).await.map_err(|e| ServerFnError::new(refusal(&e)))?;
    let notice = take_flash(&notice_key(&local_path(&page, crate::paths::ROLES))).await?;
    Ok(RolesPageData { overview, notice })
}
