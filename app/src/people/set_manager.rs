use leptos::prelude::*;

/// The drawer's Manager: another current person, named by email or whole name, or none (empty).
/// Nobody of that name or email, or several of that name, is refused in words, and the field keeps
/// what was typed.
#[server(prefix = "/fn", endpoint = "set_manager")]
pub async fn set_manager(person: i64, manager: String) -> Result<(), ServerFnError> {
    use super::load_people::manager_draft_key;
    use crate::flash::Notice;
    use crate::paths::PEOPLE;
    use crate::ssr::*;
    use engine::org::PersonId;
    let me = signed_in().await?;
    let org = org()?;
    // Only an admin may name anyone; anyone else is refused by the teams' own rule, in its words,
    // with no one looked up.
    let chosen = if me.is_admin { org.people.resolve(&me, &manager, "the manager").await } else { Ok(None) };
    let notice = match chosen {
        Ok(m) => match org.teams.set_manager(&me, PersonId(person), m.map(|m| m.id)).await {
            Ok(()) => Notice::ok("Saved their manager"),
            Err(e) => Notice::refused(refusal(&e)),
        },
        Err(e) => Notice::refused(refusal(&e)),
    };
    if !notice.ok {
        set_flash(&manager_draft_key(person), &manager).await?;
    }
    notice_back(&format!("{PEOPLE}?person={person}"), notice).await
}
