use engine::org::listing::PersonChoice;
use leptos::prelude::*;

/// A person picker's matches as an admin types (JavaScript on): at most ten current people whose
/// name or email starts with what was typed.
#[server(prefix = "/fn", endpoint = "find_people")]
pub async fn find_people(typed: String) -> Result<Vec<PersonChoice>, ServerFnError> {
    use crate::ssr::*;
    let me = signed_in().await?;
    org()?.people.pick(&me, &typed).await.map_err(refused)
}
