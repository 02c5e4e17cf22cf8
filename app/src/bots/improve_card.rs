use super::apply_improvement::ApplyImprovement;
use super::close_improvement::CloseImprovement;
use crate::components::when;
use crate::paths;
use engine::persona::service::ImproveCard;
use leptos::prelude::*;
use leptos::server_fn::ServerFn;

/// A diff as lines, each marked added, removed or context.
#[component]
pub fn DiffBlock(diff: String) -> impl IntoView {
    view! {
        <pre class="diff">
            {diff.lines().map(|l| {
                let class = match l.chars().next() {
                    Some('+') => "add",
                    Some('-') => "del",
                    Some('@') => "hunk",
                    _ => "ctx",
                };
                view! { <span class=class>{l.to_string()}"\n"</span> }
            }).collect_view()}
        </pre>
    }
}

/// One improve card: the change, why, the evidence, and Apply and Close for its owner or lead.
#[component]
pub fn ImproveCardView(card: ImproveCard, back: String) -> impl IntoView {
    let ImproveCard { task, may_settle, file_changed } = card;
    let imp = task.improve.clone().unwrap_or_else(|| engine::persona::backlog::Improvement {
        agent: String::new(),
        target_path: String::new(),
        diff: String::new(),
        rationale: String::new(),
        evidence: Vec::new(),
        base_text: String::new(),
        memory_id: None,
    });
    let id = task.id;
    let agent_href = paths::org_agent(&imp.agent);
    let state = match task.status.as_str() {
        "open" => "open".to_string(),
        "applied" => "applied".to_string(),
        other => match &task.closed_reason {
            Some(r) => format!("{other}: {r}"),
            None => other.to_string(),
        },
    };
    view! {
        <article class="improve" id=format!("improve-{id}")>
            <h3>{format!("Improve card #{id}: {}", task.title)}</h3>
            <p class="meta">
                "Proposed by " <a href=agent_href.clone()>{imp.agent.clone()}</a>
                {format!(" on {} · changes {} · {}", when(&task.created_at), imp.target_path, state)}
            </p>
            <p class="rationale">{imp.rationale.clone()}</p>
            <p class="meta">
                "Evidence: "
                {imp.evidence.iter().map(|e| view! {
                    <a href=format!("{agent_href}#episode-{e}")>{format!("episode {e}")}</a>" "
                }).collect_view()}
            </p>
            <DiffBlock diff=imp.diff.clone()/>
            {(file_changed && task.status == "open").then(|| view! {
                <p class="notice warn">{format!("{} has changed since this proposal was made; Apply will be refused.", imp.target_path)}</p>
            })}
            {may_settle.then(|| view! {
                <div class="actions">
                    <form method="post" action=ApplyImprovement::url() class="inline">
                        <input type="hidden" name="id" value=id.to_string()/>
                        <input type="hidden" name="back" value=back.clone()/>
                        <button type="submit">"Apply"</button>
                    </form>
                    <form method="post" action=CloseImprovement::url() class="inline">
                        <input type="hidden" name="id" value=id.to_string()/>
                        <input type="hidden" name="back" value=back.clone()/>
                        <label>"Reason " <input type="text" name="reason" required maxlength="300"/></label>
                        <button type="submit">"Close"</button>
                    </form>
                </div>
            })}
        </article>
    }
}
