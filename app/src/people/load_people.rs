use crate::flash::Notice;
use engine::org::Directory;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PeopleData {
    pub directory: Directory,
    pub notice: Option<Notice>,
    /// For the open drawer: how much is kept for that person, never what it says.
    pub memory_counts: Option<String>,
}

#[server(prefix = "/fn", endpoint = "load_people")]
pub async fn load_people(person: Option<i64>) -> Result<PeopleData, ServerFnError> {
    use crate::{flash::notice_key, paths::PEOPLE, ssr::*};
    let me = signed_in().await?;
    if !me.is_admin {
        return Err(ServerFnError::new("Only an admin can see People"));
    }
    let directory = org()?.directory().await.map_err(refused)?;
    let notice = take_flash(&notice_key(PEOPLE)).await?;
    let memory_counts = match person {
        Some(id) => {
            // Lessons are counted by their own area, and handed to the line cards words.
            let id = engine::org::PersonId(id);
            let (lessons_in_use, _) = lessons()?.counts(id).await.map_err(refused)?;
            Some(memory()?.mine.counts_line(&me, id, lessons_in_use).await.map_err(refused)?)
        }
        None => None,
    };
    Ok(PeopleData { directory, notice, memory_counts })
}
