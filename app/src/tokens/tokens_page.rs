use super::create_token::CreateToken;
use super::load_tokens::{load_tokens, TokensData};
use super::revoke_token::RevokeToken;
use crate::components::{loaded, when, NoticeLine};
use leptos::prelude::*;
use leptos::server_fn::ServerFn;

#[component]
pub fn TokensPage() -> impl IntoView {
    let data = Resource::new(|| (), |_| load_tokens());
    view! {
        <h1>"API tokens"</h1>
        <p class="hint">
            "A token lets a script call /api as you. Memory (cores included) is never served to a token: "
            "it needs you signed in."
        </p>
        {loaded(data, |d| view! { <Tokens data=d/> })}
    }
}

#[component]
fn Tokens(data: TokensData) -> impl IntoView {
    let TokensData { tokens, notice, new_secret } = data;
    view! {
        <NoticeLine notice/>
        {new_secret.map(|s| view! {
            <p class="notice ok">"Copy your new token now; it is not shown again: " <code class="secret">{s}</code></p>
        })}
        <form method="post" action=CreateToken::url() class="inline">
            <label>"Name " <input type="text" name="name" required/></label>
            <button type="submit">"Make a token"</button>
        </form>
        <ul class="tokens">
            {tokens.into_iter().map(|t| view! {
                <li>
                    <strong>{t.name.clone()}</strong>
                    {format!(" · made {}", when(&t.created_at))}
                    {t.last_used_at.map(|u| format!(" · last used {}", when(&u)))}
                    {match t.revoked_at {
                        Some(r) => view! { <span>{format!(" · revoked {}", when(&r))}</span> }.into_any(),
                        None => view! {
                            <form method="post" action=RevokeToken::url() class="inline">
                                <input type="hidden" name="id" value=t.id.to_string()/>
                                <button type="submit" class="secondary">"Revoke"</button>
                            </form>
                        }.into_any(),
                    }}
                </li>
            }).collect_view()}
        </ul>
    }
}
