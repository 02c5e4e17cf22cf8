use crate::flash::Notice;
use engine::cores::service::VersionView;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VersionPage {
    pub view: VersionView,
    pub notice: Option<Notice>,
}

#[server(prefix = "/fn", endpoint = "load_core_version")]
pub async fn load_core_version(scope: String, version: u32) -> Result<VersionPage, ServerFnError> {
    use crate::{flash::notice_key, paths::core_version, ssr::*};
    use engine::cores::CoreScope;
    let me = signed_in().await?;
    let scope = CoreScope::parse(&scope).map_err(|e| ServerFnError::new(refusal(&e)))?;
    let view = cores()?.version_view(&me, &scope, version).await.map_err(|e| ServerFnError::new(refusal(&e)))?;
    let notice = take_flash(&notice_key(&core_version(&scope, version))).await?;
    Ok(VersionPage { view, notice })
}
