use leptos::prelude::*;

/// The drawer's "Reset password": a new invite link replaces any older one, and the person's
/// sessions end at once. The admin types their own password again (`password`).
#[server(prefix = "/fn", endpoint = "reset_password")]
pub async fn reset_password(person: i64, password: String) -> Result<(), ServerFnError> {
    use super::add_person::{NewInviteLink, NEW_INVITE_LINK_KEY};
    use super::invite_link::{invite_link, site_origin};
    use crate::flash::Notice;
    use crate::paths::PEOPLE;
    use crate::ssr::*;
    use engine::org::PersonId;
    let me = signed_in().await?;
    let notice = match org()?.people.reset_password(&me, &password, PersonId(person)).await {
        Ok(made) => {
            let headers: http::HeaderMap = leptos_axum::extract().await.map_err(internal)?;
            let link = invite_link(&site_origin(&headers), &made.secret);
            set_flash(NEW_INVITE_LINK_KEY, &NewInviteLink { name: made.person.name.clone(), link }).await?;
            Notice::ok(format!(
                "Reset {}'s password: they are signed out everywhere, and any older link no longer works. \
                 Copy their new invite link now: it is shown only once.",
                made.person.name
            ))
        }
        Err(e) => Notice::refused(refusal(&e)),
    };
    notice_back(&format!("{PEOPLE}?person={person}"), notice).await
}
