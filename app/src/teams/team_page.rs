use super::load_team::{load_team, TeamPageData};
use super::rename_team::RenameTeam;
use super::set_lead::SetTeamLead;
use super::set_role::ChooseTeamRole;
use crate::checks::checked_only_toggle::CheckedOnlyToggle;
use crate::components::{loaded, NoticeLine};
use crate::cores::core_panel::CorePanel;
use crate::paths::TEAMS;
use leptos::prelude::*;
use leptos::server_fn::ServerFn;
use leptos_router::hooks::use_params_map;

/// One team: its team core (with the Suggested changes its lead sees), then its members and lead,
/// and the forms of those who may change it.
#[component]
pub fn TeamPage() -> impl IntoView {
    let params = use_params_map();
    let id = Memo::new(move |_| params.read().get("id").unwrap_or_default());
    let scope = Signal::derive(move || format!("team:{}", id.get()));
    let data = Resource::new(move || id.get(), load_team);
    view! {
        <p class="crumbs"><a href=TEAMS>"Teams"</a></p>
        // The outcome of this page's forms shows at its top; a refusal to load shows once, below.
        <Suspense fallback=|| ()>
            {move || Suspend::new(async move {
                data.await.ok().and_then(|d| d.notice).map(|n| view! { <NoticeLine notice=Some(n)/> })
            })}
        </Suspense>
        <CorePanel scope/>
        {loaded(data, |d| view! { <TeamSection data=d/> })}
        {move || {
            let id = id.get();
            view! { <CheckedOnlyToggle scope=format!("team:{id}") back=format!("{TEAMS}/{id}")/> }
        }}
    }
}

#[component]
fn TeamSection(data: TeamPageData) -> impl IntoView {
    let TeamPageData { view: v, draft, .. } = data;
    let team = v.team.id.to_string();
    let typed = draft.map(|d| d.name).unwrap_or_else(|| v.team.name.clone());
    let lead = v.team.lead;
    let role = v.team.role;
    let lead_line = format!("Lead: {}", v.lead.as_ref().map(|l| l.name.as_str()).unwrap_or("none"));
    view! {
        <section class="team-people" aria-label="Members">
            <h2>"Members"</h2>
            <p class="lead">{lead_line}</p>
            {if v.members.is_empty() {
                view! { <p class="empty">"Nobody has this as their main team yet."</p> }.into_any()
            } else {
                view! {
                    <ul class="members">
                        {v.members.into_iter().map(|m| view! {
                            <li>{m.name}{(lead == Some(m.id)).then_some(" (lead)")}</li>
                        }).collect_view()}
                    </ul>
                }.into_any()
            }}
            {v.may_rename.then(|| view! {
                <form method="post" action=RenameTeam::url() class="inline">
                    <input type="hidden" name="team" value=team.clone()/>
                    <label>"Team name " <input type="text" name="name" value=typed required/></label>
                    <button type="submit">"Rename"</button>
                </form>
            })}
            {v.may_manage.then(|| view! {
                <form method="post" action=ChooseTeamRole::url() class="inline">
                    <input type="hidden" name="team" value=team.clone()/>
                    <label>"Department role "
                        <select name="role">
                            <option value="" selected=role.is_none()>"No role"</option>
                            {v.roles.into_iter().map(|r| view! {
                                <option value=r.id.to_string() selected=role == Some(r.id)>{r.name}</option>
                            }).collect_view()}
                        </select>
                    </label>
                    <button type="submit">"Set role"</button>
                </form>
                <form method="post" action=SetTeamLead::url() class="inline">
                    <input type="hidden" name="team" value=team.clone()/>
                    <label>"Lead "
                        <select name="lead">
                            <option value="" selected=lead.is_none()>"No lead"</option>
                            {v.people.into_iter().map(|p| view! {
                                <option value=p.id.to_string() selected=lead == Some(p.id)>{p.name}</option>
                            }).collect_view()}
                        </select>
                    </label>
                    <button type="submit">"Set lead"</button>
                </form>
            })}
        </section>
    }
}
