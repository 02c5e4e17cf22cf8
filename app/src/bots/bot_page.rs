use super::agent_tokens_view::AgentTokens;
use super::edit_memory_line::EditMemoryLine;
use super::improve_card::ImproveCardView;
use super::load_agent_page::{load_agent_page, AgentPageData};
use super::memory_audit_view::MemoryAuditPanel;
use super::retire_memory_line::RetireMemoryLine;
use super::self_edit_view::SelfEditView;
use crate::components::{loaded, when, NoticeLine};
use crate::paths;
use engine::persona::backlog::{Episode, MemoryRow};
use engine::persona::config::EffectiveConfig;
use engine::tokens::meter;
use leptos::prelude::*;
use leptos::server_fn::ServerFn;
use leptos_router::hooks::use_params_map;

#[component]
pub fn AgentPage() -> impl IntoView {
    let params = use_params_map();
    let name = move || params.read().get("name").unwrap_or_default();
    let data = Resource::new(name, load_agent_page);
    view! { {loaded(data, |d| view! { <Agent data=d/> })} }
}

/// The block's keys as `key = value` lines, with those left to the defaults marked.
fn config_lines(c: &EffectiveConfig) -> Vec<(String, String, bool)> {
    fn walk(prefix: &str, v: &serde_json::Value, out: &mut Vec<(String, String)>) {
        match v {
            serde_json::Value::Object(m) => {
                for (k, v) in m {
                    let key = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
                    walk(&key, v, out);
                }
            }
            other => out.push((prefix.to_string(), other.to_string())),
        }
    }
    let mut flat = Vec::new();
    walk("", &serde_json::to_value(&c.config).unwrap_or_default(), &mut flat);
    flat.into_iter().map(|(k, v)| (k.clone(), v, c.defaulted.contains(&k))).collect()
}

fn age(e: &Episode) -> String {
    when(&e.created_at)
}

