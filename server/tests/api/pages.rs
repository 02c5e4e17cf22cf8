//! The forms the pages post, exactly as a browser without JavaScript sends them.

use crate::agent_model_server::{AgentModelServer, AgentReply};
use crate::helpers::*;
use reqwest::StatusCode;

const SALES: &str = "company:role:sales";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_seed_demo_steps_work_as_plain_form_posts() {
    let app = spawn_app().await;
    let ada = app.sign_in("ada").await;
    let (status, html) = app.page(&ada, "/company/roles").await;
    assert_eq!(status, StatusCode::OK);
    let html = plain(&html);
    assert!(html.contains("Sales</a> (role:sales): no company core yet (limit 2,000 tokens)"), "{html}");
    let (_, html) = app.page(&ada, "/company/roles/sales").await;
    assert!(html.contains(">Write it</a>"));
    let r = app
        .form_post(
            &ada,
            "/fn/save_core",
            &[
                ("scope", SALES),
                ("based_on", "0"),
                ("text", "Stages: New, Qualified, Proposal, Won, Lost."),
                ("note", ""),
            ],
        )
        .await;
    assert_eq!(r.status(), StatusCode::FOUND);
    assert_eq!(r.headers()["location"], "/company/roles/sales");
    let (_, html) = app.page(&ada, "/company/roles/sales").await;
    let html = plain(&html);
    assert!(html.contains("Saved version 1"));
    assert!(html.contains("11 of 2,000 tokens"));
    // The note is shown once.
    let (_, again) = app.page(&ada, "/company/roles/sales").await;
    assert!(!again.contains("Saved version 1"));
    let (_, roles) = app.page(&ada, "/company/roles").await;
    assert!(plain(&roles).contains("(role:sales): company core version 1, 11 of 2,000 tokens"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_save_keeps_the_text_in_the_editor() {
    let app = spawn_app().await;
    let ada = app.sign_in("ada").await;
    let long = format!("Keep this typed text. {}", "y".repeat(9_600));
    let r = app
        .form_post(&ada, "/fn/save_core", &[("scope", SALES), ("based_on", "0"), ("text", &long), ("note", "my note")])
        .await;
    assert_eq!(r.status(), StatusCode::FOUND);
    assert_eq!(r.headers()["location"], "/cores/company:role:sales/edit");
    let (_, html) = app.page(&ada, "/cores/company:role:sales/edit").await;
    assert!(html.contains("This core is over its limit: 2,406 of 2,000 tokens"), "{}", &html[..2000.min(html.len())]);
    assert!(html.contains(&long), "the typed text is in the textarea");
    assert!(html.contains("value=\"my note\""));
    // Nothing was saved.
    let (_, view) = app.get_json(&ada, "/api/memory/cores/company:role:sales").await;
    assert!(view["current"].is_null());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_second_editor_is_refused_and_reload_keeps_its_text() {
    let app = spawn_app().await;
    let first = app.sign_in("ada").await;
    let second = app.sign_in("ada").await;
    app.save_core(&first, SALES, 0, "Version one.").await;
    // Both open version 1; the first saves.
    let ok = app
        .form_post(
            &first,
            "/fn/save_core",
            &[("scope", SALES), ("based_on", "1"), ("text", "First wins."), ("note", "")],
        )
        .await;
    assert_eq!(ok.headers()["location"], "/company/roles/sales");
    let mine = "Second editor's careful words.";
    let refused = app
        .form_post(&second, "/fn/save_core", &[("scope", SALES), ("based_on", "1"), ("text", mine), ("note", "")])
        .await;
    assert_eq!(refused.headers()["location"], "/cores/company:role:sales/edit");
    let (_, html) = app.page(&second, "/cores/company:role:sales/edit").await;
    assert!(html.contains("This core changed since you opened it: reload and try again"));
    assert!(html.contains(mine));
    assert!(html.contains(">Reload</button>"));
    // Reload posts the same form to reload_core.
    let r = app
        .form_post(&second, "/fn/reload_core", &[("scope", SALES), ("based_on", "1"), ("text", mine), ("note", "")])
        .await;
    assert_eq!(r.headers()["location"], "/cores/company:role:sales/edit");
    let (_, html) = app.page(&second, "/cores/company:role:sales/edit").await;
    let html = plain(&html);
    assert!(html.contains("Reloaded version 2"));
    assert!(html.contains("name=\"based_on\" value=\"2\""));
    assert!(html.contains(">First wins.</textarea>"), "the newer version is in the editor");
    assert!(html.contains(&format!("readonly rows=\"10\">{mine}</textarea>")) || html.contains(mine));
    assert!(html.contains("Your text"));
    // Saving from the reloaded editor now works.
    let r = app
        .form_post(&second, "/fn/save_core", &[("scope", SALES), ("based_on", "2"), ("text", mine), ("note", "")])
        .await;
    assert_eq!(r.headers()["location"], "/company/roles/sales");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn alice_is_refused_on_the_sales_company_core_and_sees_no_controls() {
    let app = spawn_app().await;
    let alice = app.sign_in("alice").await;
    let (_, html) = app.page(&alice, "/company/roles/sales").await;
    assert!(!html.contains(">Write it</a>"));
    assert!(!html.contains("Company core limit"));
    let r = app
        .form_post(&alice, "/fn/save_core", &[("scope", SALES), ("based_on", "0"), ("text", "mine"), ("note", "")])
        .await;
    assert_eq!(r.status(), StatusCode::FOUND);
    let (_, html) = app.page(&alice, "/cores/company:role:sales/edit").await;
    assert!(html.contains("Only an admin can change the company core for Sales"));
    assert!(html.contains(">mine</textarea>"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn restore_and_limit_forms_work_without_javascript() {
    let app = spawn_app().await;
    let ada = app.sign_in("ada").await;
    app.save_core(&ada, SALES, 0, "Old stages.").await;
    app.save_core(&ada, SALES, 1, "New stages.").await;
    let (_, html) = app.page(&ada, "/cores/company:role:sales/versions/1").await;
    let html = plain(&html);
    assert!(html.contains("- Old stages."), "diff shows the removed line");
    assert!(html.contains("+ New stages."));
    assert!(html.contains(">Restore</button>"));
    let r = app.form_post(&ada, "/fn/restore_core", &[("scope", SALES), ("from", "1"), ("based_on", "2")]).await;
    assert_eq!(r.headers()["location"], "/company/roles/sales");
    let (_, html) = app.page(&ada, "/company/roles/sales").await;
    let html = plain(&html);
    assert!(html.contains("Restored version 1 as version 3"));
    assert!(html.contains("Version 3"));
    assert!(html.contains("Restored version 1"));

    let r = app.form_post(&ada, "/fn/set_core_limit", &[("role", "sales"), ("limit", "6001")]).await;
    assert_eq!(r.headers()["location"], "/company/roles/sales");
    let (_, html) = app.page(&ada, "/company/roles/sales").await;
    assert!(html.contains("A company core limit can be at most 6,000 tokens"));
    app.form_post(&ada, "/fn/set_core_limit", &[("role", "sales"), ("limit", "3000")]).await;
    let (_, html) = app.page(&ada, "/company/roles/sales").await;
    let html = plain(&html);
    assert!(html.contains("The company core limit is now 3,000 tokens"));
    assert!(html.contains("3 of 3,000 tokens"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn suggested_changes_show_why_and_what_they_rest_on() {
    let app = spawn_app().await;
    suggest_demo_lines(&app).await;
    let ada = app.sign_in("ada").await;
    let (_, html) = app.page(&ada, "/company/roles/support").await;
    let html = plain(&html);
    assert!(html.contains("Suggested changes"));
    assert!(html.contains("Refunds over $500 need the team lead"));
    assert!(html.contains("Rests on: </strong>Decisions by Sue Park"));
    assert!(html.contains("From the nightly job"));
    let id = html.split("name=\"id\" value=\"").nth(1).unwrap().split('"').next().unwrap().to_string();
    let r = app.form_post(&ada, "/fn/accept_suggestion", &[("id", &id), ("scope", "company:role:support")]).await;
    assert_eq!(r.headers()["location"], "/company/roles/support");
    let (_, html) = app.page(&ada, "/company/roles/support").await;
    assert!(plain(&html).contains("Accepted the suggestion: saved version 1"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_team_with_no_role_says_its_core_loads_in_no_run() {
    let app = spawn_app().await;
    let ada = app.sign_in("ada").await;
    let (_, html) = app.page(&ada, "/company/roles").await;
    assert!(html.contains("This team has no role yet, so its core loads in no run; ask an admin to set one"));
}

/// Building a server renders the app once to list its routes, with resource loading switched off
/// process-wide while it does. Pages another server renders meanwhile must still answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_answer_while_other_servers_start_in_the_same_process() {
    let app = std::sync::Arc::new(spawn_app().await);
    let ada = app.sign_in("ada").await;
    // Builds only (no seeding, not served), so that many overlap the pages read below.
    let starting = tokio::spawn(async {
        let dir = tempfile::tempdir().expect("temp dir");
        for i in 0..30 {
            let mut settings = server::settings::Settings::from_env();
            settings.database_url = format!("sqlite://{}/engram-{i}.db", dir.path().display());
            settings.run_jobs = false;
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind port 0");
            server::startup::Application::build(settings, listener).await.expect("build");
        }
    });
    let readers: Vec<_> = (0..3)
        .map(|_| {
            let (app, ada, starting) = (app.clone(), ada.clone(), starting.abort_handle());
            tokio::spawn(async move {
                let mut answered = 0;
                while !starting.is_finished() || answered < 10 {
                    let r = ada
                        .get(app.url("/company/roles"))
                        .timeout(std::time::Duration::from_secs(10))
                        .send()
                        .await
                        .expect("the page answers while another server starts");
                    assert_eq!(r.status(), StatusCode::OK);
                    assert!(plain(&r.text().await.unwrap()).contains("Sales</a> (role:sales)"));
                    answered += 1;
                }
            })
        })
        .collect();
    for r in readers {
        r.await.unwrap();
    }
    starting.await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_core_page_shows_the_latest_twenty_versions_and_links_to_older_ones() {
    let app = spawn_app().await;
    let ada = app.sign_in("ada").await;
    for v in 1..=21 {
        assert_eq!(app.save_core(&ada, SALES, v - 1, &format!("text {v}")).await.status(), StatusCode::CREATED);
    }
    let version_links =
        |html: &str| -> Vec<u32> { (1..=21).filter(|v| html.contains(&format!(">Version {v}</a>"))).collect() };
    let (_, html) = app.page(&ada, "/company/roles/sales").await;
    assert_eq!(version_links(&html), (2..=21).collect::<Vec<_>>(), "the latest 20");
    // A plain link, so it works with JavaScript off.
    assert!(html.contains(r#"<a href="/company/roles/sales?before=2">Older versions</a>"#), "{html}");
    assert!(html.contains("<pre class=\"core-text\">text 21</pre>"), "the current text as before");

    let (status, html) = app.page(&ada, "/company/roles/sales?before=2").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(version_links(&html), vec![1]);
    assert!(!html.contains("Older versions"), "nothing is older than version 1");
    assert!(html.contains(r#"<a href="/company/roles/sales">Latest versions</a>"#), "{html}");
    assert!(html.contains("<pre class=\"core-text\">text 21</pre>"), "the current text stays on top");

    let (_, html) = app.page(&ada, "/company/roles/sales?before=abc").await;
    assert!(html.contains("Older versions are asked for with a version number from 1, such as ?before=21"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_admin_sets_a_manager_in_the_people_drawer_without_javascript() {
    let app = spawn_app().await;
    let ada = app.sign_in("ada").await;
    let dir = app.org.directory().await.unwrap();
    let alice = dir.people.iter().find(|p| p.name == "Alice Chen").unwrap().id;
    let ada_id = dir.people.iter().find(|p| p.email.starts_with("ada@")).unwrap().id;
    let ada_email = dir.people.iter().find(|p| p.id == ada_id).unwrap().email.clone();
    let alice_email = dir.people.iter().find(|p| p.id == alice).unwrap().email.clone();
    let drawer = format!("/company/people?person={alice}");
    let (_, html) = app.page(&ada, &drawer).await;
    assert!(html.contains("name=\"manager\""), "the drawer has a Manager field");
    assert!(!html.contains("<select name=\"manager\""), "a search field, never a list of everyone");
    assert!(plain(&html).contains("No manager"));

    // Without JavaScript the field is typed: an email, as the list offers it with JavaScript on.
    let r = app.form_post(&ada, "/fn/set_manager", &[("person", &alice.to_string()), ("manager", &ada_email)]).await;
    assert_eq!(r.status(), StatusCode::FOUND);
    assert_eq!(r.headers()["location"], drawer.as_str());
    let (_, html) = app.page(&ada, &drawer).await;
    assert!(plain(&html).contains("Saved their manager"));
    assert!(html.contains(&format!("name=\"manager\" value=\"{ada_email}\"")), "the field shows her manager");
    assert!(plain(&html).contains("Manager: Ada Lovelace"));
    assert_eq!(app.store.person(alice).await.unwrap().unwrap().manager, Some(ada_id));

    // Nobody is their own manager; the refusal says so and changes nothing.
    app.form_post(&ada, "/fn/set_manager", &[("person", &alice.to_string()), ("manager", &alice_email)]).await;
    let (_, html) = app.page(&ada, &drawer).await;
    assert!(plain(&html).contains("A person cannot be their own manager"));
    assert_eq!(app.store.person(alice).await.unwrap().unwrap().manager, Some(ada_id));

    // A name nobody has is refused in words, and the field keeps what was typed.
    app.form_post(&ada, "/fn/set_manager", &[("person", &alice.to_string()), ("manager", "Ada Lovelac")]).await;
    let (_, html) = app.page(&ada, &drawer).await;
    assert!(plain(&html).contains("Nobody here is called Ada Lovelac"), "{html}");
    assert!(html.contains("name=\"manager\" value=\"Ada Lovelac\""), "what was typed stays");
    assert_eq!(app.store.person(alice).await.unwrap().unwrap().manager, Some(ada_id));

    // A whole name, in any case, finds her.
    app.form_post(&ada, "/fn/set_manager", &[("person", &alice.to_string()), ("manager", "sam rao")]).await;
    let sam = dir.people.iter().find(|p| p.name == "Sam Rao").unwrap().id;
    assert_eq!(app.store.person(alice).await.unwrap().unwrap().manager, Some(sam));
    app.form_post(&ada, "/fn/set_manager", &[("person", &alice.to_string()), ("manager", &ada_email)]).await;

    // A person who is not an admin changes nothing.
    let alice_session = app.sign_in("alice").await;
    app.form_post(&alice_session, "/fn/set_manager", &[("person", &alice.to_string()), ("manager", "")]).await;
    assert_eq!(app.store.person(alice).await.unwrap().unwrap().manager, Some(ada_id));

    // Back to none.
    app.form_post(&ada, "/fn/set_manager", &[("person", &alice.to_string()), ("manager", "")]).await;
    assert_eq!(app.store.person(alice).await.unwrap().unwrap().manager, None);
}

/// A page's text as a person reads it: apostrophes unescaped.
fn words(html: &str) -> String {
    html.replace("&#x27;", "'").replace("&#39;", "'")
}

/// The thread page, once no run on it is working any more.
async fn answered_thread(app: &TestApp, c: &reqwest::Client, path: &str) -> String {
    for _ in 0..100 {
        let (status, html) = app.page(c, path).await;
        assert_eq!(status, StatusCode::OK, "{html}");
        if !html.contains("http-equiv=\"refresh\"") {
            return words(&html);
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("the run on {path} was still working after 10 s");
}

async fn sales_assistant(app: &TestApp) -> String {
    let dir = app.org.directory().await.unwrap();
    dir.agents.iter().find(|a| a.name == "Sales Assistant").unwrap().id.to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn asking_works_as_plain_form_posts_and_details_shows_the_memory_used() {
    let model = AgentModelServer::start().await;
    let app = spawn_app_with_agent_model(&model).await;
    let ada = app.sign_in("ada").await;
    app.save_core(&ada, SALES, 0, "Stages: New, Qualified, Proposal, Won, Lost.").await;
    let alice = app.sign_in("alice").await;
    let (status, html) = app.page(&alice, "/ask").await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains("Sales Assistant (Sales)"), "{html}");
    assert!(html.contains("action=\"/fn/ask\""));
    assert!(html.contains("You have not asked anything yet."));

    model.script([AgentReply::answer("New, Qualified, Proposal, Won and Lost.")]);
    let r = app
        .form_post(
            &alice,
            "/fn/ask",
            &[("agent", &sales_assistant(&app).await), ("question", "what are our sales stages")],
        )
        .await;
    assert_eq!(r.status(), StatusCode::FOUND);
    let thread = r.headers()["location"].to_str().unwrap().to_string();
    assert!(thread.starts_with("/threads/"), "{thread}");

    let html = answered_thread(&app, &alice, &thread).await;
    assert!(html.contains("<h1>what are our sales stages</h1>"), "{html}");
    assert_eq!(
        html.matches("<p class=\"text\">New, Qualified, Proposal, Won and Lost.</p>").count(),
        1,
        "the answer is shown once, under its run, not again as a message: {html}"
    );
    assert!(html.contains("<summary>Details</summary>"));
    assert!(html.contains("Read from memory: 1 core and who's who"), "{html}");
    assert!(
        html.contains(r#"<span class="step-name">Memory used</span>"#),
        "the step is named as people know it: {html}"
    );
    assert!(html.contains("Sales company core, version 1"));
    assert!(html.contains("Who's who: The people and teams around this work"));
    assert!(html.contains("Data label: "));
    assert!(html.contains("action=\"/fn/ask_in_thread\""), "a follow-up form");

    let (_, list) = app.page(&alice, "/ask").await;
    assert!(list.contains(&format!("<a href=\"{thread}\">what are our sales stages</a>")), "{list}");

    // Events: the admin sees Memory used by ids only; Alice is refused plainly.
    let (_, events) = app.page(&ada, "/company/events").await;
    assert!(events.contains("Memory used"), "{events}");
    assert!(events.contains("core company role:sales v1"));
    assert!(!events.contains("Stages: New"), "events never say what memory says");
    let (status, refused) = app.page(&alice, "/company/events").await;
    assert_eq!(status, StatusCode::OK);
    assert!(refused.contains("Only an admin can see Events"));
    assert!(!refused.contains("core company role:sales"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_run_says_so_and_try_again_answers_it() {
    let model = AgentModelServer::start().await;
    let app = spawn_app_with_agent_model(&model).await;
    let alice = app.sign_in("alice").await;
    // The model takes its time, then answers nothing a client can use.
    model.script([AgentReply::Hang(std::time::Duration::from_millis(1_500))]);
    let r = app
        .form_post(
            &alice,
            "/fn/ask",
            &[("agent", &sales_assistant(&app).await), ("question", "what are our sales stages")],
        )
        .await;
    let thread = r.headers()["location"].to_str().unwrap().to_string();
    // While the run works, a browser without JavaScript is told to look again.
    let (_, working) = app.page(&alice, &thread).await;
    assert!(working.contains("<meta http-equiv=\"refresh\" content=\"2\">"), "{working}");
    assert!(words(&working).contains("Sales Assistant is working on it…"));
    assert!(!working.contains(">Try again</button>"));
    let html = answered_thread(&app, &alice, &thread).await;
    assert!(html.contains("The model did not answer"), "{html}");
    assert!(html.contains(">Try again</button>"));
    assert!(html.contains("action=\"/fn/retry_run\""));
    let run = html
        .split("name=\"run\" value=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("the failed run's id in the Try again form")
        .to_string();
    let thread_id = thread.trim_start_matches("/threads/").to_string();

    model.script([AgentReply::answer("New, Qualified, Proposal, Won and Lost.")]);
    let r = app.form_post(&alice, "/fn/retry_run", &[("thread", &thread_id), ("run", &run)]).await;
    assert_eq!(r.status(), StatusCode::FOUND);
    assert_eq!(r.headers()["location"], thread.as_str());
    let html = answered_thread(&app, &alice, &thread).await;
    assert_eq!(html.matches("<p class=\"text\">New, Qualified, Proposal, Won and Lost.</p>").count(), 1, "{html}");
    assert!(!html.contains(">Try again</button>"));

    // Someone else may not read her thread.
    let bob = app.sign_in("bob").await;
    let (_, other) = app.page(&bob, &thread).await;
    assert!(!other.contains("New, Qualified, Proposal, Won and Lost."));
    assert!(other.contains("notice refused"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_ask_keeps_the_question() {
    let model = AgentModelServer::start().await;
    let app = spawn_app_with_agent_model(&model).await;
    let alice = app.sign_in("alice").await;
    let long = format!("Keep my words. {}", "z".repeat(4_100));
    let agent = sales_assistant(&app).await;
    let r = app.form_post(&alice, "/fn/ask", &[("agent", &agent), ("question", &long)]).await;
    assert_eq!(r.status(), StatusCode::FOUND);
    assert_eq!(r.headers()["location"], "/ask");
    let (_, html) = app.page(&alice, "/ask").await;
    assert!(html.contains("notice refused"), "{html}");
    assert!(html.contains(&long), "the question is kept in the textarea");
    assert!(html.contains(&format!("<option value=\"{agent}\" selected")), "the agent stays chosen");
    assert!(model.requests().is_empty(), "nothing was asked of the model");
    // The refusal is shown once.
    let (_, again) = app.page(&alice, "/ask").await;
    assert!(!again.contains(&long));
}

/// A browser with JavaScript off fetches every preload and never uses it; a wasm preload on each
/// page it opened filled its connections to the server until a form post waited. The page loads
/// the app's module, and the module fetches the wasm.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_preload_the_module_but_not_the_wasm() {
    let app = spawn_app().await;
    let ada = app.sign_in("ada").await;
    let r = ada.get(app.url("/company/roles")).send().await.unwrap();
    let html = r.text().await.unwrap();
    let head = &html[..html.find("</head>").expect("a head")];
    assert!(head.contains("rel=\"modulepreload\""), "{head}");
    assert!(head.contains("<script type=\"module\""), "{head}");
    assert!(
        head.contains(".wasm`}).then(() =>") || head.contains("module_or_path"),
        "the module loads the wasm: {head}"
    );
    assert!(!head.contains("rel=\"preload\""), "no preload a JS-off browser would fetch: {head}");
}

/// People is read 50 at a time, whatever the organisation's size: a GET search by how a name, an
/// email or a team starts, Previous and Next as links, and the counts by team at the top; a
/// picker's matches come from a server function that answers at most ten.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn people_come_fifty_a_page_with_a_search_and_counts_without_javascript() {
    let app = spawn_app().await;
    let ada = app.sign_in("ada").await;
    let dir = app.org.directory().await.unwrap();
    let desk = dir.teams.iter().find(|t| t.name == "Support Desk").unwrap().id;
    let before = dir.people.iter().filter(|p| p.main_team == Some(desk) && p.left_at.is_none()).count();
    let actor = engine::store::Actor { person: None, at: chrono::Utc::now() };
    for i in 0..70 {
        let p = engine::store::NewPerson {
            name: format!("Zz Temp {i:02}"),
            email: format!("temp{i:02}@acme.example"),
            password_hash: "no-password-matches".into(),
            is_admin: false,
            main_team: Some(desk),
        };
        app.store.create_person(&p, actor).await.unwrap();
    }
    let total = dir.people.iter().filter(|p| p.left_at.is_none()).count() + 70;
    let rows = |html: &str| html.matches("<tr><td><a href=\"/company/people?").count();

    let (status, html) = app.page(&ada, "/company/people").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(rows(&html), 50, "one page of 50");
    assert!(html.contains(r#"<a rel="next" href="/company/people?page=2">Next</a>"#), "{html}");
    assert!(!html.contains("rel=\"prev\""));
    let text = words(&html);
    assert!(text.contains(&format!("{total} current people")), "{text}");
    assert!(text.contains(&format!("Support Desk</a> {}", before + 70)), "the count by team");
    assert!(html.contains(r#"<form method="get" action="/company/people""#) && html.contains("name=\"q\""));

    let (_, html) = app.page(&ada, "/company/people?page=2").await;
    assert_eq!(rows(&html), total - 50);
    assert!(html.contains(r#"<a rel="prev" href="/company/people">Previous</a>"#));
    assert!(!html.contains("rel=\"next\""));

    // By team, email or name; ignoring case; the drawer's link keeps the search.
    let (_, html) = app.page(&ada, "/company/people?q=support+desk").await;
    assert_eq!(rows(&html), 50);
    assert!(html.contains(r#"<a rel="next" href="/company/people?q=support%20desk&amp;page=2">Next</a>"#), "{html}");
    let (_, html) = app.page(&ada, "/company/people?q=TEMP0").await;
    assert_eq!(rows(&html), 10);
    let (_, html) = app.page(&ada, "/company/people?q=alice").await;
    assert_eq!(rows(&html), 1);
    let alice = dir.people.iter().find(|p| p.name == "Alice Chen").unwrap().id;
    assert!(html.contains(&format!("href=\"/company/people?q=alice&amp;person={alice}\"")));
    let (_, html) = app.page(&ada, "/company/people?q=nobody-at-all").await;
    assert_eq!(rows(&html), 0);
    assert!(words(&html).contains("Nobody's name, email or team starts with nobody-at-all."));
    // The drawer opens whatever page its person is on.
    let (_, html) = app.page(&ada, &format!("/company/people?person={alice}")).await;
    assert!(
        html.contains("aria-label=\"Alice Chen&#x27;s details\"")
            || html.contains("aria-label=\"Alice Chen's details\"")
    );

    // The picker's matches, as the browser asks for them with JavaScript on: at most ten, current
    // people only, and only for an admin.
    let find = |c: &reqwest::Client, typed: &'static str| {
        c.post(app.url("/fn/find_people"))
            .header("origin", app.url(""))
            .header("sec-fetch-site", "same-origin")
            .form(&[("typed", typed)])
            .send()
    };
    let found: serde_json::Value = find(&ada, "zz temp").await.unwrap().json().await.unwrap();
    assert_eq!(found.as_array().map(Vec::len), Some(10), "{found}");
    assert_eq!(found[0]["email"], "temp00@acme.example");
    let found: serde_json::Value = find(&ada, "ALICE@").await.unwrap().json().await.unwrap();
    assert_eq!(found[0]["name"], "Alice Chen");
    let alice_session = app.sign_in("alice").await;
    let r = find(&alice_session, "zz").await.unwrap();
    assert!(!r.status().is_success());
    assert!(r.text().await.unwrap().contains("Only an admin can choose people"));
}

/// A search that matches more people than it considers says so, and its pages end with the last
/// one considered: what it reads stays bounded whatever the organisation's size.
#[tokio::test]
async fn a_search_that_matches_more_people_than_it_considers_says_so_on_the_page() {
    let app = spawn_app().await;
    let ada = app.sign_in("ada").await;
    let actor = engine::store::Actor { person: None, at: chrono::Utc::now() };
    let wide = engine::org::listing::SEARCH_CONSIDERS + 10;
    for i in 0..wide {
        let p = engine::store::NewPerson {
            name: format!("Zz Wide {i:03}"),
            email: format!("wide{i:03}@acme.example"),
            password_hash: "no-password-matches".into(),
            is_admin: false,
            main_team: None,
        };
        app.store.create_person(&p, actor).await.unwrap();
    }
    let rows = |html: &str| html.matches("<tr><td><a href=\"/company/people?").count();
    let said =
        "More than 100 people match \u{201c}zz\u{201d} by name, by email or by team. These pages list the first \
                100 of each, by name; type more of a name, an email or a team to narrow it.";
    let (status, html) = app.page(&ada, "/company/people?q=zz").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(rows(&html), 50);
    assert!(words(&html).contains(said), "{}", words(&html));
    // Its pages end with the last one considered.
    let (_, html) = app.page(&ada, "/company/people?q=zz&page=2").await;
    assert_eq!(rows(&html), 50);
    assert!(!html.contains("rel=\"next\""));
    assert!(html.contains("Zz Wide 099") && !html.contains("Zz Wide 100"));
    // Typing more narrows it, and the page no longer says so.
    let (_, html) = app.page(&ada, "/company/people?q=zz+wide+05").await;
    assert_eq!(rows(&html), 10);
    assert!(!html.contains("search-overflowed"));
    let (_, html) = app.page(&ada, "/company/people").await;
    assert!(!html.contains("search-overflowed"));
}
