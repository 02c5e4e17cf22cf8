use leptos::prelude::*;

/// The drawer's "Make admin" and "Remove admin".
#[server(prefix = "/fn", endpoint = "set_admin")]
pub async fn set_admin(person: i64, admin: bool) -> Result<(), ServerFnError> {
    use crate::flash::Notice;
    use crate::paths::PEOPLE;
    use crate::ssr::*;
    use engine::org::PersonId;
    let me = signed_in().await?;
    let notice = match org()?.people.set_admin(&me, PersonId(person), admin).await {
        Ok(sentence) => Notice::ok(sentence),
        Err(e) => Notice::refused(refusal(&e)),
    };
    notice_back(&format!("{PEOPLE}?person={person}"), notice).await
}
