use crate::components::{loaded, NoticeLine};
use crate::cores::load_roles::load_roles;
use crate::cores::roles_page::TeamList;
use crate::paths::TEAMS;
use leptos::prelude::*;

#[component]
pub fn TeamsPage() -> impl IntoView {
    let data = Resource::new(|| (), |_| load_roles(TEAMS.to_string()));
    view! {
        <h1>"Teams"</h1>
        {loaded(data, |d| {
            let roles = d.overview.roles.iter().map(|r| r.role.clone()).collect::<Vec<_>>();
            view! {
                <NoticeLine notice=d.notice/>
                <TeamList teams=d.overview.teams roles is_admin=d.overview.is_admin back=TEAMS/>
            }
        })}
    }
}
