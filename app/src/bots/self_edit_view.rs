use super::decide_self_edit::DecideSelfEdit;
use super::improve_card::DiffBlock;
use super::undo_self_edit::UndoSelfEdit;
use crate::components::when;
use crate::paths;
use engine::persona::self_edit_store::{EditState, SelfEdit};
use leptos::prelude::*;
use leptos::server_fn::ServerFn;

/// What an edit changed, as a diff: the text before removed, the text after added.
fn change_diff(e: &SelfEdit) -> String {
    let mut out = String::new();
    for l in e.before.iter().flat_map(|b| b.lines()) {
        out.push_str(&format!("-{l}\n"));
    }
    for l in e.after.iter().flat_map(|a| a.lines()) {
        out.push_str(&format!("+{l}\n"));
    }
    out
}

fn state_line(e: &SelfEdit) -> String {
    match e.state {
        EditState::Applied => match (&e.decided_by, e.undo_until) {
            (Some(by), Some(u)) => format!("applied, approved by {by}; undoable until {}", when(&u)),
            (None, Some(u)) => format!("applied; undoable until {}", when(&u)),
            _ => "applied".into(),
        },
        EditState::Waiting => {
            format!("waiting for its owner or lead ({}, requireApproval)", e.approval.clone().unwrap_or_default())
        }
        EditState::Refused => format!("refused: {}", e.refusal.clone().unwrap_or_default()),
        EditState::Declined => format!(
            "declined by {}{}",
            e.decided_by.clone().unwrap_or_default(),
            e.decided_why.as_ref().map(|w| format!(": {w}")).unwrap_or_default()
        ),
        EditState::Undone => format!(
            "undone by {} on {}",
            e.undone_by.clone().unwrap_or_default(),
            e.undone_at.as_ref().map(when).unwrap_or_default()
        ),
    }
}

/// One self-edit: what the bot meant to do (its reason) beside what changed (the diff), with
/// Undo or Approve and Decline for those who may.
#[component]
pub fn SelfEditView(
    edit: SelfEdit,
    back: String,
    may_settle: bool,
    undoable: bool,
    /// A refused Decline's reason, typed again into its form.
    #[prop(optional)]
    draft: Option<String>,
) -> impl IntoView {
    let id = edit.id;
    let diff = change_diff(&edit);
    let waiting = edit.state == EditState::Waiting;
    view! {
        <article class="self-edit" id=format!("self-edit-{id}")>
            <h3>{format!("Self-edit #{id}: {} {}", edit.action, edit.target)}</h3>
            <p class="meta">
                "By " <a href=paths::org_agent(&edit.agent)>{edit.agent.clone()}</a>
                {format!(" on {} · {}", when(&edit.created_at), state_line(&edit))}
            </p>
            <div class="self-edit-sides">
                <div>
                    <h4>"What it meant to do"</h4>
                    <p class="reason">{edit.reason.clone()}</p>
                </div>
                <div>
                    <h4>"What changed"</h4>
                    {if diff.is_empty() {
                        view! { <p class="meta">"Nothing."</p> }.into_any()
                    } else {
                        view! { <DiffBlock diff/> }.into_any()
                    }}
                </div>
            </div>
            {(may_settle && undoable).then(|| view! {
                <form method="post" action=UndoSelfEdit::url() class="inline">
                    <input type="hidden" name="id" value=id.to_string()/>
                    <input type="hidden" name="back" value=back.clone()/>
                    <button type="submit">"Undo"</button>
                </form>
            })}
            {(may_settle && waiting).then(|| view! {
                <div class="actions">
                    <form method="post" action=DecideSelfEdit::url() class="inline">
                        <input type="hidden" name="id" value=id.to_string()/>
                        <input type="hidden" name="back" value=back.clone()/>
                        <input type="hidden" name="decision" value="approve"/>
                        <button type="submit">"Approve"</button>
                    </form>
                    <form method="post" action=DecideSelfEdit::url() class="inline">
                        <input type="hidden" name="id" value=id.to_string()/>
                        <input type="hidden" name="back" value=back.clone()/>
                        <input type="hidden" name="decision" value="decline"/>
                        <label>"Reason " <input type="text" name="reason" maxlength="300" value=draft.clone().unwrap_or_default()/></label>
                        <button type="submit">"Decline"</button>
                    </form>
                </div>
            })}
        </article>
    }
}
