use super::load_add_person::{load_add_person, AddPersonData};
use super::load_people::{load_people, Drawer, PeopleData};
use super::mark_left::MarkLeft;
use super::people_admin::{AddPersonForm, PersonAccess};
use super::set_manager::SetManager;
use super::set_person_role::SetPersonRole;
use crate::components::{loaded, NoticeLine, PersonPicker};
use crate::paths::{people_link, PEOPLE};
use crate::teams::move_person::MainTeamForm;
use engine::org::listing::{page_number, Outline, SEARCH_CONSIDERS};
use engine::org::{Person, RoleSource, TeamId};
use leptos::prelude::*;
use leptos::server_fn::ServerFn;
use leptos_router::hooks::use_query_map;

/// People, for admins, 50 a page: `?q=` searches names, emails and teams by how they start,
/// `?page=N` turns the page, and `?person=ID` opens that person's drawer. All links and a GET
/// form, so it works without JavaScript.
#[component]
pub fn PeoplePage() -> impl IntoView {
    let query = use_query_map();
    let selected = Memo::new(move |_| query.read().get("person").and_then(|p| p.parse::<i64>().ok()));
    let leaving = Memo::new(move |_| query.read().get("leave").is_some());
    let search = Memo::new(move |_| query.read().get("q").unwrap_or_default());
    let page = Memo::new(move |_| page_number(query.read().get("page").as_deref()));
    // One read for the page, so it renders (and hydrates) under one Suspense.
    let data = Resource::new(
        move || (selected.get(), search.get(), page.get()),
        |(person, search, page)| async move {
            Ok::<_, ServerFnError>((load_people(person, search, page).await?, load_add_person().await?))
        },
    );
    view! {
        <h1>"People"</h1>
        {loaded(data, move |(d, a)| view! { <People data=d adding=a leaving=leaving.get()/> })}
    }
}

/// "Sales (from their team)", "Support", or "none".
fn role_label(outline: &Outline, p: &Person) -> String {
    let name = |id| outline.role(id).map(|r| r.name.clone()).unwrap_or_default();
    match p.department_role(&outline.teams) {
        RoleSource::Own(r) => name(r),
        RoleSource::FromTeam(r) => format!("{} (from their team)", name(r)),
        RoleSource::None => "none".to_string(),
    }
}

/// The counts by team at the top: each a link that searches for the team.
#[component]
fn TeamCounts(sizes: Vec<(Option<TeamId>, u32)>, current: u32, outline: Outline) -> impl IntoView {
    let total = current;
    view! {
        <p class="team-counts" aria-label="People by team">
            {format!("{} current {}: ", engine::tokens::format_count(total), if total == 1 { "person" } else { "people" })}
            {sizes.into_iter().enumerate().map(|(i, (team, n))| {
                let sep = if i == 0 { "" } else { " · " };
                match team.and_then(|t| outline.team(t)) {
                    Some(t) => view! {
                        {sep}<a href=people_link(&t.name, 1, None)>{t.name.clone()}</a>{format!(" {}", engine::tokens::format_count(n))}
                    }.into_any(),
                    None => view! { {sep}{format!("no main team {}", engine::tokens::format_count(n))} }.into_any(),
                }
            }).collect_view()}
        </p>
    }
}

/// The search box: a GET form, so the search is in the address and works without JavaScript.
#[component]
fn PeopleSearch(search: String) -> impl IntoView {
    let searching = !search.is_empty();
    view! {
        <form method="get" action=PEOPLE class="people-search" role="search">
            <label>"Search people " <input type="search" name="q" value=search placeholder="name, email or team"/></label>
            <button type="submit">"Search"</button>
            {searching.then(|| view! { " " <a href=PEOPLE>"Show everyone"</a> })}
        </form>
    }
}

/// Previous and next, as links that keep the search.
#[component]
fn PeoplePages(search: String, page: u32, has_next: bool) -> impl IntoView {
    (page > 1 || has_next).then(|| view! {
        <nav class="pages" aria-label="Pages of people">
            {(page > 1).then(|| view! { <a rel="prev" href=people_link(&search, page - 1, None)>"Previous"</a> " " })}
            <span>{format!("Page {page}")}</span>
            {has_next.then(|| view! { " " <a rel="next" href=people_link(&search, page + 1, None)>"Next"</a> })}
        </nav>
    })
}

