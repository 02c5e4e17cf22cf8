use crate::flash::Notice;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

/// An invite link's page: whose it is, or the sentence why it no longer works.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InviteData {
    pub name: String,
    pub email: String,
    pub expires: String,
    /// Why the link does not work; then there is no form.
    pub closed: Option<String>,
    /// A refused password, said once.
    pub notice: Option<Notice>,
}

/// The invite page's path for a secret, where its refusals are shown.
pub fn invite_page_path(secret: &str) -> String {
    format!("/invite/{secret}")
}

/// Read signed out: the secret is the only key.
#[server(prefix = "/fn", endpoint = "load_invite")]
pub async fn load_invite(secret: String) -> Result<InviteData, ServerFnError> {
    use crate::components::when;
    use crate::flash::notice_key;
    use crate::ssr::*;
    use engine::org::OrgError;
    let notice = take_flash(&notice_key(&invite_page_path(&secret))).await?;
    match org()?.people.open_invite(&secret).await {
        Ok(i) => Ok(InviteData { name: i.name, email: i.email, expires: when(&i.expires_at), closed: None, notice }),
        Err(e @ (OrgError::Invalid(_) | OrgError::NotFound(_))) => {
            if let Some(r) = use_context::<leptos_axum::ResponseOptions>() {
                let gone = matches!(e, OrgError::Invalid(_));
                r.set_status(if gone { http::StatusCode::GONE } else { http::StatusCode::NOT_FOUND });
            }
            let closed = Some(refusal(&e));
            Ok(InviteData { name: String::new(), email: String::new(), expires: String::new(), closed, notice })
        }
        Err(e) => Err(refused(e)),
    }
}
