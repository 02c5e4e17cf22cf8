use super::add_person::{AddPersonDraft, NewInviteLink};
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

/// What the People page adds for adding people: a refused form to fill in again, and a link just
/// made, each read once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct AddPersonData {
    /// Who is looking, so the drawer hides what one cannot do to oneself.
    pub me: Option<i64>,
    pub draft: Option<AddPersonDraft>,
    pub new_link: Option<NewInviteLink>,
}

#[server(prefix = "/fn", endpoint = "load_add_person")]
pub async fn load_add_person() -> Result<AddPersonData, ServerFnError> {
    use super::add_person::{ADD_PERSON_DRAFT_KEY, NEW_INVITE_LINK_KEY};
    use crate::ssr::*;
    let me = signed_in().await?;
    if !me.is_admin {
        return Ok(AddPersonData::default());
    }
    let draft = take_flash(ADD_PERSON_DRAFT_KEY).await?;
    let new_link = take_flash(NEW_INVITE_LINK_KEY).await?;
    Ok(AddPersonData { me: Some(me.id.0), draft, new_link })
}
