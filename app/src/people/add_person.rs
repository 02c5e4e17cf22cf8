use leptos::prelude::*;
use serde::{Deserialize, Serialize};

/// What the admin typed into "Add a person", kept across a refusal so nothing is lost.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct AddPersonDraft {
    pub name: String,
    pub email: String,
    pub main_team: String,
    pub role: String,
}

/// A link just made, shown once with whose it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NewInviteLink {
    pub name: String,
    pub link: String,
}

pub const ADD_PERSON_DRAFT_KEY: &str = "add_person_draft";
pub const NEW_INVITE_LINK_KEY: &str = "new_invite_link";

/// "Add a person": an admin adds someone and is shown their one-time invite link.
#[server(prefix = "/fn", endpoint = "add_person")]
pub async fn add_person(name: String, email: String, main_team: String, role: String) -> Result<(), ServerFnError> {
    use super::invite_link::{invite_link, site_origin};
    use crate::flash::Notice;
    use crate::paths::PEOPLE;
    use crate::ssr::*;
    use engine::org::service::AddPerson;
    use engine::org::TeamId;
    let me = signed_in().await?;
    let draft = AddPersonDraft { name, email, main_team, role };
    let team = match draft.main_team.trim() {
        "" => Ok(None),
        t => t.parse().map(|id| Some(TeamId(id))).map_err(|_| "Choose a main team from the list".to_string()),
    };
    let role = role_choice(&draft.role).map_err(|_| "Choose a department role from the list".to_string());
    let added = match (team, role) {
        (Ok(main_team), Ok(role)) => {
            let new = AddPerson { name: draft.name.clone(), email: draft.email.clone(), main_team, role };
            org()?.people.add_person(&me, &new).await.map_err(|e| refusal(&e))
        }
        (Err(why), _) | (_, Err(why)) => Err(why),
    };
    match added {
        Ok(made) => {
            let headers: http::HeaderMap = leptos_axum::extract().await.map_err(internal)?;
            let link = invite_link(&site_origin(&headers), &made.secret);
            set_flash(NEW_INVITE_LINK_KEY, &NewInviteLink { name: made.person.name.clone(), link }).await?;
            let text = format!("Added {}. Copy their invite link now: it is shown only once.", made.person.name);
            notice_back(&format!("{PEOPLE}?person={}", made.person.id), Notice::ok(text)).await
        }
        Err(why) => {
            set_flash(ADD_PERSON_DRAFT_KEY, &draft).await?;
            notice_back(PEOPLE, Notice::refused(why)).await
        }
    }
}
