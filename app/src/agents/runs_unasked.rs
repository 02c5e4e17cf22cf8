//! The "Runs unasked" section of a company agent's page: its schedule (when, next due in the
//! company's zone, paused), a form to set or clear it, pause and resume, and its trigger, made,
//! rotated or cleared, with the secret shown once. Only the owner or an admin sees the forms;
//! everyone else reads the state. Every form posts and redirects, so it works without JavaScript.

use super::clear_agent_schedule::ClearAgentSchedule;
use super::clear_agent_trigger::ClearAgentTrigger;
use super::load_agent_page::{RunsUnasked, ScheduleDraft};
use super::make_agent_trigger::MakeAgentTrigger;
use super::set_agent_paused::SetAgentPaused;
use super::set_agent_schedule::SetAgentSchedule;
use leptos::prelude::*;
use leptos::server_fn::ServerFn;

const KINDS: [(&str, &str); 3] = [("daily", "Daily at"), ("weekdays", "On weekdays at"), ("every", "Every")];

#[component]
pub fn RunsUnaskedSection(agent: i64, state: Result<RunsUnasked, String>) -> impl IntoView {
    let id = agent.to_string();
    view! {
        <section class="runs-unasked">
            <h2>"Runs unasked"</h2>
            {match state {
                Err(why) => view! { <p class="meta">{why}</p> }.into_any(),
                Ok(r) => view! { <RunsUnaskedState id r/> }.into_any(),
            }}
        </section>
    }
}

#[component]
fn RunsUnaskedState(id: String, r: RunsUnasked) -> impl IntoView {
    let RunsUnasked { manages, schedule, trigger_made, trigger_path, paused, new_secret, draft } = r;
    // A refused save shows the form as it was typed; otherwise as it is saved.
    let form = draft.clone().unwrap_or_else(|| match &schedule {
        Some(s) => ScheduleDraft { instruction: s.instruction.clone(), kind: s.kind.clone(), value: s.value.clone() },
        None => ScheduleDraft { instruction: String::new(), kind: "daily".into(), value: "09:00".into() },
    });
    let has_schedule = schedule.is_some();
    let has_trigger = trigger_made.is_some();
    view! {
        <p class="meta">"A schedule or a trigger runs this agent for nobody: it loads only its role's company core, and whatever it would do waits in its owner's Inbox."</p>
        {paused.then(|| view! {
            <p class="paused">"Paused by its owner: neither its schedule nor its trigger runs."</p>
        })}
        <div class="schedule">
            <h3>"Schedule"</h3>
            {match schedule {
                Some(s) => view! {
                    <p class="schedule-state">{format!("{} · next due {}", s.when, s.next_due)}</p>
                    <pre class="instruction">{s.instruction}</pre>
                }.into_any(),
                None => view! { <p class="schedule-state">"No schedule."</p> }.into_any(),
            }}
            {manages.then(|| view! {
                <form method="post" action=SetAgentSchedule::url() class="schedule-form">
                    <input type="hidden" name="agent" value=id.clone()/>
                    <label for="schedule-instruction">"Instruction, asked each time"</label>
                    <textarea id="schedule-instruction" name="instruction" rows="3">{form.instruction.clone()}</textarea>
                    <label>"When "
                        <select name="kind">
                            {KINDS.into_iter().map(|(k, words)| view! {
                                <option value=k selected=form.kind == k>{words}</option>
                            }).collect_view()}
                        </select>
                    </label>
                    <label>" " <input type="text" name="value" value=form.value.clone() size="8"/></label>
                    <p class="meta">"A time as HH:MM in the company's zone, or how often: 2h, 30m (at most every 15 minutes)."</p>
                    <button type="submit">"Save schedule"</button>
                </form>
                {has_schedule.then(|| view! {
                    <form method="post" action=ClearAgentSchedule::url() class="inline">
                        <input type="hidden" name="agent" value=id.clone()/>
                        <button type="submit">"Clear schedule"</button>
                    </form>
                })}
                <form method="post" action=SetAgentPaused::url() class="inline">
                    <input type="hidden" name="agent" value=id.clone()/>
                    <input type="hidden" name="paused" value=(!paused).to_string()/>
                    <button type="submit">{if paused { "Resume" } else { "Pause" }}</button>
                </form>
            })}
        </div>
        <div class="trigger">
            <h3>"Trigger"</h3>
            {new_secret.map(|s| view! {
                <p class="notice ok trigger-secret">
                    "Copy the trigger's secret now; it is not shown again: " <code class="secret">{s}</code>
                </p>
            })}
            {match trigger_made {
                Some(made) => view! {
                    <p class="trigger-state">
                        "Another system starts this agent by posting to " <code>{trigger_path.clone()}</code>
                        {format!(" with its secret (made {made}).")}
                    </p>
                }.into_any(),
                None => view! { <p class="trigger-state">"No trigger."</p> }.into_any(),
            }}
            {manages.then(|| view! {
                <form method="post" action=MakeAgentTrigger::url() class="inline">
                    <input type="hidden" name="agent" value=id.clone()/>
                    <button type="submit">{if has_trigger { "Rotate secret" } else { "Make trigger" }}</button>
                </form>
                {has_trigger.then(|| view! {
                    <form method="post" action=ClearAgentTrigger::url() class="inline">
                        <input type="hidden" name="agent" value=id.clone()/>
                        <button type="submit">"Clear trigger"</button>
                    </form>
                })}
            })}
        </div>
        {(!manages).then(|| view! { <p class="meta">"Only the agent's owner or an admin can change when it runs unasked."</p> })}
    }
}
