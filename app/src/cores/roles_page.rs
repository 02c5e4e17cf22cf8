use super::create_role::CreateRole;
use super::load_roles::{load_roles, RolesPageData};
use super::set_team_role::SetTeamRole;
use crate::components::{loaded, NoticeLine};
use crate::paths::ROLES;
use engine::cores::core_status;
use engine::cores::service::TeamCoreSummary;
use engine::org::Role;
use leptos::prelude::*;
use leptos::server_fn::ServerFn;

/// Company → Roles and core knowledge.
#[component]
pub fn RolesPage() -> impl IntoView {
    let data = Resource::new(|| (), |_| load_roles(ROLES.to_string()));
    view! {
        <h1>"Roles and core knowledge"</h1>
        {loaded(data, |d| view! { <Roles data=d/> })}
    }
}

#[component]
fn Roles(data: RolesPageData) -> impl IntoView {
    let RolesPageData { overview, notice } = data;
    let is_admin = overview.is_admin;
    let roles: Vec<Role> = overview.roles.iter().map(|r| r.role.clone()).collect();
    // The hint is for the forms below, which only a team without a role has.
    let some_without_role = overview.teams.iter().any(|t| t.team.role.is_none());
    view! {
        <NoticeLine notice/>
        <section>
            <h2>"Roles"</h2>
            <ul class="roles">
                {overview.roles.into_iter().map(|r| view! {
                    <li>
                        <a href=format!("/company/roles/{}", r.role.slug.as_str())>{r.role.name.clone()}</a>
                        {format!(" ({}): {}", r.role.slug, core_status("company core", r.version, r.tokens, r.limit))}
                    </li>
                }).collect_view()}
            </ul>
            {is_admin.then(|| view! {
                <form method="post" action=CreateRole::url() class="inline">
                    <label>"Role name " <input type="text" name="name" required/></label>
                    <button type="submit">"New role"</button>
                </form>
            })}
        </section>
        <section>
            <h2>"Teams"</h2>
            {(is_admin && some_without_role).then(|| view! { <p class="hint">"Give each team without a role one here; change a team's role on its own page."</p> })}
            <TeamList teams=overview.teams roles is_admin back=ROLES set_role=true/>
        </section>
    }
}

/// Teams with their role, lead and team core. On Roles (`set_role`), admins give a team without a
/// role one here; changing a team's role is on the team's own page. A form a team was most of the
/// page (a kilobyte a team: 46 KB at 40 teams), and a team without a role is the one whose core
/// loads in no run, so that is the one the form is for. Teams leaves every form to the team's page.
#[component]
pub fn TeamList(
    teams: Vec<TeamCoreSummary>,
    roles: Vec<Role>,
    is_admin: bool,
    back: &'static str,
    set_role: bool,
) -> impl IntoView {
    view! {
        <div class="teams">
            {teams.into_iter().map(|t| {
                let roles = roles.clone();
                let current = t.team.role;
                view! {
                    <article class="team" data-team=t.team.id.to_string()>
                        <h3><a href=format!("/company/teams/{}", t.team.id)>{t.team.name.clone()}</a></h3>
                        <p>{format!("Role: {}", t.role_name.clone().unwrap_or_else(|| "none".to_string()))}
                           {format!(" · Lead: {}", t.lead_name.clone().unwrap_or_else(|| "none".to_string()))}
                           {format!(" · {} {}", engine::tokens::format_count(t.members), if t.members == 1 { "member" } else { "members" })}</p>
                        <p>{format!("Team core: {}", core_status("team core", t.version, t.tokens, t.limit))}</p>
                        {t.notice.clone().map(|n| view! { <p class="notice warn">{n}</p> })}
                        {(is_admin && set_role && current.is_none()).then(|| view! {
                            <form method="post" action=SetTeamRole::url() class="inline">
                                <input type="hidden" name="team" value=t.team.id.to_string()/>
                                <input type="hidden" name="back" value=back/>
                                <label>"Department role "
                                    <select name="role">
                                        <option value="" selected=current.is_none()>"No role"</option>
                                        {roles.into_iter().map(|r| view! {
                                            <option value=r.id.to_string() selected=current == Some(r.id)>{r.name}</option>
                                        }).collect_view()}
                                    </select>
                                </label>
                                <button type="submit">"Set role"</button>
                            </form>
                        })}
                    </article>
                }
            }).collect_view()}
        </div>
    }
}
