use super::improve_card::ImproveCardView;
use super::load_improve_cards::{load_improve_cards, ImproveData};
use super::self_edit_view::SelfEditView;
use crate::components::{loaded, NoticeLine};
use crate::paths;
use leptos::prelude::*;

/// Suggested changes: the open improve cards of the bots this person owns or leads, and their
/// self-edits that wait for approval.
#[component]
pub fn ImprovePage() -> impl IntoView {
    let data = Resource::new(|| (), |_| load_improve_cards());
    view! {
        <h1>"Suggested changes"</h1>
        <p class="meta">"Bots propose changes to themselves here; a change is made only when you apply it."</p>
        {loaded(data, |d| view! { <Cards data=d/> })}
    }
}

#[component]
fn Cards(data: ImproveData) -> impl IntoView {
    let ImproveData { cards, self_edits, notice, decline_drafts } = data;
    let empty = cards.is_empty();
    let no_edits = self_edits.is_empty();
    view! {
        <NoticeLine notice/>
        {empty.then(|| view! { <p>"No open improve cards for the bots you own or lead."</p> })}
        {cards.into_iter().map(|c| view! { <ImproveCardView card=c back=paths::IMPROVE.to_string()/> }).collect_view()}
        <section id="waiting-self-edits">
            <h2>"Self-edits waiting for you"</h2>
            <p class="meta">"A bot's edit to its own memory that its policy sends to a person; nothing changes until you approve it."</p>
            {no_edits.then(|| view! { <p>"No self-edits wait for you."</p> })}
            {self_edits.into_iter().map(|e| {
                let draft = decline_drafts.iter().find(|(id, _)| *id == e.id).map(|(_, t)| t.clone());
                view! { <SelfEditView edit=e back=paths::IMPROVE.to_string() may_settle=true undoable=false draft=draft.unwrap_or_default()/> }
            }).collect_view()}
        </section>
    }
}
