use super::load_sign_in::load_sign_in;
use crate::components::Loading;
use leptos::prelude::*;
use leptos_router::hooks::use_query_map;

#[component]
pub fn SignInPage() -> impl IntoView {
    let query = use_query_map();
    let next = Memo::new(move |_| query.read().get("next").unwrap_or_else(|| "/".to_string()));
    let flash = Resource::new(|| (), |_| load_sign_in());
    view! {
        <h1>"Sign in"</h1>
        <Suspense fallback=Loading>
            {move || Suspend::new(async move {
                let flash = flash.await.ok().flatten().unwrap_or_default();
                view! {
                    {(!flash.message.is_empty()).then(|| view! { <p class="notice refused" role="alert">{flash.message.clone()}</p> })}
                    <form method="post" action="/auth/sign-in" class="sign-in">
                        <input type="hidden" name="next" value=next.get()/>
                        <label>"Email " <input type="email" name="email" value=flash.email autocomplete="username" required/></label>
                        <label>"Password " <input type="password" name="password" autocomplete="current-password" required/></label>
                        <button type="submit">"Sign in"</button>
                    </form>
                }
            })}
        </Suspense>
    }
}
