use crate::flash::Draft;
use engine::cores::service::CoreView;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EditorData {
    pub view: CoreView,
    /// The person's own text from a refused save or a reload, kept for them.
    pub draft: Option<Draft>,
}

#[server(prefix = "/fn", endpoint = "load_core_editor")]
pub async fn load_core_editor(scope: String) -> Result<EditorData, ServerFnError> {
    use crate::{flash::draft_key, ssr::*};
    use engine::cores::CoreScope;
    let me = signed_in().await?;
    let scope = CoreScope::parse(&scope).map_err(|e| ServerFnError::new(refusal(&e)))?;
    let view = cores()?.core_view(&me, &scope, None).await.map_err(|e| ServerFnError::new(refusal(&e)))?;
    let draft = take_flash(&draft_key(&scope.key())).await?;
    Ok(EditorData { view, draft })
}
