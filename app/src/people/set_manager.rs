use leptos::prelude::*;

/// The drawer's Manager: another person, or none.
#[server(prefix = "/fn", endpoint = "set_manager")]
pub async fn set_manager(person: i64, manager: String) -> Result<(), ServerFnError> {
    use crate::flash::Notice;
    use crate::paths::PEOPLE;
    use crate::ssr::*;
    use engine::org::PersonId;
    let me = signed_in().await?;
    let manager = match manager.trim() {
        "" => None,
        m => Some(PersonId(m.parse().map_err(|_| ServerFnError::new("Choose a manager from the list"))?)),
    };
    let notice = match org()?.teams.set_manager(&me, PersonId(person), manager).await {
        Ok(()) => Notice::ok("Saved their manager"),
        Err(e) => Notice::refused(refusal(&e)),
    };
    notice_back(&format!("{PEOPLE}?person={person}"), notice).await
}
