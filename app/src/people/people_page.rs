use super::load_add_person::{load_add_person, AddPersonData};
use super::load_people::{load_people, PeopleData};
use super::mark_left::MarkLeft;
use super::people_admin::{AddPersonForm, PersonAccess};
use super::set_manager::SetManager;
use super::set_person_role::SetPersonRole;
use crate::components::{loaded, NoticeLine};
use crate::paths::PEOPLE;
use crate::teams::move_person::MainTeamForm;
use engine::org::{Directory, Person, RoleSource};
use leptos::prelude::*;
use leptos::server_fn::ServerFn;
use leptos_router::hooks::use_query_map;

/// People, for admins. `?person=ID` opens that person's drawer.
#[component]
pub fn PeoplePage() -> impl IntoView {
    let query = use_query_map();
    let selected = Memo::new(move |_| query.read().get("person").and_then(|p| p.parse::<i64>().ok()));
    let leaving = Memo::new(move |_| query.read().get("leave").is_some());
    // One read for the page, so it renders (and hydrates) under one Suspense.
    let data = Resource::new(
        move || selected.get(),
        |person| async move { Ok::<_, ServerFnError>((load_people(person).await?, load_add_person().await?)) },
    );
    view! {
        <h1>"People"</h1>
        {loaded(data, move |(d, a)| view! { <People data=d adding=a selected=selected.get() leaving=leaving.get()/> })}
    }
}

/// "Sales (from their team)", "Support", or "none".
fn role_label(dir: &Directory, p: &Person) -> String {
    let name = |id| dir.role(id).map(|r| r.name.clone()).unwrap_or_default();
    match p.department_role(&dir.teams) {
        RoleSource::Own(r) => name(r),
        RoleSource::FromTeam(r) => format!("{} (from their team)", name(r)),
        RoleSource::None => "none".to_string(),
    }
}

#[component]
fn People(data: PeopleData, adding: AddPersonData, selected: Option<i64>, leaving: bool) -> impl IntoView {
    let PeopleData { directory: dir, notice, memory_counts } = data;
    let me = adding.me;
    let drawer = selected.and_then(|id| dir.people.iter().find(|p| p.id.0 == id).cloned());
    view! {
        <NoticeLine notice/>
        {view! { <AddPersonForm data=adding teams=dir.teams.clone() roles=dir.roles.clone()/> }.into_any()}
        <p><a href=crate::people_import::PEOPLE_IMPORT>"Import people"</a></p>
        <table class="people">
            <thead><tr><th>"Name"</th><th>"Email"</th><th>"Main team"</th><th>"Department role"</th><th>"Admin"</th></tr></thead>
            <tbody>
                {dir.people.iter().map(|p| view! {
                    <tr>
                        <td>
                            <a href=format!("{PEOPLE}?person={}", p.id)>{p.name.clone()}</a>
                            {p.left_at.map(|at| view! { <span class="tag">{format!(" · left {}", at.format("%-d %b %Y"))}</span> })}
                        </td>
                        <td>{p.email.clone()}</td>
                        <td>{p.main_team.and_then(|t| dir.team(t)).map(|t| t.name.clone()).unwrap_or_default()}</td>
                        <td>{role_label(&dir, p)}</td>
                        <td>{if p.is_admin { "yes" } else { "" }}</td>
                    </tr>
                }.into_any()).collect_view()}
            </tbody>
        </table>
        {drawer.map(|p| {
            let team_role = p.main_team.and_then(|t| dir.team(t)).and_then(|t| t.role).and_then(|r| dir.role(r));
            let from_team = match team_role {
                Some(r) => format!("From their team ({})", r.name),
                None => "From their team (none)".to_string(),
            };
            view! {
                <aside class="drawer" aria-label=format!("{}'s details", p.name)>
                    <h2>{p.name.clone()}</h2>
                    <p>{p.email.clone()}</p>
                    {memory_counts.clone().map(|line| view! { <p class="memory-counts">{line}</p> })}
                    {p.left_at.map(|at| view! { <p class="left">{format!("Left on {}. They can no longer sign in.", at.format("%-d %b %Y"))}</p> })}
                    <PersonAccess person=p.clone() me/>
                    <MainTeamForm person=p.clone() teams=dir.teams.clone()/>
                    <form method="post" action=SetPersonRole::url()>
                        <input type="hidden" name="person" value=p.id.to_string()/>
                        <label>"Department role "
                            <select name="role">
                                <option value="" selected=p.role_override.is_none()>{from_team}</option>
                                {dir.roles.iter().map(|r| view! {
                                    <option value=r.id.to_string() selected=p.role_override == Some(r.id)>{r.name.clone()}</option>
                                }).collect_view()}
                            </select>
                        </label>
                        <button type="submit">"Save"</button>
                    </form>
                    <form method="post" action=SetManager::url()>
                        <input type="hidden" name="person" value=p.id.to_string()/>
                        <label>"Manager "
                            <select name="manager">
                                <option value="" selected=p.manager.is_none()>"No manager"</option>
                                {dir.people.iter().filter(|m| m.id != p.id && (m.left_at.is_none() || p.manager == Some(m.id))).map(|m| view! {
                                    <option value=m.id.to_string() selected=p.manager == Some(m.id)>{m.name.clone()}</option>
                                }).collect_view()}
                            </select>
                        </label>
                        <button type="submit">"Save"</button>
                    </form>
                    {(p.left_at.is_none() && !leaving).then(|| view! {
                        <p><a class="button" href=format!("{PEOPLE}?person={}&leave=1", p.id)>"Mark as left…"</a></p>
                    })}
                    {(p.left_at.is_none() && leaving).then(|| view! {
                        <div class="confirm" role="alertdialog" aria-label=format!("Mark {} as left?", p.name)>
                            <p>{format!(
                                "Mark {} as left? They are signed out and can no longer sign in, their tokens are revoked, and the records kept for their work go. Their name stays in history. This cannot be undone.",
                                p.name
                            )}</p>
                            <form method="post" action=MarkLeft::url() class="inline">
                                <input type="hidden" name="person" value=p.id.to_string()/>
                                <button type="submit">"Mark as left"</button>
                            </form>
                            <a href=format!("{PEOPLE}?person={}", p.id)>"Cancel"</a>
                        </div>
                    })}
                    <p><a href=PEOPLE>"Close"</a></p>
                </aside>
            }
            // The drawer's view type alone is deep; erased, the page's type stays within the
            // compiler's limits in the release build, which keeps full view types.
            .into_any()
        })}
    }
}
