use engine::operations::OperationsReport;
use leptos::prelude::*;

/// What memory costs, for an admin who has not left.
#[server(prefix = "/fn", endpoint = "load_operations")]
pub async fn load_operations() -> Result<OperationsReport, ServerFnError> {
    use crate::ssr::*;
    let me = signed_in().await?;
    operations()?.report(&me).await.map_err(refused)
}
