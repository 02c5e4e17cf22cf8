use engine::org::{Person, Team};
use leptos::prelude::*;
use leptos::server_fn::ServerFn;

/// The People drawer's Main team: an admin moves someone to another team.
#[server(prefix = "/fn", endpoint = "move_person")]
pub async fn move_person(person: i64, team: String) -> Result<(), ServerFnError> {
    use crate::flash::Notice;
    use crate::paths::PEOPLE;
    use crate::ssr::*;
    use engine::org::{PersonId, TeamId};
    let me = signed_in().await?;
    let team = team.trim().parse().map_err(|_| ServerFnError::new("Choose a team from the list"))?;
    let notice = match org()?.teams.move_person(&me, PersonId(person), TeamId(team)).await {
        Ok(sentence) => Notice::ok(sentence),
        Err(e) => Notice::refused(refusal(&e)),
    };
    notice_back(&format!("{PEOPLE}?person={person}"), notice).await
}

/// The drawer's Main team select; not offered for someone who has left, who cannot be moved.
#[component]
pub fn MainTeamForm(person: Person, teams: Vec<Team>) -> impl IntoView {
    (person.left_at.is_none()).then(|| {
        view! {
            <form method="post" action=MovePerson::url()>
                <input type="hidden" name="person" value=person.id.to_string()/>
                <label>"Main team "
                    <select name="team">
                        {person.main_team.is_none().then(|| view! { <option value="" selected disabled>"No team"</option> })}
                        {teams.into_iter().map(|t| view! {
                            <option value=t.id.to_string() selected=person.main_team == Some(t.id)>{t.name}</option>
                        }).collect_view()}
                    </select>
                </label>
                <button type="submit">"Move"</button>
            </form>
        }
    })
}
