//! Importing people from a CSV file: the API's dry run and apply, the apply refused when the data
//! changed since the dry run, who may import, the Import people page as a browser without
//! JavaScript posts it (a multipart upload), and `engram people import` on both backends.

use crate::helpers::*;
use engine::store::NewPerson;
use reqwest::{Client, StatusCode};
use serde_json::{json, Value};

/// Two people to add (one with a role of their own), and a row for each way a row is refused.
const CSV: &str = "Name,EMAIL,team,Role\r\n\
    Grace Hopper,grace@acme.example,Platform,\r\n\
    \"Turing, Alan\",alan@acme.example,sales bengaluru,support\r\n\
    Wes West,wes@acme.example,Sales West,\r\n\
    Ada Again,ADA@acme.example,Platform,\r\n\
    No Email,nobody,Platform,\r\n\
    Rae Role,rae@acme.example,Platform,Legal\r\n\
    Dee One,dee@acme.example,Platform,\r\n\
    Dee Two,dee@acme.example,Support Desk,\r\n";

const REFUSED: [&str; 6] = [
    "line 4: there is no team called Sales West",
    "line 5: someone already has the email ada@acme.example",
    "line 6: \"nobody\" is not an email address, such as ada@example.com",
    "line 7: there is no role called Legal",
    "line 8: the email dee@acme.example is also on line 9",
    "line 9: the email dee@acme.example is also on line 8",
];

async fn import(app: &TestApp, c: &Client, query: &str, csv: &str) -> (StatusCode, Value) {
    let r = c
        .post(app.url(&format!("/api/people/import{query}")))
        .header("content-type", "text/csv")
        .body(csv.to_string())
        .send()
        .await
        .expect("import request");
    let status = r.status();
    (status, r.json().await.unwrap_or(Value::Null))
}

fn messages(refused: &Value) -> Vec<String> {
    refused.as_array().expect("refused rows").iter().map(|r| r["message"].as_str().unwrap().to_string()).collect()
}

async fn people_count(app: &TestApp) -> usize {
    app.store.directory().await.unwrap().people.len()
}

