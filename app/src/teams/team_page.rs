use super::load_team::{load_team, TeamPageData};
use super::rename_team::RenameTeam;
use super::set_lead::SetTeamLead;
use super::set_role::ChooseTeamRole;
use crate::checks::checked_only_toggle::CheckedOnlyToggle;
use crate::components::{loaded, NoticeLine, PersonPicker};
use crate::cores::core_panel::CorePanel;
use crate::paths::TEAMS;
use engine::org::listing::page_number;
use leptos::prelude::*;
use leptos::server_fn::ServerFn;
use leptos_router::hooks::{use_params_map, use_query_map};

/// One team: its team core (with the Suggested changes its lead sees), then its members and lead,
/// and the forms of those who may change it.
#[component]
pub fn TeamPage() -> impl IntoView {
    let params = use_params_map();
    let query = use_query_map();
    let id = Memo::new(move |_| params.read().get("id").unwrap_or_default());
    let page = Memo::new(move |_| page_number(query.read().get("page").as_deref()));
    let scope = Signal::derive(move || format!("team:{}", id.get()));
    let data = Resource::new(move || (id.get(), page.get()), |(id, page)| load_team(id, page));
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
    let TeamPageData { view: v, draft, lead_typed, .. } = data;
    let team = v.team.id.to_string();
    let here = format!("{TEAMS}/{}", v.team.id);
    let typed = draft.map(|d| d.name).unwrap_or_else(|| v.team.name.clone());
    let lead = v.team.lead;
    let role = v.team.role;
    let lead_line = format!("Lead: {}", v.lead.as_ref().map(|l| l.name.as_str()).unwrap_or("none"));
    let count_line = match v.member_count {
        1 => "1 person has this as their main team.".to_string(),
        n => format!("{} people have this as their main team.", engine::tokens::format_count(n)),
    };
    let lead_value = lead_typed.or_else(|| v.lead_email.clone()).unwrap_or_default();
    let (page, has_next) = (v.page, v.has_next);
    let page_link = move |p: u32| if p > 1 { format!("{here}?page={p}") } else { here.clone() };
    view! {
        <section class="team-people" aria-label="Members">
            <h2>"Members"</h2>
            <p class="lead">{lead_line}</p>
            <p class="member-count">{count_line}</p>
            {if v.members.is_empty() {
                let line = if page > 1 { "No more members." } else { "Nobody has this as their main team yet." };
                view! { <p class="empty">{line}</p> }.into_any()
            } else {
                view! {
                    <ul class="members">
                        {v.members.into_iter().map(|m| view! {
                            <li>{m.name}{(lead == Some(m.id)).then_some(" (lead)")}</li>
                        }).collect_view()}
                    </ul>
                }.into_any()
            }}
            {(page > 1 || has_next).then(|| view! {
                <nav class="pages" aria-label="Pages of members">
                    {(page > 1).then(|| view! { <a rel="prev" href=page_link(page - 1)>"Previous"</a> " " })}
                    <span>{format!("Page {page}")}</span>
                    {has_next.then(|| view! { " " <a rel="next" href=page_link(page + 1)>"Next"</a> })}
                </nav>
            })}
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
                    <PersonPicker name="lead" value=lead_value label="Lead" list=format!("leads-{team}")/>
                    <button type="submit">"Set lead"</button>
                </form>
            })}
        </section>
    }
}
