//! Setting person memory up and reading it: the setup sheet and its drafted shapes, connectors and
//! own keys, Prepare my day, the read-only `engram memory` commands, and what a run's agent is given.

use crate::cards::*;
use engine::cards::source::KeyMode;
use engine::org::Person;
use reqwest::{Client, StatusCode};
use serde_json::{json, Value};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prepare_my_day_runs_at_the_local_time_across_a_dst_change() {
    let c = spawn_cards().await;
    let sam = person(&c.app, "sam").await;
    c.app.memory.prepare.set_time_zone(&sam, "Europe/London").await.unwrap();
    c.app.memory.prepare.set_prepare(&sam, true, "08:30").await.unwrap();
    let (_, line) = c.app.memory.prepare.prepare_status(&sam).await.unwrap();
    assert_eq!(line, "On: at 08:30 your time (Europe/London)");
    let calls = || async {
        let r =
            Client::new().get(format!("{}/admin/calls", c.ats)).header("X-Admin-Key", "acme-ats-admin").send().await;
        r.unwrap().json::<Value>().await.unwrap()["tool_calls"].as_i64().unwrap()
    };
    let ran = |v: Vec<(engine::org::PersonId, usize)>| v.iter().any(|(p, _)| *p == sam.id);

    // Saturday 28 March: GMT, so 08:30 is 08:30 UTC.
    c.app.clock.set(at("2026-03-28T08:29:00Z"));
    assert!(!ran(c.app.memory.prepare.prepare_due().await.unwrap()));
    c.app.clock.set(at("2026-03-28T08:31:00Z"));
    let before = calls().await;
    assert!(ran(c.app.memory.prepare.prepare_due().await.unwrap()));
    assert_eq!(calls().await - before, 2, "Sales has two my-work queries");
    assert!(!ran(c.app.memory.prepare.prepare_due().await.unwrap()), "once per local day");

    // Sunday 29 March: the clocks went forward, so 08:30 is 07:30 UTC.
    c.app.clock.set(at("2026-03-29T07:29:00Z"));
    assert!(!ran(c.app.memory.prepare.prepare_due().await.unwrap()));
    c.app.clock.set(at("2026-03-29T07:31:00Z"));
    assert!(ran(c.app.memory.prepare.prepare_due().await.unwrap()));

    // Monday, more than two hours late: it waits for Tuesday.
    c.app.clock.set(at("2026-03-30T09:31:00Z"));
    assert!(!ran(c.app.memory.prepare.prepare_due().await.unwrap()));

    // Off means no call is made for that person.
    c.app.memory.prepare.set_prepare(&sam, false, "08:30").await.unwrap();
    c.app.clock.set(at("2026-03-31T07:31:00Z"));
    let before = calls().await;
    c.app.memory.prepare.prepare_due().await.unwrap();
    assert_eq!(calls().await, before);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_setup_sheet_drafts_shapes_once_in_ten_minutes_and_checks_queries() {
    let c = spawn_cards().await;
    let ada = c.app.sign_in("ada").await;
    let (s, html) = c.app.page(&ada, "/company/connectors/1").await;
    assert_eq!(s, StatusCode::OK);
    assert!(
        html.contains("Some systems&#x27; terms do not allow keeping copies, for example Slack&#x27;s API terms")
            || html.contains("Some systems' terms do not allow keeping copies, for example Slack's API terms")
    );
    assert!(html.contains("search_contacts") && html.contains("What it returns"));
    let (_, bob_page) = c.app.page(&c.app.sign_in("bob").await, "/company/connectors/1").await;
    assert!(bob_page.contains("Only an admin can change a connector"));

    let tick =
        c.app.form_post(&ada, "/fn/tick_tool", &[("id", "1"), ("tool", "search_contacts"), ("on", "true")]).await;
    assert!(tick.status().is_redirection());
    let before = ats_calls(&c.ats).await;
    c.app.form_post(&ada, "/fn/draft_shapes", &[("id", "1")]).await;
    let made = ats_calls(&c.ats).await - before;
    assert_eq!(made, 8, "one call per ticked read tool");
    let (_, html) = c.app.page(&ada, "/company/connectors/1").await;
    assert!(html.contains("Drafted 8 shapes from one sample each"), "the notice says so");
    assert!(html.contains("notes: free text"), "lead notes are drafted as free text");

    c.app.form_post(&ada, "/fn/draft_shapes", &[("id", "1")]).await;
    assert_eq!(ats_calls(&c.ats).await - before, 8, "asked again within 10 minutes: no call");
    c.app.clock.advance(chrono::Duration::minutes(11));
    c.app.form_post(&ada, "/fn/draft_shapes", &[("id", "1")]).await;
    assert_eq!(ats_calls(&c.ats).await - before, 16, "after 10 minutes it samples again");

    let r = c
        .app
        .form_post(
            &ada,
            "/fn/confirm_shape",
            &[
                ("id", "1"),
                ("tool", "search_contacts"),
                ("kind", "contact"),
                ("id_field", "id"),
                ("version_field", "updated_at"),
                ("get_tool", "get_contact"),
                ("fields", "name: structured\nemail: structured\ncompany: structured"),
            ],
        )
        .await;
    assert!(r.status().is_redirection());
    let (_, html) = c.app.page(&ada, "/company/connectors/1").await;
    assert!(html.contains("Confirmed what search_contacts returns: cards of kind contact"));

    let q = |args: &'static str, tool: &'static str| {
        [("id", "1"), ("role", "4"), ("tool", tool), ("arguments", args), ("label", "My contacts")]
    };
    c.app.form_post(&ada, "/fn/add_my_work_query", &q("owner {me}", "list_leads")).await;
    let (_, html) = c.app.page(&ada, "/company/connectors/1").await;
    assert!(html.contains("The arguments must be a JSON object"), "checked when saved");
    c.app.form_post(&ada, "/fn/add_my_work_query", &q(r#"{"query": "{me}"}"#, "update_lead")).await;
    let (_, html) = c.app.page(&ada, "/company/connectors/1").await;
    assert!(html.contains("update_lead is not a ticked read tool of Acme ATS"));
    c.app.form_post(&ada, "/fn/add_my_work_query", &q(r#"{"query": "{me}"}"#, "search_contacts")).await;
    let (_, html) = c.app.page(&ada, "/company/connectors/1").await;
    assert!(html.contains("Added “My contacts”"), "{}", html.len());

    // Keep cards off from the sheet removes the cards at once and says how many.
    let alice = person(&c.app, "alice").await;
    let fields = [
        ("id", "1"),
        ("key_mode", "company"),
        ("label", "internal"),
        ("reference_soft", "1440"),
        ("reference_hard", "43200"),
        ("state_soft", "60"),
        ("state_hard", "20160"),
        ("moving_soft", "15"),
        ("moving_hard", "20160"),
        ("free_text_soft", "30"),
        ("free_text_hard", "10080"),
        ("hourly_limit", "600"),
    ];
    c.app.form_post(&ada, "/fn/save_connector", &fields).await;
    let (_, html) = c.app.page(&ada, "/company/connectors/1").await;
    assert!(html.contains("cards were removed at once"), "the notice counts them");
    assert_eq!(c.app.memory.mine.my_cards(&alice).await.unwrap().len(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_admin_adds_a_connector_and_a_person_gives_their_own_key() {
    let c = spawn_cards().await;
    let ada = c.app.sign_in("ada").await;
    let add = |key: &'static str| {
        [("name", "Second ATS"), ("base_url", ""), ("company_key", key)].map(|(k, v)| (k, v.to_string()))
    };
    let mut wrong = add("not-the-key");
    wrong[1].1 = c.ats.clone();
    let fields: Vec<(&str, &str)> = wrong.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let r = c.app.form_post(&ada, "/fn/create_connector", &fields).await;
    assert_eq!(r.headers()["location"], "/company/connectors");
    let (_, html) = c.app.page(&ada, "/company/connectors").await;
    assert!(html.contains("refused that key; nothing was saved"), "the key is checked");
    let mut right = add("acme-ats-company-key");
    right[1].1 = c.ats.clone();
    let fields: Vec<(&str, &str)> = right.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let r = c.app.form_post(&ada, "/fn/create_connector", &fields).await;
    assert_eq!(r.headers()["location"], "/company/connectors/2");
    let (_, html) = c.app.page(&ada, "/company/connectors/2").await;
    assert!(html.contains("Added Second ATS; tick its read tools below"));
    assert!(!html.contains("acme-ats-company-key"), "the key is never shown again");

    // Lead tools on people's own keys: the page asks for Alice's, and keeps it unseen.
    let ada_p = person(&c.app, "ada").await;
    let lead_tools: Vec<String> = ["list_leads", "get_lead"].iter().map(|s| s.to_string()).collect();
    c.app.memory.connectors.set_key_mode(&ada_p, c.connector, KeyMode::Company, &lead_tools).await.unwrap();
    let alice = c.app.sign_in("alice").await;
    let (_, html) = c.app.page(&alice, "/profile/memory").await;
    assert!(html.contains("Acme ATS (given; not shown again)"), "the demo gave Alice's key");
    c.app.form_post(&alice, "/fn/set_own_key", &[("connector", "1"), ("key", "acme-ats-key-alice")]).await;
    let (_, html) = c.app.page(&alice, "/profile/memory").await;
    assert!(html.contains("Saved your key; it is not shown again") && !html.contains("acme-ats-key-alice"));
    let alice_p = person(&c.app, "alice").await;
    let q = c.app.store.my_work_queries(engine::org::RoleId(4)).await.unwrap();
    let open_deals = q.iter().find(|q| q.label == "My open deals").unwrap();
    assert!(c.app.memory.prepare.run_query(&alice_p, open_deals).await.unwrap() >= 1, "read with her own key");
    let own = c.app.memory.mine.my_cards(&alice_p).await.unwrap();
    assert!(own.iter().any(|c| c.record_id == "L-1001"), "her own-key card reaches her own page");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn agents_are_given_only_the_cards_their_toolsets_and_clearance_allow() {
    let c = spawn_cards().await;
    let alice = person(&c.app, "alice").await;
    let dir = c.app.org.directory().await.unwrap();
    let agent = |name: &str| dir.agents.iter().find(|a| a.name == name).unwrap().id;
    let sales = c.app.memory.runs.running_agent(agent("Sales Assistant")).await.unwrap();
    let support = c.app.memory.runs.running_agent(agent("Support Agent")).await.unwrap();
    let q = "What stage is Nimbus Logistics at?";
    assert!(!c.app.memory.mine.select_for(&alice, q, Some(&sales)).await.unwrap().cards.is_empty());
    assert!(
        c.app.memory.mine.select_for(&alice, q, Some(&support)).await.unwrap().cards.is_empty(),
        "cleared for public"
    );

    let ada = c.app.sign_in("ada").await;
    let (_, html) = c.app.page(&ada, "/company/agents").await;
    assert!(html.contains("Holds Acme ATS · cleared for internal data"));
    assert!(html.contains("Holds Acme ATS · cleared for public data"));
    let bob = person(&c.app, "bob").await;
    let refused = c.app.org.agents.set_agent_toolsets(&bob, agent("Sales Assistant"), &[1]).await.unwrap_err();
    assert_eq!(refused.to_string(), "Only Sales Assistant's owner or an admin can change its toolsets");
    let refused = c.app.org.agents.set_agent_clearance(&bob, agent("Sales Assistant"), "personal").await.unwrap_err();
    assert_eq!(refused.to_string(), "Only an admin can change an agent's clearance");

    // Prepare my day's form: a zone that does not exist changes nothing.
    let sam = c.app.sign_in("sam").await;
    c.app
        .form_post(&sam, "/fn/save_prepare", &[("enabled", "on"), ("at_time", "07:45"), ("zone", "Mars/Olympus")])
        .await;
    let (_, html) = c.app.page(&sam, "/profile/memory").await;
    assert!(html.contains("Mars/Olympus is not a time zone name, such as Asia/Kolkata"));
    assert!(html.contains("Off. When on, it runs at 08:30 your time (Asia/Kolkata)."));
    c.app
        .form_post(&sam, "/fn/save_prepare", &[("enabled", "on"), ("at_time", "07:45"), ("zone", "Europe/London")])
        .await;
    let (_, html) = c.app.page(&sam, "/profile/memory").await;
    assert!(html.contains("Prepare my day saved. On: at 07:45 your time (Europe/London)"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shapes_are_drafted_by_the_model_when_there_is_one_else_by_plain_rules() {
    use crate::model_server::{ModelServer, Script};
    let model = ModelServer::start().await;
    let shape = json!({"kind": "lead", "id_field": "id", "version_field": "updated_at",
        "fields": [{"name": "company", "free_text": false}, {"name": "stage", "free_text": false}]});
    model.script([Script::Reply(shape.to_string()), Script::Status(500)]);
    let c = spawn_cards_with(model.openai_settings()).await;
    let ada = person(&c.app, "ada").await;
    let (drafts, reused) = c.app.memory.connectors.draft_shapes(&ada, c.connector).await.unwrap();
    assert!(!reused);
    let by_model = drafts.iter().find(|d| d.tool == "list_leads").unwrap();
    assert_eq!(by_model.fields.iter().map(|f| f.name.as_str()).collect::<Vec<_>>(), vec!["company", "stage"]);
    let by_rules = drafts.iter().find(|d| d.tool == "search_leads").expect("the model failed: rules drafted it");
    assert!(by_rules.fields.iter().any(|f| f.name == "notes" && f.free_text));
    assert_eq!(model.asked().len(), drafts.len(), "one model call per draft");
    let user = model.asked()[0]["messages"][1]["content"].as_str().unwrap().to_string();
    assert!(user.contains("<data source=\"one sample answer of list_leads\">"), "the sample is quoted data");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_prepare_my_day_keeps_what_was_typed() {
    let c = spawn_cards().await;
    let sam = c.app.sign_in("sam").await;
    let r = c
        .app
        .form_post(&sam, "/fn/save_prepare", &[("enabled", "on"), ("at_time", "07:45"), ("zone", "Mars/Olympus")])
        .await;
    assert!(r.status().is_redirection());
    let (_, html) = c.app.page(&sam, "/profile/memory").await;
    assert!(html.contains("value=\"Mars/Olympus\""), "the zone typed stays in the form");
    assert!(html.contains("value=\"07:45\""), "and the time");
    let p = person(&c.app, "sam").await;
    let (setting, _) = c.app.memory.prepare.prepare_status(&p).await.unwrap();
    assert!(!setting.enabled, "nothing was saved");
    let (_, again) = c.app.page(&sam, "/profile/memory").await;
    assert!(!again.contains("Mars/Olympus"), "shown once, then the stored values");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_runs_selection_says_how_fresh_each_card_is_against_its_limits() {
    use engine::cards::source::FreshnessNow::*;
    let c = spawn_cards().await;
    let alice = person(&c.app, "alice").await;
    let fresh = |q: &'static str| {
        let (memory, alice) = (c.app.memory.clone(), alice.clone());
        async move {
            let sel = memory.mine.select_for(&alice, q, None).await.unwrap();
            sel.cards.into_iter().find(|s| s.record_id == "L-1001").map(|s| s.freshness).expect("L-1001 selected")
        }
    };
    // The demo's connector: amounts and dates 15 min soft, state fields 60 min, both 14 days
    // hard; free text 30 min soft, 7 days hard. A lead carries its value, so 15 min decides.
    assert_eq!(fresh("Where is L-1001?").await, WithinSoft);
    c.app.clock.advance(chrono::Duration::minutes(15));
    assert_eq!(fresh("Where is L-1001?").await, WithinSoft, "the soft limit itself is fresh");
    c.app.clock.advance(chrono::Duration::minutes(1));
    assert_eq!(fresh("Where is L-1001?").await, PastSoft, "amounts and dates age fastest");
    c.app.clock.advance(chrono::Duration::days(8));
    assert_eq!(fresh("Where is L-1001?").await, PastSoft);
    assert_eq!(fresh("What do the notes on L-1001 say?").await, PastHard, "read the source first");
}

/// What `engram memory …` could change, read without writing.
async fn memory_state(url: &str, who: &Person) -> ((u32, u32), usize, Vec<u8>) {
    use engine::cards::store::KeptCardStore;
    use engine::store::OrgStore;
    let store = server::store::SqliteStore::open_read_only(url).await.unwrap();
    let counts = store.counts(who.id).await.unwrap();
    let audit = store.audit_log(10_000).await.unwrap().len();
    store.pool().close().await;
    let path = url.strip_prefix("sqlite://").unwrap();
    (counts, audit, std::fs::read(path).unwrap())
}

async fn memory_cli(url: &str, cmd: server::cli::Memory) -> String {
    let mut out = Vec::new();
    server::cli::run_memory(&cmd, Some(url.to_string()), &mut out).await.unwrap();
    String::from_utf8(out).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_memory_command_reads_without_changing_the_database() {
    use server::cli::Memory;
    // This one compares the SQLite file byte for byte; the read-only opening of a PostgreSQL
    // database is tested in postgres.rs.
    if crate::helpers::postgres_backend() {
        return;
    }
    let c = spawn_cards().await;
    let (alice, ada) = (person(&c.app, "alice").await, person(&c.app, "ada").await);
    // The toolset no longer admits Sales: a read that may write drops Alice's uses.
    let mut conn = c.app.store.connector(c.connector).await.unwrap().unwrap();
    conn.admits_roles = vec!["support".into()];
    c.app.memory.connectors.save_settings(&ada, &conn).await.unwrap();
    let url = c.app.database_url.clone();
    let _dir = c.app.stop().await;
    // Everything the server wrote is in the main file, so the file's bytes can be compared.
    let store = server::store::SqliteStore::open(&url).await.unwrap();
    sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)").execute(store.pool()).await.unwrap();
    store.pool().close().await;
    let path = url.strip_prefix("sqlite://").unwrap().to_string();
    let mut perms = std::fs::metadata(&path).unwrap().permissions();
    perms.set_readonly(true);
    std::fs::set_permissions(&path, perms).unwrap();

    let before = memory_state(&url, &alice).await;
    assert!(before.0 .0 > 0, "Alice still has use rows to lose");

    let mine = memory_cli(&url, Memory::Cards { who: "alice".into(), person: None }).await;
    assert_eq!(mine, "Alice Chen has no cards kept\n", "what may not be shown is left out");
    let counts = memory_cli(&url, Memory::Cards { who: "ada".into(), person: Some("alice".into()) }).await;
    assert_eq!(counts, "Alice Chen has 0 cards kept (0 pinned) and 0 lists. What they say is theirs alone.\n");
    assert!(memory_cli(&url, Memory::Roles).await.contains("Sales (role:sales)"));
    memory_cli(&url, Memory::Core { scope: "company:role:sales".into() }).await;

    let after = memory_state(&url, &alice).await;
    assert_eq!(after.0, before.0, "no use row went");
    assert_eq!(after.1, before.1, "nothing was audited");
    assert!(after.2 == before.2, "the database file is byte for byte the same");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn drafting_shapes_spends_from_memorys_daily_budget_and_drafts_by_rules_once_it_is_spent() {
    use crate::model_server::{ModelServer, Script};
    let model = ModelServer::start().await;
    let shape = json!({"kind": "lead", "id_field": "id", "version_field": "updated_at",
        "fields": [{"name": "company", "free_text": false}]});
    model.script([Script::Reply(shape.to_string())]);
    let c = spawn_cards_with(model.openai_settings()).await;
    let ada = person(&c.app, "ada").await;
    c.app.memory.connectors.draft_shapes(&ada, c.connector).await.unwrap();
    let calls = model.asked().len();
    assert!(calls > 0);
    let day =
        engine::learning::nightly::company_day(c.app.store.as_ref(), engine::Clock::now(&*c.app.clock)).await.unwrap();
    assert!(c.app.store.spent_on(&day).await.unwrap() > 0, "every call is counted in the spend ledger");

    // With the budget spent, the drafts come from rules and no model is asked.
    let at = engine::Clock::now(&*c.app.clock);
    c.app.store.set_memory_budget(0, engine::store::Actor { person: Some(ada.id), at }).await.unwrap();
    c.app.clock.advance(chrono::Duration::minutes(11));
    let (drafts, reused) = c.app.memory.connectors.draft_shapes(&ada, c.connector).await.unwrap();
    assert!(!reused && !drafts.is_empty());
    assert_eq!(model.asked().len(), calls, "no call once the budget is spent");
}
