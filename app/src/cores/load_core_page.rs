use crate::flash::Notice;
use engine::cores::service::CoreView;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CorePage {
    pub view: CoreView,
    pub notice: Option<Notice>,
}

/// The core with one page of its History; `before` is the page's `?before=N`, as typed.
#[server(prefix = "/fn", endpoint = "load_core_page")]
pub async fn load_core_page(scope: String, before: Option<String>) -> Result<CorePage, ServerFnError> {
    use crate::{flash::notice_key, paths::core_home, ssr::*};
    use engine::cores::{parse_before, CoreScope};
    let me = signed_in().await?;
    let scope = CoreScope::parse(&scope).map_err(|e| ServerFnError::new(refusal(&e)))?;
    let before = before.as_deref().map(parse_before).transpose().map_err(|e| ServerFnError::new(refusal(&e)))?;
    let view = cores()?.core_view(&me, &scope, before).await.map_err(|e| ServerFnError::new(refusal(&e)))?;
    let notice = take_flash(&notice_key(&core_home(&scope))).await?;
    Ok(CorePage { view, notice })
}
