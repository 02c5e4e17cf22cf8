//! Small pieces every page uses.

pub mod nav;
pub mod person_picker;

pub use person_picker::PersonPicker;

use crate::flash::Notice;
use chrono::{DateTime, Utc};
use leptos::prelude::*;

/// The sentence inside a server function's error, without the framework's prefix.
pub fn error_message(e: &ServerFnError) -> String {
    match e {
        ServerFnError::ServerError(m) => m.clone(),
        other => other.to_string(),
    }
}

pub fn when(t: &DateTime<Utc>) -> String {
    t.format("%Y-%m-%d %H:%M UTC").to_string()
}

#[component]
pub fn ErrorLine(error: ServerFnError) -> impl IntoView {
    let message = error_message(&error);
    let needs_sign_in = message == "Sign in to continue";
    view! {
        <p class="notice refused" role="alert">
            {message}
            {needs_sign_in.then(|| view! { " " <a href="/signin">"Sign in"</a> })}
        </p>
    }
}

#[component]
pub fn NoticeLine(notice: Option<Notice>) -> impl IntoView {
    notice.map(|n| {
        let class = if n.ok { "notice ok" } else { "notice refused" };
        let role = if n.ok { "status" } else { "alert" };
        view! { <p class=class role=role>{n.text}</p> }
    })
}

#[component]
pub fn Loading() -> impl IntoView {
    view! { <p class="loading">"Loading…"</p> }
}

/// Waits for a page's data, then renders it, or the refusal in plain words.
pub fn loaded<T, V>(
    data: Resource<Result<T, ServerFnError>>,
    render: impl Fn(T) -> V + Clone + Send + Sync + 'static,
) -> impl IntoView
where
    T: Clone + Send + Sync + serde::Serialize + serde::de::DeserializeOwned + 'static,
    V: IntoView + 'static,
{
    view! {
        <Suspense fallback=Loading>
            {move || {
                let render = render.clone();
                Suspend::new(async move {
                    match data.await {
                        Ok(d) => render(d).into_any(),
                        Err(error) => view! { <ErrorLine error/> }.into_any(),
                    }
                })
            }}
        </Suspense>
    }
}
