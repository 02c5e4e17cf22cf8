use crate::flash::Notice;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErasureData {
    /// What the last erasure removed, or why it was refused; never the value.
    pub notice: Option<Notice>,
}

/// The page, for admins only: anyone else is told who may.
#[server(prefix = "/fn", endpoint = "load_erasure")]
pub async fn load_erasure() -> Result<ErasureData, ServerFnError> {
    use crate::flash::notice_key;
    use crate::paths::ERASURE;
    use crate::ssr::*;
    let me = signed_in().await?;
    if !me.is_admin {
        return Err(ServerFnError::new(engine::erasure::service::ADMIN_ONLY));
    }
    Ok(ErasureData { notice: take_flash(&notice_key(ERASURE)).await? })
}