#[component]
fn Agent(data: AgentPageData) -> impl IntoView {
    let AgentPageData { page, notice, drafts, decline_drafts, audit_preview, tokens, now } = data;
    let name = page.agent.name.clone();
    let back = paths::org_agent(&name);
    let budget = page.budget;
    let may_correct = page.may_correct;
    let closed_count = page.closed.len();
    let active_rows = page.active.clone();
    let core_meter = meter(page.core.tokens, budget);
    let config_view = match (&page.config, &page.config_error) {
        (Some(c), _) => view! {
            <table class="config">
                <tbody>
                    {config_lines(c).into_iter().map(|(k, v, d)| view! {
                        <tr>
                            <th>{k}</th>
                            <td>{v}</td>
                            <td class="meta">{if d { "default" } else { "set by the vault" }}</td>
                        </tr>
                    }).collect_view()}
                </tbody>
            </table>
        }
        .into_any(),
        (None, Some(e)) => view! { <p class="notice refused" role="alert">{e.clone()}</p> }.into_any(),
        (None, None) => ().into_any(),
    };
    let stats_lines = page.stats.lines(&name);
    let undoable = page.undoable.clone();
    let no_edits = page.self_edits.is_empty();
    view! {
        <h1>{format!("Bot: {name}")}</h1>
        <NoticeLine notice/>
        <nav class="tabs" aria-label="On this page">
            <a href="#memory">"Memory"</a>
            <a href="#self-edits">"Self-edits"</a>
            <a href="#memory-audit">"Memory audit"</a>
            <a href="#episodes">"Episodes"</a>
            <a href="#proposals">"Proposals"</a>
        </nav>
        <p>{page.agent.description.clone()}</p>
        <p class="meta">
            {format!(
                "Role: {} · owner {} · lead {}",
                page.role_name.clone().unwrap_or_else(|| "none".into()),
                page.owner_name,
                page.lead_name.clone().unwrap_or_else(|| "none".into()),
            )}
        </p>
        <p class="meta model">{page.model.clone()}</p>

        <section>
            <h2>"Memory config"</h2>
            {config_view}
        </section>

        <section>
            <h2>"Core block"</h2>
            <p class="meter">{core_meter}</p>
            {(page.core.left_out > 0).then(|| view! {
                <p class="meta">{format!("{} active lines did not fit the budget.", page.core.left_out)}</p>
            })}
            <pre class="core">{page.core.text.clone()}</pre>
        </section>

        <section id="memory">
            <h2>"Active lines"</h2>
            {active_rows.is_empty().then(|| view! { <p>"No active lines yet."</p> })}
            <ul class="memory">
                {active_rows.into_iter().map(|r| {
                    let draft = drafts.iter().find(|(id, _)| *id == r.id).map(|(_, t)| t.clone());
                    view! { <ActiveLine row=r agent=name.clone() may_correct draft/> }
                }).collect_view()}
            </ul>
            <details class="closed">
                <summary>{format!("Closed lines ({closed_count})")}</summary>
                <ul class="memory">
                    {page.closed.iter().map(|r| view! {
                        <li id=format!("line-{}", r.id)>
                            {format!("#{} [{}] {} (seen {}×)", r.id, r.kind.as_str(), r.text, r.times_seen)}
                            <span class="meta">
                                {format!(
                                    " — closed {} by {}: {}",
                                    r.closed_at.as_ref().map(when).unwrap_or_default(),
                                    r.closed_by.clone().unwrap_or_default(),
                                    r.closed_reason.clone().unwrap_or_default()
                                )}
                                {r.superseded_by.map(|s| format!(" (superseded by #{s})"))}
                            </span>
                        </li>
                    }).collect_view()}
                </ul>
            </details>
        </section>

        <section id="self-edits">
            <h2>"Self-edits"</h2>
            <p class="meta">
                "The bot's own edits to its memory through memory_self_edit, within its self_edit policy: what it meant to do beside what changed."
            </p>
            <h3>"Profile"</h3>
            {match page.profile.clone() {
                Some(p) => view! { <pre class="profile">{p}</pre> }.into_any(),
                None => view! { <p>"The bot has written no profile summary yet."</p> }.into_any(),
            }}
            <h3>"Knowledge to acquire"</h3>
            {page.knowledge_gaps.is_empty().then(|| view! { <p>"Its reflections have flagged nothing it lacks."</p> })}
            <ul class="knowledge-gaps">
                {page.knowledge_gaps.iter().map(|g| view! {
                    <li>
                        {g.text.clone()}
                        <span class="meta">" — "<a href=format!("{back}#episode-{}", g.episode)>{format!("episode {}", g.episode)}</a></span>
                    </li>
                }).collect_view()}
            </ul>
            <h3>"Edits"</h3>
            {no_edits.then(|| view! { <p>"No self-edits yet."</p> })}
            {page.self_edits.into_iter().map(|e| {
                let can_undo = undoable.contains(&e.id);
                let draft = decline_drafts.iter().find(|(id, _)| *id == e.id).map(|(_, t)| t.clone()).unwrap_or_default();
                view! { <SelfEditView edit=e back=back.clone() may_settle=may_correct undoable=can_undo draft/> }
            }).collect_view()}
        </section>

        <section id="episodes">
            <h2>"Episodes"</h2>
            <table class="episodes">
                <thead>
                    <tr>
                        <th>"When"</th><th>"Card"</th><th>"Outcome"</th><th>"Corrected"</th><th>"Turns"</th>
                        <th>"Cost"</th><th>"Duration"</th><th>"Summary"</th><th>"Log"</th>
                    </tr>
                </thead>
                <tbody>
                    {page.episodes.iter().map(|e| view! {
                        <tr id=format!("episode-{}", e.id)>
                            <td>{age(e)}</td>
                            <td>{e.task.map(|t| format!("#{t}")).unwrap_or_else(|| "—".into())}</td>
                            <td>{e.outcome.as_str()}</td>
                            <td>{if e.corrected { "yes" } else { "no" }}</td>
                            <td>{e.turns.map(|t| t.to_string()).unwrap_or_else(|| "—".into())}</td>
                            <td>{e.cost_usd.map(|c| format!("${c:.2}")).unwrap_or_else(|| "—".into())}</td>
                            <td>{e.duration_s.map(|d| format!("{d:.0} s")).unwrap_or_else(|| "—".into())}</td>
                            <td>{format!("episode {}: {}", e.id, e.summary)}</td>
                            <td><code>{e.log_path.clone().unwrap_or_default()}</code></td>
                        </tr>
                    }).collect_view()}
                </tbody>
            </table>
        </section>

        <section id="proposals">
            <h2>"Proposals"</h2>
            {page.proposals.is_empty().then(|| view! { <p>"No proposals yet."</p> })}
            {page.proposals.into_iter().map(|c| view! { <ImproveCardView card=c back=back.clone()/> }).collect_view()}
        </section>

        <section>
            <h2>"Stats"</h2>
            <ul class="stats">{stats_lines.into_iter().map(|l| view! { <li>{l}</li> }).collect_view()}</ul>
        </section>

        <section>
            <h2>"Hand-written memory"</h2>
            {match page.hand_written {
                Some(t) => view! { <pre class="handwritten">{t}</pre> }.into_any(),
                None => view! { <p>"No hand-written memory file."</p> }.into_any(),
            }}
        </section>

        <section id="user-memory">
            <h2>"About its people (USER.md)"</h2>
            <p class="meta">{format!(".agents/org/memory/{name}.user.md")}</p>
            {match page.user_memory {
                Some(t) => view! { <pre class="user-memory">{t}</pre> }.into_any(),
                None => view! { <p>"No USER.md for this bot."</p> }.into_any(),
            }}
        </section>

        <MemoryAuditPanel state=page.audit agent=name.clone() may_run=may_correct preview=audit_preview/>
        {tokens.map(|tokens| view! { <AgentTokens agent=name.clone() tokens now/> })}
    }
}

