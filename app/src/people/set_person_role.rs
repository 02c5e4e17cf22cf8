use leptos::prelude::*;

/// The drawer's Department role: a role of their own, or back to their team's.
#[server(prefix = "/fn", endpoint = "set_person_role")]
pub async fn set_person_role(person: i64, role: String) -> Result<(), ServerFnError> {
    use crate::flash::Notice;
    use crate::paths::PEOPLE;
    use crate::ssr::*;
    use engine::org::PersonId;
    let me = signed_in().await?;
    let role = role_choice(&role)?;
    let notice = match org()?.people.set_person_role(&me, PersonId(person), role).await {
        Ok(()) => Notice::ok("Saved their department role"),
        Err(e) => Notice::refused(refusal(&e)),
    };
    notice_back(&format!("{PEOPLE}?person={person}"), notice).await
}
