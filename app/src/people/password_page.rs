use super::change_password::ChangePassword;
use crate::components::{loaded, NoticeLine};
use crate::flash::Notice;
use leptos::prelude::*;
use leptos::server_fn::ServerFn;

#[server(prefix = "/fn", endpoint = "load_password")]
pub async fn load_password() -> Result<Option<Notice>, ServerFnError> {
    use crate::{flash::notice_key, paths::PASSWORD, ssr::*};
    signed_in().await?;
    take_flash(&notice_key(PASSWORD)).await
}

/// Profile → Password.
#[component]
pub fn PasswordPage() -> impl IntoView {
    let data = Resource::new(|| (), |_| load_password());
    view! {
        <h1>"Password"</h1>
        {loaded(data, |notice| view! {
            <NoticeLine notice/>
            <form method="post" action=ChangePassword::url() class="change-password">
                <label>"Current password " <input type="password" name="current" autocomplete="current-password" required/></label>
                <label>"New password " <input type="password" name="password" autocomplete="new-password" required minlength="8"/></label>
                <label>"Repeat the new password " <input type="password" name="repeat" autocomplete="new-password" required minlength="8"/></label>
                <button type="submit">"Change password"</button>
            </form>
            <p class="hint">"At least 8 characters, and not one of the most common passwords. Changing it signs you out everywhere else."</p>
        })}
    }
}