#[component]
fn ActiveLine(row: MemoryRow, agent: String, may_correct: bool, draft: Option<String>) -> impl IntoView {
    let id = row.id;
    let href = paths::org_agent(&agent);
    let text = draft.clone().unwrap_or_else(|| row.text.clone());
    view! {
        <li id=format!("line-{id}")>
            <span class="kind">{format!("[{}]", row.kind.as_str())}</span>
            {format!(" {} ", row.text)}
            <span class="meta">
                {format!("#{id} · seen {}× · worth {} · ", row.times_seen, row.worth)}
                {row.evidence.iter().map(|e| view! { <a href=format!("{href}#episode-{e}")>{format!("episode {e}")}</a>" " }).collect_view()}
                {row.promoted_to_proposal.then(|| format!("· proposal #{}", row.proposal_task_id.unwrap_or_default()))}
            </span>
            {may_correct.then(|| view! {
                <details class="correct" open=draft.is_some()>
                    <summary>"Edit or retire"</summary>
                    <form method="post" action=EditMemoryLine::url() class="inline">
                        <input type="hidden" name="id" value=id.to_string()/>
                        <input type="hidden" name="agent" value=agent.clone()/>
                        <label>"Corrected line " <input type="text" name="text" value=text size="80"/></label>
                        <button type="submit">"Save correction"</button>
                    </form>
                    <form method="post" action=RetireMemoryLine::url() class="inline">
                        <input type="hidden" name="id" value=id.to_string()/>
                        <input type="hidden" name="agent" value=agent.clone()/>
                        <label>"Why " <input type="text" name="reason" required maxlength="300"/></label>
                        <button type="submit">"Retire"</button>
                    </form>
                </details>
            })}
        </li>
    }
}
