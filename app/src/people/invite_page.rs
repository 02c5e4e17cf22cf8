use super::accept_invite::AcceptInvite;
use super::load_invite::{load_invite, InviteData};
use crate::components::{loaded, NoticeLine};
use crate::paths::SIGN_IN;
use leptos::prelude::*;
use leptos::server_fn::ServerFn;
use leptos_router::hooks::use_params_map;

/// `/invite/<secret>`: the person an admin added (or whose password was reset) sets a password.
/// Reachable signed out.
#[component]
pub fn InvitePage() -> impl IntoView {
    let params = use_params_map();
    let secret = Memo::new(move |_| params.read().get("secret").unwrap_or_default());
    let data = Resource::new(move || secret.get(), load_invite);
    view! {
        <h1>"Set your password"</h1>
        {loaded(data, move |d| view! { <Invite data=d secret=secret.get_untracked()/> })}
    }
}

#[component]
fn Invite(data: InviteData, secret: String) -> impl IntoView {
    let InviteData { name, email, expires, closed, notice } = data;
    match closed {
        Some(why) => view! {
            <p class="notice refused" role="alert">{why}</p>
            <p><a href=SIGN_IN>"Sign in"</a></p>
        }
        .into_any(),
        None => view! {
            <NoticeLine notice/>
            <p>{format!("This invite link is for {name} ({email}). It works once, until {expires}.")}</p>
            <form method="post" action=AcceptInvite::url() class="set-password">
                <input type="hidden" name="secret" value=secret/>
                <input type="email" name="email" value=email autocomplete="username" hidden/>
                <label>"New password " <input type="password" name="password" autocomplete="new-password" required minlength="8"/></label>
                <label>"Repeat the new password " <input type="password" name="repeat" autocomplete="new-password" required minlength="8"/></label>
                <button type="submit">"Set password and sign in"</button>
            </form>
            <p class="hint">"At least 8 characters, and not one of the most common passwords."</p>
        }
        .into_any(),
    }
}
