use super::agent_tokens::AgentTokensSection;
use super::load_agent_page::{load_agent_page, AgentPageData};
use super::runs_unasked::RunsUnaskedSection;
use super::save_playbook::SavePlaybook;
use super::set_agent_clearance::SetAgentClearance;
use super::set_agent_toolsets::SetAgentToolsets;
use super::set_memory_scopes::SetMemoryScopes;
use crate::components::{loaded, NoticeLine};
use crate::paths::{connector, AGENTS};
use engine::cards::access::DataLabel;
use engine::lessons::scopes::{scopes_line, ALL_SCOPES};
use engine::org::agents::clearance_meaning;
use engine::org::service::ToolsetChoice;
use leptos::prelude::*;
use leptos::server_fn::ServerFn;
use leptos_router::hooks::use_params_map;

const LABELS: [DataLabel; 4] = [DataLabel::Public, DataLabel::Internal, DataLabel::Confidential, DataLabel::Personal];

/// One company agent: its toolsets, given by whoever manages it, its clearance, set by an admin,
/// and how it runs unasked.
#[component]
pub fn AgentPage() -> impl IntoView {
    let params = use_params_map();
    let id = move || params.read().get("id").and_then(|i| i.parse::<i64>().ok()).unwrap_or(0);
    let data = Resource::new(id, load_agent_page);
    view! {
        <p class="crumbs"><a href=AGENTS>"Agents"</a></p>
        {loaded(data, |d| view! { <AgentView data=d/> })}
    }
}

fn toolset_line(t: &ToolsetChoice) -> String {
    let admits = if t.admits.is_empty() { "everyone".to_string() } else { t.admits.join(", ") };
    format!(" · {} data · admits {admits}", t.label.as_str())
}

