use super::improve_card::ImproveCardView;
use super::load_improve_cards::{load_improve_cards, ImproveData};
use crate::components::{loaded, NoticeLine};
use crate::paths;
use leptos::prelude::*;

/// Suggested changes: the open improve cards of the bots this person owns or leads.
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
    let ImproveData { cards, notice } = data;
    let empty = cards.is_empty();
    view! {
        <NoticeLine notice/>
        {empty.then(|| view! { <p>"No open improve cards for the bots you own or lead."</p> })}
        {cards.into_iter().map(|c| view! { <ImproveCardView card=c back=paths::IMPROVE.to_string()/> }).collect_view()}
    }
}
