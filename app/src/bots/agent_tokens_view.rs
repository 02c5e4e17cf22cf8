//! The Tokens section of a bot's page, shown to its owner and lead: each of the bot's own tokens
//! with when it was made and by whom, when it expires and was last used, and Revoke (a plain form,
//! so it works with JavaScript off).

use super::revoke_agent_token::RevokeAgentToken;
use crate::components::when;
use chrono::{DateTime, Utc};
use engine::persona::bot_tokens::{AgentToken, REVOKED_OWNER_CHANGED};
use leptos::prelude::*;
use leptos::server_fn::ServerFn;

#[component]
pub fn AgentTokens(agent: String, tokens: Vec<AgentToken>, now: DateTime<Utc>) -> impl IntoView {
    view! {
        <section id="tokens">
            <h2>"Tokens"</h2>
            <p class="meta">
                {format!(
                    "The bot's own tokens (engram org token {agent} --as <owner>). Each works until it expires, \
                     and stops when the bot's owner changes."
                )}
            </p>
            {tokens.is_empty().then(|| view! { <p>"No tokens yet."</p> })}
            <ul class="tokens">
                {tokens.into_iter().map(|t| {
                    let state = match (&t.revoked_at, t.revoked_why.as_deref()) {
                        (Some(r), Some(REVOKED_OWNER_CHANGED)) => Some(format!(" · stopped {}: the owner changed", when(r))),
                        (Some(r), _) => Some(format!(" · revoked {}", when(r))),
                        (None, _) if t.expires_at <= now => Some(" · expired".to_string()),
                        (None, _) => None,
                    };
                    let live = state.is_none();
                    view! {
                        <li>
                            <strong>{format!("#{} {}", t.id, t.name)}</strong>
                            {format!(" · made by {} {} · expires {}", t.made_by, when(&t.created_at), when(&t.expires_at))}
                            {t.last_used_at.map(|u| format!(" · last used {}", when(&u)))}
                            {state}
                            {live.then(|| view! {
                                <form method="post" action=RevokeAgentToken::url() class="inline">
                                    <input type="hidden" name="agent" value=agent.clone()/>
                                    <input type="hidden" name="id" value=t.id.to_string()/>
                                    <button type="submit" class="secondary">"Revoke"</button>
                                </form>
                            })}
                        </li>
                    }
                }).collect_view()}
            </ul>
        </section>
    }
}
