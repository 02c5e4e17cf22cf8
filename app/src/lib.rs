//! The pages and the thin server functions behind them.

// Release builds keep full view types (debug builds erase them), which nest deeper than the default limit.
#![recursion_limit = "256"]

pub mod agents;
pub mod ask;
pub mod auth;
pub mod bots;
pub mod checks;
pub mod components;
pub mod connectors;
pub mod cores;
pub mod erasure;
pub mod events;
pub mod flash;
#[cfg(feature = "ssr")]
pub mod flash_cookie;
pub mod hydration;
pub mod inbox;
pub mod memory;
pub mod memory_settings;
pub mod operations;
pub mod paths;
pub mod people;
pub mod people_import;
pub mod setup;
#[cfg(feature = "ssr")]
pub mod ssr;
pub mod teams;
pub mod tokens;

use leptos::prelude::*;
use leptos_meta::{provide_meta_context, HashedStylesheet, MetaTags, Title};
use leptos_router::{
    components::{Route, Router, Routes},
    path, SsrMode,
};

pub fn shell(options: LeptosOptions) -> impl IntoView {
    view! {
        <!DOCTYPE html>
        <html lang="en">
            <head>
                <meta charset="utf-8"/>
                <meta name="viewport" content="width=device-width, initial-scale=1"/>
                <link rel="icon" type="image/svg+xml" href="/favicon.svg"/>
                // Named by its hash when cargo-leptos hashes the site's files, so it can be cached for good.
                <HashedStylesheet options=options.clone() id="leptos"/>
                // Leptos's hydration scripts without the wasm preload: see `hydration`.
                <hydration::PageScripts options/>
                <MetaTags/>
            </head>
            <body>
                <App/>
            </body>
        </html>
    }
}

#[component]
pub fn App() -> impl IntoView {
    provide_meta_context();
    // Every page renders whole on the server, so it reads and posts the same without JavaScript.
    let mode = SsrMode::Async;
    view! {
        <Title text="Engram"/>
        <Router>
            <components::nav::Nav/>
            <main>
                <Routes fallback=|| view! { <h1>"Not found"</h1> <p>"There is no page here."</p> }>
                    <Route path=path!("/") view=HomePage ssr=mode.clone()/>
                    <Route path=path!("/signin") view=auth::sign_in_page::SignInPage ssr=mode.clone()/>
                    <Route path=path!("/signout") view=auth::sign_out_page::SignOutPage ssr=mode.clone()/>
                    <Route path=path!("/setup") view=setup::setup_page::SetupPage ssr=mode.clone()/>
                    <Route path=path!("/company/roles") view=cores::roles_page::RolesPage ssr=mode.clone()/>
                    <Route path=path!("/company/roles/:slug") view=cores::role_page::RolePage ssr=mode.clone()/>
                    <Route path=path!("/company/teams") view=teams::teams_page::TeamsPage ssr=mode.clone()/>
                    <Route path=path!("/company/teams/:id") view=teams::team_page::TeamPage ssr=mode.clone()/>
                    <Route path=path!("/company/people") view=people::people_page::PeoplePage ssr=mode.clone()/>
                    <Route path=path!("/company/people/import") view=people_import::people_import_page::PeopleImportPage ssr=mode.clone()/>
                    <Route path=path!("/company/agents") view=agents::agents_page::AgentsPage ssr=mode.clone()/>
                    <Route path=path!("/company/agents/:id") view=agents::company_agent_page::AgentPage ssr=mode.clone()/>
                    <Route path=path!("/cores/:scope/edit") view=cores::core_editor_page::CoreEditorPage ssr=mode.clone()/>
                    <Route path=path!("/cores/:scope/versions/:version") view=cores::core_version_page::CoreVersionPage ssr=mode.clone()/>
                    <Route path=path!("/profile/tokens") view=tokens::tokens_page::TokensPage ssr=mode.clone()/>
                    <Route path=path!("/profile/password") view=people::password_page::PasswordPage ssr=mode.clone()/>
                    <Route path=path!("/invite/:secret") view=people::invite_page::InvitePage ssr=mode.clone()/>
                    <Route path=path!("/company/connectors") view=connectors::connectors_page::ConnectorsPage ssr=mode.clone()/>
                    <Route path=path!("/company/connectors/:id") view=connectors::connector_page::ConnectorPage ssr=mode.clone()/>
                    <Route path=path!("/profile/memory") view=memory::my_memory_page::MyMemoryPage ssr=mode.clone()/>
                    <Route path=path!("/org/agents") view=bots::roster_page::RosterPage ssr=mode.clone()/>
                    <Route path=path!("/org/agents/:name") view=bots::bot_page::AgentPage ssr=mode.clone()/>
                    <Route path=path!("/org/improve") view=bots::improve_page::ImprovePage ssr=mode.clone()/>
                    <Route path=path!("/ask") view=ask::ask_page::AskPage ssr=mode.clone()/>
                    <Route path=path!("/threads/:id") view=ask::thread_page::ThreadPage ssr=mode.clone()/>
                    <Route path=path!("/company/events") view=events::events_page::EventsPage ssr=mode.clone()/>
                    <Route path=path!("/company/memory") view=memory_settings::memory_settings_page::MemorySettingsPage ssr=mode.clone()/>
                    <Route path=path!("/company/erasure") view=erasure::erasure_page::ErasurePage ssr=mode.clone()/>
                    <Route path=path!("/company/operations") view=operations::operations_page::OperationsPage ssr=mode.clone()/>
                    <Route path=path!("/inbox") view=inbox::inbox_page::InboxPage ssr=mode.clone()/>
                </Routes>
            </main>
        </Router>
    }
}

#[component]
fn HomePage() -> impl IntoView {
    view! {
        <h1>"Engram"</h1>
        <p>"The organisation's memory for its agents: what each role always knows, kept versioned and bounded."</p>
        <ul>
            <li><a href=paths::ASK>"Ask an agent"</a></li>
            <li><a href=paths::ROLES>"Company → Roles and core knowledge"</a></li>
            <li><a href=paths::TEAMS>"Teams"</a></li>
            <li><a href=paths::AGENTS>"Agents"</a></li>
            <li><a href=paths::TOKENS>"API tokens"</a></li>
        </ul>
    }
}
