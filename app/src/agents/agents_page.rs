use super::load_agents::{load_agents, AgentsData};
use super::set_agent_role::SetAgentRole;
use crate::components::{loaded, NoticeLine};
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
    let AgentsData { directory: dir, me, is_admin, notice, access } = data;
    view! {
        <NoticeLine notice/>
        <div class="agents">
            {dir.agents.iter().map(|a| {
                let manages = is_admin || a.owner == me;
                let role_name = a.role.and_then(|r| dir.role(r)).map(|r| r.name.clone()).unwrap_or_else(|| "none".into());
                let owner = dir.person(a.owner).map(|p| p.name.clone()).unwrap_or_default();
                let copy = a.team_copy.and_then(|t| dir.team(t)).map(|t| format!(" · team copy for {}", t.name));
                let current = a.role;
                view! {
                    <article class="agent">
                        <h2>{a.name.clone()}</h2>
                        <p class="meta">{format!("From the {} template · owner {}", a.template, owner)}{copy}</p>
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
                    </article>
                }
            }).collect_view()}
        </div>
    }
}
