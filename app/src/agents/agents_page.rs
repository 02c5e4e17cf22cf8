use super::copy_agent::CopyAgent;
use super::create_agent::CreateAgent;
use super::create_private_agent::CreatePrivateAgent;
use super::load_agents::{load_agents, AgentDraft, AgentsData, PrivateAgentDraft};
use super::set_agent_role::SetAgentRole;
use crate::components::{loaded, NoticeLine, PersonPicker};
use crate::paths::company_agent;
use engine::org::listing::Outline;
use leptos::prelude::*;
use leptos::server_fn::ServerFn;

#[component]
pub fn AgentsPage() -> impl IntoView {
    let data = Resource::new(|| (), |_| load_agents());
    view! {
        <h1>"Agents"</h1>
        {loaded(data, |d| view! { <Agents data=d/> })}
    }
}

#[component]
fn Agents(data: AgentsData) -> impl IntoView {
    let AgentsData { outline: dir, owners, me, is_admin, notice, access, draft, private, private_draft } = data;
    // Only admins see New agent; anyone else whose post was refused reads why at the top.
    let refused = draft.as_ref().filter(|_| !is_admin).map(|d| crate::flash::Notice::refused(d.message.clone()));
    let new_agent = is_admin.then(|| view! { <NewAgent dir=dir.clone() draft/> });
    view! {
        <NoticeLine notice/>
        <NoticeLine notice=refused/>
        <div class="agents">
            {dir.agents.iter().map(|a| {
                let manages = is_admin || a.owner == me;
                let role_name = a.role.and_then(|r| dir.role(r)).map(|r| r.name.clone()).unwrap_or_else(|| "none".into());
                let owner = owners.iter().find(|(id, _)| *id == a.owner).map(|(_, name)| name.clone()).unwrap_or_default();
                let copy = a.team_copy.and_then(|t| dir.team(t)).map(|t| format!(" · team copy for {}", t.name));
                let current = a.role;
                let copyable = manages && a.team_copy.is_none() && !dir.teams.is_empty();
                view! {
                    <article class="agent" data-agent=a.id.to_string()>
                        <h2><a href=company_agent(a.id.0)>{a.name.clone()}</a></h2>
                        <p class="meta">{format!("From the {} template · owner {}", a.template, owner)}{copy}</p>
                        {(!a.description.is_empty()).then(|| view! { <p class="description">{a.description.clone()}</p> })}
                        <p>{format!("Department role: {role_name}")}</p>
                        <p class="meta access">{access.iter().find(|(id, _)| *id == a.id.0).map(|(_, line)| line.clone())}</p>
                        {manages.then(|| view! {
                            <form method="post" action=SetAgentRole::url() class="inline">
                                <input type="hidden" name="agent" value=a.id.to_string()/>
                                <label>"Department role "
                                    <select name="role">
                                        <option value="" selected=current.is_none()>"No role"</option>
                                        {dir.roles.iter().map(|r| view! {
                                            <option value=r.id.to_string() selected=current == Some(r.id)>{r.name.clone()}</option>
                                        }).collect_view()}
                                    </select>
                                </label>
                                <button type="submit">"Save"</button>
                            </form>
                        })}
                        {copyable.then(|| view! {
                            <form method="post" action=CopyAgent::url() class="inline copy">
                                <input type="hidden" name="agent" value=a.id.to_string()/>
                                <label>"Team "
                                    <select name="team">
                                        {dir.teams.iter().map(|t| view! { <option value=t.id.to_string()>{t.name.clone()}</option> }).collect_view()}
                                    </select>
                                </label>
                                <button type="submit">"Copy for a team"</button>
                            </form>
                        })}
                    </article>
                }
            }).collect_view()}
        </div>
        {new_agent}
        <PrivateAgents agents=private draft=private_draft/>
    }
}

/// Your private agents, and New private agent: kept as typed when refused.
#[component]
fn PrivateAgents(agents: Vec<engine::org::Agent>, draft: Option<PrivateAgentDraft>) -> impl IntoView {
    let d = draft.unwrap_or_default();
    let message = (!d.message.is_empty()).then(|| d.message.clone());
    view! {
        <section class="private-agents">
            <h2>"Your private agents"</h2>
            <p class="meta">"Only you see and ask them. What they learn loads only into your private agents' runs, never a shared agent's."</p>
            {if agents.is_empty() {
                view! { <p>"You have no private agents yet."</p> }.into_any()
            } else {
                view! {
                    <ul class="private-agents">
                        {agents.into_iter().map(|a| view! {
                            <li data-agent=a.id.to_string()>
                                <a href=company_agent(a.id.0)>{a.name.clone()}</a>
                                {(!a.description.is_empty()).then(|| view! { <span class="meta">{format!(" · {}", a.description)}</span> })}
                            </li>
                        }).collect_view()}
                    </ul>
                }.into_any()
            }}
            {message.map(|m| view! { <p class="notice refused" role="alert">{m}</p> })}
            <form method="post" action=CreatePrivateAgent::url() class="settings">
                <label>"Name " <input type="text" name="name" required maxlength="80" value=d.name.clone()/></label>
                <label class="block">"What it is for"
                    <textarea name="description" rows="2">{d.description.clone()}</textarea>
                </label>
                <button type="submit">"Add private agent"</button>
            </form>
        </section>
    }
}

/// New agent, for admins: kept as typed when refused.
#[component]
fn NewAgent(dir: Outline, draft: Option<AgentDraft>) -> impl IntoView {
    let d = draft.unwrap_or_default();
    let message = (!d.message.is_empty()).then(|| d.message.clone());
    view! {
        <section class="new-agent">
            <h2>"New agent"</h2>
            {message.map(|m| view! { <p class="notice refused" role="alert">{m}</p> })}
            <form method="post" action=CreateAgent::url() class="settings">
                <label>"Name " <input type="text" name="name" required maxlength="80" value=d.name.clone()/></label>
                <label>" Department role "
                    <select name="role">
                        <option value="" selected=d.role.is_empty()>"No role"</option>
                        {dir.roles.iter().map(|r| {
                            let v = r.id.to_string();
                            let selected = v == d.role;
                            view! { <option value=v selected=selected>{r.name.clone()}</option> }
                        }).collect_view()}
                    </select>
                </label>
                <PersonPicker name="owner" value=d.owner.clone() label=" Owner" list="owners".to_string() required=true/>
                <label class="block">"Description"
                    <textarea name="description" rows="3">{d.description.clone()}</textarea>
                </label>
                <button type="submit">"Add agent"</button>
            </form>
        </section>
    }
}
