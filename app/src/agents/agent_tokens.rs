//! The "Agent tokens" section of a company agent's page, for its owner and admins only: the
//! tokens an organisation's own outside agents hold to use this agent acting for nobody, each
//! named after where it is used, when it was made and last used, and whether it is revoked; a
//! form to make one (its secret shown once) and a button to revoke each. Every form posts and
//! redirects, so it works without JavaScript.

use super::load_agent_page::AgentTokensShown;
use super::make_company_agent_token::MakeCompanyAgentToken;
use super::revoke_company_agent_token::RevokeCompanyAgentToken;
use leptos::prelude::*;
use leptos::server_fn::ServerFn;

#[component]
pub fn AgentTokensSection(agent: i64, shown: AgentTokensShown) -> impl IntoView {
    let id = agent.to_string();
    let AgentTokensShown { tokens, new_secret, draft, mcp_path } = shown;
    view! {
        <section class="agent-tokens">
            <h2>"Agent tokens"</h2>
            <p class="meta">
                "An agent token lets one of your organisation's own agents (in Claude Code, Cursor, LangGraph, the OpenAI Agents SDK) use this agent's memory and gate, acting for nobody: only its role's company core, only its company-key reads, and whatever it would do waits in its owner's Inbox. It connects to "
                <code>{mcp_path}</code>
                " or calls POST /api/runs/external with the token as a bearer token."
            </p>
            {new_secret.map(|s| view! {
                <p class="notice ok agent-token-secret">
                    "Copy the token now; it is not shown again: " <code class="secret">{s}</code>
                </p>
            })}
            {if tokens.is_empty() {
                view! { <p class="agent-tokens-state">"No agent tokens."</p> }.into_any()
            } else {
                view! {
                    <table class="agent-tokens-list">
                        <thead><tr><th>"Name"</th><th>"Made"</th><th>"Last used"</th><th></th></tr></thead>
                        <tbody>
                            {tokens.into_iter().map(|t| {
                                let id = id.clone();
                                let revoked = t.revoked.is_some();
                                view! {
                                    <tr class:revoked=revoked>
                                        <td>{format!("#{} {}", t.id, t.name)}</td>
                                        <td>{t.made}</td>
                                        <td>{t.last_used.unwrap_or_else(|| "Never".into())}</td>
                                        <td>{match t.revoked {
                                            Some(when) => view! { <span class="meta">{format!("Revoked {when}")}</span> }.into_any(),
                                            None => view! {
                                                <form method="post" action=RevokeCompanyAgentToken::url() class="inline">
                                                    <input type="hidden" name="agent" value=id/>
                                                    <input type="hidden" name="token" value=t.id.to_string()/>
                                                    <button type="submit">{format!("Revoke #{}", t.id)}</button>
                                                </form>
                                            }.into_any(),
                                        }}</td>
                                    </tr>
                                }
                            }).collect_view()}
                        </tbody>
                    </table>
                }.into_any()
            }}
            <form method="post" action=MakeCompanyAgentToken::url() class="agent-token-form">
                <input type="hidden" name="agent" value=id.clone()/>
                <label for="agent-token-name">"Where it is used"</label>
                <input id="agent-token-name" type="text" name="name" value=draft.unwrap_or_default()
                    placeholder="LangGraph on the support server"/>
                <button type="submit">"Make agent token"</button>
            </form>
        </section>
    }
}