#[component]
fn AgentView(data: AgentPageData) -> impl IntoView {
    let AgentPageData { access, notice, playbook_draft, scopes_draft, runs_unasked, agent_tokens } = data;
    let playbook = playbook_draft.unwrap_or_else(|| access.playbook.clone());
    // A refused save shows the boxes as they were ticked, not as they are stored.
    let ticked = {
        let stored = access.memory_scopes.clone();
        move |s: engine::lessons::scopes::MemoryScope| match &scopes_draft {
            Some(draft) => draft.iter().any(|d| d == s.as_str()),
            None => stored.contains(&s),
        }
    };
    let a = access.agent.clone();
    let id = a.id.0.to_string();
    let held: Vec<ToolsetChoice> = access.toolsets.iter().filter(|t| t.held).cloned().collect();
    let current = access.clearance;
    // The meaning follows the choice before it is saved; without JavaScript it reads as saved.
    let chosen = RwSignal::new(current);
    let copy = access.team_copy_name.clone().map(|t| match access.copy_of_name.clone() {
        Some(of) => format!("Team copy of {of} for {t}: it loads {t}'s team core."),
        None => format!("Team copy for {t}: it loads {t}'s team core."),
    });
    view! {
        <h1>{a.name.clone()}</h1>
        <NoticeLine notice/>
        <p class="meta">{format!(
            "From the {} template · owner {} · department role {}",
            a.template,
            access.owner_name,
            access.role_name.clone().unwrap_or_else(|| "none".to_string()),
        )}</p>
        {copy.map(|c| view! { <p class="meta">{c}</p> })}
        {a.private.then(|| view! {
            <p class="meta private-agent">"Your private agent: only you see it and ask it. What it learns loads only into your private agents' runs."</p>
        })}
        {(!a.description.is_empty()).then(|| view! { <p class="description">{a.description.clone()}</p> })}
        <section class="toolsets">
            <h2>"Toolsets"</h2>
            {if a.private {
                view! { <p class="meta">{engine::org::agents::PRIVATE_HOLDS_NO_TOOLSETS}</p> }.into_any()
            } else if access.manages {
                view! {
                    <form method="post" action=SetAgentToolsets::url() class="settings">
                        <input type="hidden" name="agent" value=id.clone()/>
                        {if access.toolsets.is_empty() {
                            view! { <p class="meta">"There are no connectors yet; an admin adds one under Connectors."</p> }.into_any()
                        } else {
                            view! {
                                <ul class="toolsets">
                                    {access.toolsets.iter().map(|t| view! {
                                        <li>
                                            <label>
                                                <input type="checkbox" name="toolsets[]" value=t.id.to_string() checked=t.held/>
                                                " " {t.name.clone()}
                                            </label>
                                            <span class="meta">{toolset_line(t)}</span>
                                        </li>
                                    }).collect_view()}
                                </ul>
                            }.into_any()
                        }}
                        <button type="submit">"Save toolsets"</button>
                    </form>
                }.into_any()
            } else if held.is_empty() {
                view! { <p>"It holds no toolsets."</p> }.into_any()
            } else {
                view! {
                    <ul class="toolsets">
                        {held.iter().map(|t| view! { <li>{t.name.clone()}<span class="meta">{toolset_line(t)}</span></li> }).collect_view()}
                    </ul>
                }.into_any()
            }}
            {access.is_admin.then(|| view! {
                <p class="meta">
                    "Who a toolset admits is set on its connector's page: "
                    {access.toolsets.iter().map(|t| view! { <a href=connector(t.id)>{t.name.clone()}</a> " " }).collect_view()}
                </p>
            })}
        </section>
        <section class="playbook">
            <h2>"Playbook"</h2>
            <p class="meta">"How this agent works, in its owner's words. Draft from what exists reads it when drafting its role's company core; it loads into no run by itself."</p>
            {if access.manages {
                view! {
                    <form method="post" action=SavePlaybook::url()>
                        <input type="hidden" name="agent" value=id.clone()/>
                        <label for="playbook-text">"Playbook"</label>
                        <textarea id="playbook-text" name="text" rows="8">{playbook}</textarea>
                        <button type="submit">"Save playbook"</button>
                    </form>
                }.into_any()
            } else if playbook.is_empty() {
                view! { <p>"No playbook yet."</p> }.into_any()
            } else {
                view! { <pre class="playbook-text">{playbook}</pre> }.into_any()
            }}
        </section>
        <section class="memory-scopes">
            <h2>"Memory scopes"</h2>
            <p class="meta">{scopes_line(&access.memory_scopes)}</p>
            {access.manages.then(|| view! {
                <form method="post" action=SetMemoryScopes::url() class="settings">
                    <input type="hidden" name="agent" value=id.clone()/>
                    <p class="meta">"Tick none for no limit. Company knowledge always loads."</p>
                    <ul class="scopes">
                        {ALL_SCOPES.into_iter().map(|s| view! {
                            <li>
                                <label>
                                    <input type="checkbox" name="scopes[]" value=s.as_str() checked=ticked(s)/>
                                    " " {s.words()}
                                </label>
                            </li>
                        }).collect_view()}
                    </ul>
                    <button type="submit">"Save memory scopes"</button>
                </form>
            })}
        </section>
        <RunsUnaskedSection agent=a.id.0 state=runs_unasked/>
        {agent_tokens.map(|shown| view! { <AgentTokensSection agent=a.id.0 shown/> })}
        <section class="clearance">
            <h2>"Clearance"</h2>
            {if access.is_admin {
                view! {
                    <form method="post" action=SetAgentClearance::url() class="inline">
                        <input type="hidden" name="agent" value=id.clone()/>
                        <label>"Clearance "
                            <select name="clearance" on:change=move |ev| {
                                if let Some(l) = DataLabel::parse(&event_target_value(&ev)) {
                                    chosen.set(l);
                                }
                            }>
                                {LABELS.into_iter().map(|l| view! {
                                    <option value=l.as_str() selected=current == l>{l.as_str()}</option>
                                }).collect_view()}
                            </select>
                        </label>
                        <button type="submit">"Set clearance"</button>
                    </form>
                }.into_any()
            } else {
                view! { <p>{format!("Clearance: {}", current.as_str())}</p> }.into_any()
            }}
            <p class="meta clearance-meaning">{move || clearance_meaning(chosen.get())}</p>
            {(!access.is_admin).then(|| view! { <p class="meta">"Only an admin can change an agent's clearance."</p> })}
        </section>
    }
}
