use leptos::prelude::*;

/// Sign-out as a page of its own, for anyone who lands here; the header's button posts the same form.
#[component]
pub fn SignOutPage() -> impl IntoView {
    view! {
        <h1>"Sign out"</h1>
        <p>"Signing out ends your session on the server, in every tab."</p>
        <form method="post" action="/auth/sign-out">
            <button type="submit">"Sign out"</button>
        </form>
    }
}