#[component]
fn People(data: PeopleData, adding: AddPersonData, leaving: bool) -> impl IntoView {
    let PeopleData { listing, notice, drawer } = data;
    let outline = listing.outline.clone();
    let (search, page) = (listing.search.clone(), listing.page);
    let me = adding.me;
    let empty = listing.people.is_empty();
    view! {
        <NoticeLine notice/>
        {view! { <AddPersonForm data=adding teams=outline.teams.clone() roles=outline.roles.clone()/> }.into_any()}
        <p><a href=crate::people_import::PEOPLE_IMPORT>"Import people"</a></p>
        <TeamCounts sizes=listing.sizes.clone() current=listing.current outline=outline.clone()/>
        <PeopleSearch search=search.clone()/>
        {empty.then(|| view! { <p class="empty">{if search.is_empty() { "Nobody yet.".to_string() } else { format!("Nobody's name, email or team starts with {search}.") }}</p> })}
        {listing.overflowed.then(|| view! { <p class="notice search-overflowed">{overflowed_line(&search)}</p> })}
        <table class="people">
            <thead><tr><th>"Name"</th><th>"Email"</th><th>"Main team"</th><th>"Department role"</th><th>"Admin"</th></tr></thead>
            <tbody>
                {listing.people.iter().map(|p| view! {
                    <tr>
                        <td>
                            <a href=people_link(&search, page, Some(p.id.0))>{p.name.clone()}</a>
                            {p.left_at.map(|at| view! { <span class="tag">{format!(" · left {}", at.format("%-d %b %Y"))}</span> })}
                        </td>
                        <td>{p.email.clone()}</td>
                        <td>{p.main_team.and_then(|t| outline.team(t)).map(|t| t.name.clone()).unwrap_or_default()}</td>
                        <td>{role_label(&outline, p)}</td>
                        <td>{if p.is_admin { "yes" } else { "" }}</td>
                    </tr>
                }.into_any()).collect_view()}
            </tbody>
        </table>
        <PeoplePages search=search.clone() page has_next=listing.has_next/>
        {drawer.map(|Drawer { person: p, manager, manager_typed, memory_counts }| {
            let back = people_link(&search, page, None);
            let here = people_link(&search, page, Some(p.id.0));
            let manager_value = manager_typed.unwrap_or_else(|| manager.as_ref().map(|m| m.email.clone()).unwrap_or_default());
            let manager_line = match &manager {
                Some(m) => format!("Manager: {} <{}>", m.name, m.email),
                None => "No manager".to_string(),
            };
            let team_role = p.main_team.and_then(|t| outline.team(t)).and_then(|t| t.role).and_then(|r| outline.role(r));
            let from_team = match team_role {
                Some(r) => format!("From their team ({})", r.name),
                None => "From their team (none)".to_string(),
            };
            view! {
                <aside class="drawer" aria-label=format!("{}'s details", p.name)>
                    <h2>{p.name.clone()}</h2>
                    <p>{p.email.clone()}</p>
                    <p class="memory-counts">{memory_counts}</p>
                    {p.left_at.map(|at| view! { <p class="left">{format!("Left on {}. They can no longer sign in.", at.format("%-d %b %Y"))}</p> })}
                    <PersonAccess person=p.clone() me/>
                    <MainTeamForm person=p.clone() teams=outline.teams.clone()/>
                    <form method="post" action=SetPersonRole::url()>
                        <input type="hidden" name="person" value=p.id.to_string()/>
                        <label>"Department role "
                            <select name="role">
                                <option value="" selected=p.role_override.is_none()>{from_team}</option>
                                {outline.roles.iter().map(|r| view! {
                                    <option value=r.id.to_string() selected=p.role_override == Some(r.id)>{r.name.clone()}</option>
                                }).collect_view()}
                            </select>
                        </label>
                        <button type="submit">"Save"</button>
                    </form>
                    <form method="post" action=SetManager::url()>
                        <input type="hidden" name="person" value=p.id.to_string()/>
                        <p class="meta">{manager_line}</p>
                        <PersonPicker name="manager" value=manager_value label="Manager" list=format!("managers-{}", p.id)/>
                        <button type="submit">"Save"</button>
                        <span class="meta">" Leave it empty for no manager."</span>
                    </form>
                    {(p.left_at.is_none() && !leaving).then(|| view! {
                        <p><a class="button" href=format!("{here}{}leave=1", if here.contains('?') { "&" } else { "?" })>"Mark as left…"</a></p>
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
                            <a href=here.clone()>"Cancel"</a>
                        </div>
                    })}
                    <p><a href=back>"Close"</a></p>
                </aside>
            }
            // The drawer's view type alone is deep; erased, the page's type stays within the
            // compiler's limits in the release build, which keeps full view types.
            .into_any()
        })}
    }
}

/// What a search that matches more people than it considers says: which it lists, and how to
/// find the rest.
fn overflowed_line(search: &str) -> String {
    format!(
        "More than {considers} people match \u{201c}{search}\u{201d} by name, by email or by team. These pages list the \
         first {considers} of each, by name; type more of a name, an email or a team to narrow it.",
        considers = SEARCH_CONSIDERS,
    )
}