async fn imports_audited(app: &TestApp) -> Vec<engine::org::AuditEntry> {
    app.store.audit_log(500).await.unwrap().into_iter().filter(|a| a.action == "people.import").collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dry_run_lists_the_people_to_add_and_each_refused_row_with_its_reason() {
    let app = spawn_app().await;
    let ada = app.sign_in("ada").await;
    let before = people_count(&app).await;
    let (status, dry) = import(&app, &ada, "", CSV).await;
    assert_eq!(status, StatusCode::OK, "{dry}");
    let to_add: Vec<(u64, &str, &str, &str, Option<&str>)> = dry["to_add"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["line"].as_u64().unwrap(),
                r["name"].as_str().unwrap(),
                r["email"].as_str().unwrap(),
                r["team_name"].as_str().unwrap(),
                r["role_name"].as_str(),
            )
        })
        .collect();
    assert_eq!(
        to_add,
        [
            (2, "Grace Hopper", "grace@acme.example", "Platform", None),
            (3, "Turing, Alan", "alan@acme.example", "Sales Bengaluru", Some("Support")),
        ]
    );
    assert_eq!(messages(&dry["refused"]), REFUSED);
    assert_eq!(dry["refused"][0]["reason"], "there is no team called Sales West");
    assert!(dry["check"].as_str().unwrap().starts_with("2-"));
    assert_eq!(people_count(&app).await, before, "a dry run changes nothing");
    assert!(imports_audited(&app).await.is_empty());

    // A file that cannot be read is refused as a whole, plainly.
    let (status, bad) = import(&app, &ada, "", "email,team\ngrace@acme.example,Platform\n").await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(bad["error"], "invalid_file");
    assert_eq!(
        bad["message"],
        "The first line must be the header naming the columns: name,email,team,role; it has no name column"
    );
    let r = ada.post(app.url("/api/people/import")).body(vec![0xff_u8, 0xfe, 0x00]).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(body(r).await["message"].as_str().unwrap().starts_with("The file is not UTF-8 text"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_apply_adds_everyone_accepted_in_one_transaction_with_invite_links() {
    let app = spawn_app().await;
    let ada = app.sign_in("ada").await;
    let before = people_count(&app).await;
    let (_, dry) = import(&app, &ada, "", CSV).await;
    let check = dry["check"].as_str().unwrap().to_string();
    let (status, done) = import(&app, &ada, &format!("?apply=true&check={check}"), CSV).await;
    assert_eq!(status, StatusCode::CREATED, "{done}");
    let added = done["added"].as_array().unwrap();
    assert_eq!(added.len(), 2);
    assert_eq!(messages(&done["refused"]), REFUSED, "the refused rows are left out, and said so");
    for (p, email) in added.iter().zip(["grace@acme.example", "alan@acme.example"]) {
        assert_eq!(p["email"], email);
        let link = p["invite_link"].as_str().unwrap();
        assert!(link.starts_with(&format!("{}/invite/inv_", app.base)), "{link}");
        assert_eq!(link, format!("{}{}", app.base, p["invite_path"].as_str().unwrap()));
    }
    assert_ne!(added[0]["invite_link"], added[1]["invite_link"]);
    assert_eq!(people_count(&app).await, before + 2);
    let dir = app.store.directory().await.unwrap();
    let alan = dir.people.iter().find(|p| p.email == "alan@acme.example").expect("Alan was added");
    assert_eq!(alan.name, "Turing, Alan");
    assert_eq!(dir.team(alan.main_team.unwrap()).unwrap().name, "Sales Bengaluru");
    assert_eq!(dir.role(alan.role_override.unwrap()).unwrap().name, "Support");
    assert!(!alan.is_admin);
    let audited = imports_audited(&app).await;
    assert_eq!(audited.len(), 1, "one audit row for the import: {audited:?}");
    assert_eq!(audited[0].detail, "added 2 people from a CSV file; 6 rows refused");
    let ada_id = dir.people.iter().find(|p| p.email == "ada@acme.example").unwrap().id;
    assert_eq!(audited[0].actor, Some(ada_id));
    // Nobody signs in as an imported person before they set a password through their link.
    for guess in ["", "engram-demo", "password"] {
        let r = app.post_sign_in(&client(), "grace@acme.example", guess).await;
        assert_eq!(r.headers()["location"], "/signin?next=/", "{guess:?}");
    }

    // The same file again: everyone in it is now taken, so no one would be added.
    let (status, again) = import(&app, &ada, "?apply=true", CSV).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{again}");
    assert_eq!(again["message"], "No one would be added: every row of the file is refused");
    assert_eq!(people_count(&app).await, before + 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_apply_is_refused_whole_when_an_email_was_taken_since_the_dry_run() {
    let app = spawn_app().await;
    let ada = app.sign_in("ada").await;
    let (_, dry) = import(&app, &ada, "", CSV).await;
    let check = dry["check"].as_str().unwrap().to_string();
    let grace = NewPerson {
        name: "Grace Elsewhere".into(),
        email: "grace@acme.example".into(),
        password_hash: "x".into(),
        is_admin: false,
        main_team: None,
    };
    app.store.create_person(&grace, engine::store::Actor { person: None, at: chrono::Utc::now() }).await.unwrap();
    let before = people_count(&app).await;
    let (status, refused) = import(&app, &ada, &format!("?apply=true&check={check}"), CSV).await;
    assert_eq!(status, StatusCode::CONFLICT, "{refused}");
    assert_eq!(refused["error"], "changed_since_dry_run");
    assert_eq!(
        refused["message"],
        "Nothing was added: the people, teams or roles changed since the dry run. The dry run would have added 2 \
         people; now 1 person would be added. Check the file again."
    );
    assert_eq!(people_count(&app).await, before, "nothing was written");
    assert!(app.store.credentials("alan@acme.example").await.unwrap().is_none());
    assert!(imports_audited(&app).await.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_an_admin_can_import_people() {
    let app = spawn_app().await;
    let before = people_count(&app).await;
    let sam = app.sign_in("sam").await;
    for query in ["", "?apply=true"] {
        let (status, refused) = import(&app, &sam, query, CSV).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{query}");
        assert_eq!(refused["message"], "Only an admin can add people");
    }
    // A non-admin's token is refused alike; an admin's token may import.
    let sams = token(&app, &sam).await;
    let r = Client::new().post(app.url("/api/people/import")).bearer_auth(&sams).body(CSV).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    assert_eq!(body(r).await["message"], "Only an admin can add people");
    let r = Client::new().post(app.url("/api/people/import")).body(CSV).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(people_count(&app).await, before);

    // The page and its form posts refuse too, whatever the page shows.
    let (_, people) = app.page(&sam, "/company/people").await;
    assert!(!people.contains("Import people"));
    let (_, page) = app.page(&sam, "/company/people/import").await;
    assert!(page.contains("Only an admin can add people"), "{page}");
    assert!(!page.contains("Check the file"));
    let r = upload(&app, &sam, &[("text", None, CSV)]).await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    let r = app.form_post(&sam, "/company/people/import/apply", &[("check", "2-0")]).await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    assert_eq!(people_count(&app).await, before);

    let ada = app.sign_in("ada").await;
    let adas = token(&app, &ada).await;
    let r = Client::new().post(app.url("/api/people/import")).bearer_auth(&adas).body(CSV).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
}

async fn token(app: &TestApp, c: &Client) -> String {
    let r = c.post(app.url("/api/tokens")).json(&json!({ "name": "import" })).send().await.unwrap();
    body(r).await["token"].as_str().unwrap().to_string()
}

/// A multipart form post, as a browser without JavaScript sends the Import people form:
/// (field, file name, value).
async fn upload(app: &TestApp, c: &Client, fields: &[(&str, Option<&str>, &str)]) -> reqwest::Response {
    let boundary = "----engram-import-test-7d3f";
    let mut body = String::new();
    for (name, file, value) in fields {
        body.push_str(&format!("--{boundary}\r\n"));
        match file {
            Some(file) => body.push_str(&format!(
                "Content-Disposition: form-data; name=\"{name}\"; filename=\"{file}\"\r\nContent-Type: text/csv\r\n\r\n"
            )),
            None => body.push_str(&format!("Content-Disposition: form-data; name=\"{name}\"\r\n\r\n")),
        }
        body.push_str(value);
        body.push_str("\r\n");
    }
    body.push_str(&format!("--{boundary}--\r\n"));
    c.post(app.url("/company/people/import/upload"))
        .header("content-type", format!("multipart/form-data; boundary={boundary}"))
        .header("accept", "text/html")
        .header("origin", &app.base)
        .header("sec-fetch-site", "same-origin")
        .body(body)
        .send()
        .await
        .expect("upload")
}

/// The value of the hidden `check` input on the page.
fn check_on(page: &str) -> String {
    let at = page.find("name=\"check\"").expect("the apply form's check");
    let rest = &page[at..];
    let value = &rest[rest.find("value=\"").expect("a value") + 7..];
    value[..value.find('"').unwrap()].to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_checks_a_file_then_adds_its_people_and_shows_their_links_once() {
    let app = spawn_app().await;
    let ada = app.sign_in("ada").await;
    let (_, people) = app.page(&ada, "/company/people").await;
    assert!(people.contains("href=\"/company/people/import\">Import people</a>"), "{people}");
    let (status, page) = app.page(&ada, "/company/people/import").await;
    assert_eq!(status, StatusCode::OK);
    for form in ["enctype=\"multipart/form-data\"", "CSV file", "Or paste the CSV", "Check the file"] {
        assert!(page.contains(form), "{form}: {page}");
    }

    // Pasted text that cannot be read is refused, and kept in the form.
    let r = upload(&app, &ada, &[("file", Some(""), ""), ("text", None, "email,team\nx@acme.example,Platform")]).await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    assert_eq!(r.headers()["location"], "/company/people/import");
    let (_, page) = app.page(&ada, "/company/people/import").await;
    assert!(page.contains("it has no name column"), "{page}");
    assert!(page.contains("email,team\nx@acme.example,Platform</textarea>"), "{page}");

    // A chosen file: its dry run, with the refused rows and their reasons.
    let r = upload(&app, &ada, &[("file", Some("people.csv"), CSV), ("text", None, "")]).await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    let (_, page) = app.page(&ada, "/company/people/import").await;
    assert!(page.contains("Dry run of people.csv: 2 people to add, 6 rows refused. Nothing has been added yet."));
    assert!(page.contains("line 4: there is no team called Sales West"), "{page}");
    assert!(page.contains("line 8: the email dee@acme.example is also on line 9"));
    assert!(page.contains("grace@acme.example") && page.contains("Turing, Alan"));
    assert!(page.contains(">Add 2 people</button>"), "{page}");
    let check = check_on(&page);
    let before = people_count(&app).await;

    let r = app.form_post(&ada, "/company/people/import/apply", &[("check", &check)]).await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    assert_eq!(r.headers()["location"], "/company/people/import");
    let (_, page) = app.page(&ada, "/company/people/import").await;
    assert!(page.contains("Added 2 people from people.csv."), "{page}");
    let link = format!("{}/invite/inv_", app.base);
    assert_eq!(page.matches(&format!("class=\"invite-link\">{link}")).count(), 2, "each person's link: {page}");
    assert!(page.contains("line 4: there is no team called Sales West"), "the rows not added are listed");
    assert_eq!(people_count(&app).await, before + 2);
    assert_eq!(imports_audited(&app).await.len(), 1);

    // Shown once: the links and the applied file are gone on the next visit.
    let (_, page) = app.page(&ada, "/company/people/import").await;
    assert!(!page.contains(&link) && !page.contains("Dry run of"), "{page}");
    let r = app.form_post(&ada, "/company/people/import/apply", &[("check", &check)]).await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    let (_, page) = app.page(&ada, "/company/people/import").await;
    assert!(page.contains("There is no checked file to add people from: choose one first"), "{page}");
    assert_eq!(people_count(&app).await, before + 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_refuses_an_apply_when_the_data_changed_since_its_dry_run() {
    let app = spawn_app().await;
    let ada = app.sign_in("ada").await;
    upload(&app, &ada, &[("text", None, CSV)]).await;
    let (_, page) = app.page(&ada, "/company/people/import").await;
    assert!(page.contains("Dry run of the pasted CSV: 2 people to add"), "{page}");
    let check = check_on(&page);
    let (status, _) = import(&app, &ada, "?apply=true", "name,email,team\nGrace,grace@acme.example,Platform\n").await;
    assert_eq!(status, StatusCode::CREATED);
    let before = people_count(&app).await;
    let r = app.form_post(&ada, "/company/people/import/apply", &[("check", &check)]).await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    let (_, page) = app.page(&ada, "/company/people/import").await;
    assert!(page.contains("Nothing was added: the people, teams or roles changed since the dry run."), "{page}");
    assert!(page.contains("Dry run of the pasted CSV: 1 person to add"), "the dry run as it is now: {page}");
    assert!(page.contains(">Add 1 person</button>"));
    assert_eq!(people_count(&app).await, before);
}

async fn cli(app: &TestApp, args: &[&str]) -> Result<String, server::bots_cli::CliError> {
    use clap::Parser;
    let parsed = server::cli::Cli::try_parse_from(["engram", "people"].iter().chain(args))
        .map_err(|e| server::bots_cli::CliError { code: e.exit_code() as u8, message: e.to_string() })?;
    let Some(server::cli::Command::People(people)) = parsed.command else { panic!("not a people command: {args:?}") };
    let mut out = Vec::new();
    server::people_cli::run(&people, &app.settings, &mut out).await?;
    Ok(String::from_utf8(out).expect("utf-8"))
}

async fn the_cli_dry_runs_then_applies(mut app: TestApp) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("people.csv");
    std::fs::write(&file, CSV).unwrap();
    let file = file.display().to_string();
    let before = people_count(&app).await;

    let dry = cli(&app, &["import", &file]).await.unwrap();
    assert!(dry.starts_with(&format!("Dry run of {file}: 2 people to add, 6 rows refused. Nothing was changed.\n")));
    assert!(dry.contains("  line 2: Grace Hopper <grace@acme.example>, team Platform\n"), "{dry}");
    assert!(dry.contains("  line 3: Turing, Alan <alan@acme.example>, team Sales Bengaluru, role Support\n"));
    for r in REFUSED {
        assert!(dry.contains(&format!("  {r}\n")), "{r}: {dry}");
    }
    let check = dry.rsplit("--check ").next().unwrap().trim().to_string();
    assert_eq!(people_count(&app).await, before, "the dry run changes nothing");

    let refused = cli(&app, &["import", &file, "--apply", "--as", "sam@acme.example"]).await.unwrap_err();
    assert_eq!((refused.code, refused.message.as_str()), (3, "Only an admin can add people"));
    let stale = cli(&app, &["import", &file, "--apply", "--check", "3-0000000000000000"]).await.unwrap_err();
    assert_eq!(stale.code, 3);
    assert!(stale.message.starts_with("Nothing was added: the people, teams or roles changed"), "{}", stale.message);
    assert_eq!(people_count(&app).await, before);

    app.settings.public_url = Some("https://engram.acme.example".into());
    let done = cli(&app, &["import", &file, "--apply", "--check", &check, "--as", "ada@acme.example"]).await.unwrap();
    assert!(
        done.starts_with(&format!("Added 2 people from {file} in one transaction.\n6 rows not added:\n")),
        "{done}"
    );
    assert!(done.contains("grace@acme.example https://engram.acme.example/invite/inv_"), "{done}");
    assert!(done.contains("alan@acme.example https://engram.acme.example/invite/inv_"));
    assert_eq!(people_count(&app).await, before + 2);
    let audited = imports_audited(&app).await;
    assert_eq!(audited.len(), 1);
    assert!(audited[0].actor.is_some(), "made as the admin --as names");

    // Without a public address, the paths, and what to put before them; as the host's operator.
    app.settings.public_url = None;
    std::fs::write(dir.path().join("more.csv"), "name,email,team\nKay,kay@acme.example,Platform\n").unwrap();
    let more = dir.path().join("more.csv").display().to_string();
    let done = cli(&app, &["import", &more, "--apply"]).await.unwrap();
    assert!(done.contains("set ENGRAM_PUBLIC_URL to print whole links:\nkay@acme.example /invite/inv_"), "{done}");
    assert_eq!(imports_audited(&app).await[0].actor, None, "the host's operator");

    let missing = cli(&app, &["import", "/nonexistent/people.csv"]).await.unwrap_err();
    assert!(missing.message.starts_with("could not read /nonexistent/people.csv"), "{}", missing.message);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cli_dry_runs_then_applies_on_the_test_backend() {
    the_cli_dry_runs_then_applies(spawn_app().await).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cli_dry_runs_then_applies_on_postgres() {
    the_cli_dry_runs_then_applies(spawn_postgres_app().await).await;
}
