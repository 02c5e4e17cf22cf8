//! Seed 004's panel on the agent page: its state (utilisation, the last audit, what is
//! unresolved), **Dry run** and **Audit now**, a dry run's actions, and the recent audits with
//! each action's outcome and **Undo** for the newest while the files are as it left them.

use super::run_memory_audit::RunMemoryAudit;
use super::undo_memory_audit::UndoMemoryAudit;
use crate::components::when;
use engine::persona::memory_audit_store::{AuditRecord, Unresolved};
use engine::persona::service::{describe, AuditReport, AuditState};
use leptos::prelude::*;
use leptos::server_fn::ServerFn;

fn unresolved_list(items: Vec<Unresolved>) -> impl IntoView {
    (!items.is_empty()).then(|| {
        view! {
            <h3>"Unresolved"</h3>
            <ul class="unresolved">
                {items.into_iter().map(|u| view! {
                    <li>{format!("{}: “{}” — {}", u.file.as_str(), u.entry, u.reason)}</li>
                }).collect_view()}
            </ul>
        }
    })
}

#[component]
fn AuditRecordView(record: AuditRecord, agent: String, undoable: bool) -> impl IntoView {
    let id = record.id;
    let state = match (&record.undone_at, &record.undone_by) {
        (Some(at), Some(by)) => format!(" · undone by {by} on {}", when(at)),
        _ => String::new(),
    };
    view! {
        <article class="memory-audit" id=format!("memory-audit-{id}")>
            <h3>{format!("Memory audit #{id}")}</h3>
            <p class="meta">
                {format!(
                    "{} · {} · by {} · after: MEMORY.md {}%, USER.md {}%{state}",
                    when(&record.audit.at), record.audit.trigger, record.audit.by, record.audit.memory_percent, record.audit.user_percent
                )}
            </p>
            <ul class="audit-actions">
                {record.audit.actions.iter().map(|a| view! {
                    <li>{describe(&a.action)} <span class="meta">{format!(" — {}", a.outcome)}</span></li>
                }).collect_view()}
            </ul>
            {undoable.then(|| view! {
                <form method="post" action=UndoMemoryAudit::url() class="inline">
                    <input type="hidden" name="id" value=id.to_string()/>
                    <input type="hidden" name="agent" value=agent.clone()/>
                    <button type="submit">"Undo audit"</button>
                </form>
            })}
        </article>
    }
}

#[component]
pub fn MemoryAuditPanel(
    state: AuditState,
    agent: String,
    may_run: bool,
    preview: Option<AuditReport>,
) -> impl IntoView {
    let p = &state.params;
    let usage = format!(
        "MEMORY.md: {}% of {} characters ({}) · USER.md: {}% of {} characters ({}) · an audit starts at once past {}%",
        state.memory_percent,
        p.max_memory_chars,
        state.memory_chars,
        state.user_percent,
        p.max_user_chars,
        state.user_chars,
        p.memory_threshold
    );
    let last = match &state.last_audit {
        Some(at) => format!("Last audit: {}", when(at)),
        None => "Last audit: never".to_string(),
    };
    let undoable = state.undoable;
    view! {
        <section id="memory-audit">
            <h2>"Memory audit"</h2>
            <p class="audit-usage">{usage}</p>
            <p class="meta">{last}</p>
            {unresolved_list(state.unresolved.clone())}
            {may_run.then(|| view! {
                <form method="post" action=RunMemoryAudit::url() class="inline">
                    <input type="hidden" name="agent" value=agent.clone()/>
                    <input type="hidden" name="mode" value="dry_run"/>
                    <button type="submit">"Dry run"</button>
                </form>
                <form method="post" action=RunMemoryAudit::url() class="inline">
                    <input type="hidden" name="agent" value=agent.clone()/>
                    <input type="hidden" name="mode" value="apply"/>
                    <button type="submit">"Audit now"</button>
                </form>
            })}
            {preview.map(|r| view! {
                <div class="audit-preview">
                    <h3>"Dry run: what an audit would do"</h3>
                    <ul>{r.detail_lines().into_iter().map(|l| view! { <li>{l}</li> }).collect_view()}</ul>
                </div>
            })}
            {state.audits.into_iter().map(|r| {
                let undo = may_run && undoable == Some(r.id);
                view! { <AuditRecordView record=r agent=agent.clone() undoable=undo/> }
            }).collect_view()}
        </section>
    }
}
