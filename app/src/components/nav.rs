use crate::paths;
use crate::people::take_reset_notice::take_reset_notice;
use engine::org::Person;
use leptos::prelude::*;

/// Who is signed in, or nobody.
#[server(prefix = "/fn", endpoint = "who_am_i")]
pub async fn who_am_i() -> Result<Option<Person>, ServerFnError> {
    use crate::ssr::*;
    let session = session().await?;
    person_in_session(&session, &*auth()?).await.map_err(internal)
}

#[component]
pub fn Nav() -> impl IntoView {
    let me = Resource::new(|| (), |_| who_am_i());
    let reset = Resource::new(|| (), |_| take_reset_notice());
    view! {
        <header class="top">
            <a class="brand" href="/">"Engram"</a>
            <Suspense fallback=|| ()>
                {move || Suspend::new(async move {
                    match me.await {
                        Ok(Some(person)) => {
                            view! {
                                // One line at 1280 px: the company's pages sit under one "Company" menu
                                // and the person's own settings under their name. A `<details>` opens
                                // without JavaScript, so with it off the menu is a plain list of links.
                                <nav>
                                    <a href=paths::ASK>"Ask"</a>
                                    <a href=paths::INBOX>"Inbox"</a>
                                    <a href=paths::AGENTS>"Agents"</a>
                                    <a href=paths::BOTS>"Bots"</a>
                                    <a href=paths::IMPROVE>"Suggested changes"</a>
                                    <a href=paths::MY_MEMORY>"Memory"</a>
                                    <details class="menu company">
                                        <summary>"Company"</summary>
                                        <div class="menu-links">
                                            <a href=paths::ROLES>"Roles and core knowledge"</a>
                                            <a href=paths::TEAMS>"Teams"</a>
                                            {person.is_admin.then(|| view! {
                                                <a href=paths::PEOPLE>"People"</a>
                                                <a href=paths::CONNECTORS>"Connectors"</a>
                                                <a href=paths::EVENTS>"Events"</a>
                                                <a href=paths::MEMORY_SETTINGS>"Memory settings"</a>
                                                <a href=paths::OPERATIONS>"Operations"</a>
                                                <a href=paths::ERASURE>"Erase a third party"</a>
                                            })}
                                        </div>
                                    </details>
                                </nav>
                                <details class="menu who">
                                    <summary class="me">{person.name}</summary>
                                    <div class="menu-links">
                                        <a href=paths::TOKENS>"API tokens"</a>
                                        <a href=paths::PASSWORD>"Password"</a>
                                        <form method="post" action="/auth/sign-out">
                                            <button type="submit" class="link">"Sign out"</button>
                                        </form>
                                    </div>
                                </details>
                            }
                                .into_any()
                        }
                        _ => view! { <a href=paths::SIGN_IN>"Sign in"</a> }.into_any(),
                    }
                })}
            </Suspense>
        </header>
        <Suspense fallback=|| ()>
            {move || Suspend::new(async move {
                reset.await.ok().flatten().map(|sentence| view! {
                    <p class="notice reset-notice" role="status">{sentence}</p>
                })
            })}
        </Suspense>
    }
}
