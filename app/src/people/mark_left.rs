use leptos::prelude::*;

/// Reached only from the drawer's confirmation: the person can no longer sign in and their memory
/// of records goes.
#[server(prefix = "/fn", endpoint = "mark_left")]
pub async fn mark_left(person: i64) -> Result<(), ServerFnError> {
    use crate::flash::Notice;
    use crate::paths::PEOPLE;
    use crate::ssr::*;
    use engine::org::PersonId;
    let me = signed_in().await?;
    let notice = match org()?.people.person_leaves(&me, PersonId(person)).await {
        Ok(sentence) => Notice::ok(sentence),
        Err(e) => Notice::refused(refusal(&e)),
    };
    notice_back(&format!("{PEOPLE}?person={person}"), notice).await
}
