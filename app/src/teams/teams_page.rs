use super::create_team::CreateTeam;
use super::load_teams::load_teams;
use super::TeamDraft;
use crate::components::{loaded, NoticeLine};
use crate::cores::roles_page::TeamList;
use crate::paths::TEAMS;
use engine::org::Role;
use leptos::prelude::*;
use leptos::server_fn::ServerFn;

/// Teams: each with its role, lead and core; admins add one here.
#[component]
pub fn TeamsPage() -> impl IntoView {
    let data = Resource::new(|| (), |_| load_teams());
    view! {
        <h1>"Teams"</h1>
        {loaded(data, |d| {
            let roles = d.overview.roles.iter().map(|r| r.role.clone()).collect::<Vec<_>>();
            let is_admin = d.overview.is_admin;
            let draft = d.draft.unwrap_or_default();
            view! {
                <NoticeLine notice=d.notice/>
                {is_admin.then(|| view! { <NewTeam roles=roles.clone() draft/> })}
                <TeamList teams=d.overview.teams roles is_admin back=TEAMS set_role=false/>
            }
        })}
    }
}

#[component]
fn NewTeam(roles: Vec<Role>, draft: TeamDraft) -> impl IntoView {
    view! {
        <form method="post" action=CreateTeam::url() class="new-team" aria-label="New team">
            <label>"Name " <input type="text" name="name" value=draft.name required/></label>
            <label>"Department role "
                <select name="role">
                    <option value="" selected=draft.role.is_empty()>"No role"</option>
                    {roles.into_iter().map(|r| {
                        let id = r.id.to_string();
                        view! { <option value=id.clone() selected=draft.role == id>{r.name}</option> }
                    }).collect_view()}
                </select>
            </label>
            <button type="submit">"New team"</button>
        </form>
    }
}
