use crate::flash::Notice;
use engine::org::listing::{PeopleListing, PersonChoice};
use engine::org::Person;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PeopleData {
    /// One page of people (or of a search), with the counts by team.
    pub listing: PeopleListing,
    pub notice: Option<Notice>,
    pub drawer: Option<Drawer>,
}

/// The open drawer: the person, read by id whatever page they are on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Drawer {
    pub person: Person,
    /// Their manager as the Manager field offers them.
    pub manager: Option<PersonChoice>,
    /// What was typed into a refused Manager, kept so nothing typed is lost.
    pub manager_typed: Option<String>,
    /// How much is kept for that person, never what it says.
    pub memory_counts: String,
}

/// The flash key of what was typed into a refused Manager, per person.
pub fn manager_draft_key(person: i64) -> String {
    format!("draft:manager:{person}")
}

/// People, for admins: `search` and `page` come from the page's query (`?q=…&page=…`), and
/// `person` opens that person's drawer.
#[server(prefix = "/fn", endpoint = "load_people")]
pub async fn load_people(person: Option<i64>, search: String, page: u32) -> Result<PeopleData, ServerFnError> {
    use crate::{flash::notice_key, paths::PEOPLE, ssr::*};
    let me = signed_in().await?;
    if !me.is_admin {
        return Err(ServerFnError::new("Only an admin can see People"));
    }
    let org = org()?;
    let listing = org.people.listing(&me, &search, page).await.map_err(refused)?;
    let notice = take_flash(&notice_key(PEOPLE)).await?;
    let drawer = match person {
        Some(id) => match org.person(engine::org::PersonId(id)).await.map_err(refused)? {
            Some(p) => {
                let manager = match p.manager {
                    Some(m) => org.person(m).await.map_err(refused)?.as_ref().map(PersonChoice::from),
                    None => None,
                };
                let manager_typed = take_flash(&manager_draft_key(id)).await?;
                // Lessons are counted by their own area, and handed to the line cards words.
                let (lessons_in_use, _) = lessons()?.counts(p.id).await.map_err(refused)?;
                let memory_counts = memory()?.mine.counts_line(&me, p.id, lessons_in_use).await.map_err(refused)?;
                Some(Drawer { person: p, manager, manager_typed, memory_counts })
            }
            None => None,
        },
        None => None,
    };
    Ok(PeopleData { listing, notice, drawer })
}
