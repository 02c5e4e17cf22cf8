use crate::helpers::*;
use engine::operations::OperationsReport;
use server::cli::ops_cli::{run as ops_cli, Ops};
use server::cli::{run_memory, Memory};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memory_roles_and_core_print_lines_shaped_like_the_seed() {
    let app = spawn_app().await;
    let ada = app.sign_in("ada").await;
    app.save_core(&ada, "company:role:sales", 0, "Stages: New, Qualified, Proposal, Won, Lost.").await;
    let mut out = Vec::new();
    run_memory(&Memory::Roles, Some(app.database_url.clone()), &mut out).await.unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("Sales (role:sales): company core version 1, 11 of 2,000 tokens\n"), "{text}");
    assert!(text.contains("Support (role:support): no company core yet (limit 2,000 tokens)\n"));

    let mut out = Vec::new();
    run_memory(&Memory::Core { scope: "company:role:sales".into() }, Some(app.database_url.clone()), &mut out)
        .await
        .unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(text.starts_with("Sales company core, version 1, saved by Ada Lovelace on "), "{text}");
    assert!(text.contains("(11 of 2,000 tokens)"));
    assert!(text.ends_with("Stages: New, Qualified, Proposal, Won, Lost.\n"));

    let missing = run_memory(&Memory::Roles, Some("sqlite:///nonexistent/x.db".into()), &mut Vec::new()).await;
    assert!(missing.unwrap_err().contains("There is no database"));
}

/// `engram erase`: from its argument as an admin, or from stdin as the host's operator, with the
/// same counts and sentence as the page; a refusal exits 3 with the reason and changes nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn erase_takes_the_value_from_its_argument_or_stdin_and_refuses_in_words() {
    use engine::erasure::service::ADMIN_ONLY;
    use engine::erasure::{ErasureRecord, SOURCE_MAY_KEEP_AGAIN};
    use server::cli::erase_cli;

    let app = spawn_app().await;
    crate::erasure::seed_dana(&app).await;
    let before = crate::erasure::dana_traces(&app).await;

    let mut out = Vec::new();
    let e = erase_cli::run(&app.settings, Some("Dana Brooks"), Some("ada"), &mut "".as_bytes(), &mut out)
        .await
        .unwrap_err();
    assert_eq!(e.code, 3);
    assert!(e.message.starts_with("That is neither an email address nor a phone number"), "{}", e.message);
    let e = erase_cli::run(&app.settings, Some("415.555.0142"), Some("alice"), &mut "".as_bytes(), &mut out)
        .await
        .unwrap_err();
    assert_eq!((e.code, e.message.as_str()), (3, ADMIN_ONLY));
    assert_eq!(crate::erasure::dana_traces(&app).await, before, "nothing was changed");
    assert!(out.is_empty());

    erase_cli::run(
        &app.settings,
        Some("mailto:Dana.Brooks@Litware.example"),
        Some("ada"),
        &mut "".as_bytes(),
        &mut out,
    )
    .await
    .unwrap();
    assert_eq!(
        String::from_utf8(std::mem::take(&mut out)).unwrap(),
        format!(
            "Removed 1 card, 1 list snapshot, 1 lesson and 1 who's-who entry naming that email address. \
             {SOURCE_MAY_KEEP_AGAIN}\n"
        )
    );
    // Without an argument the value is the first line of stdin, so it stays out of the shell's history.
    erase_cli::run(&app.settings, None, None, &mut "+1 (415) 555-0142\n".as_bytes(), &mut out).await.unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        format!(
            "Removed 0 cards, 0 list snapshots, 1 lesson and 0 who's-who entries naming that phone number. Also \
             removed: 1 saved API answer. {SOURCE_MAY_KEEP_AGAIN}\n"
        )
    );
    assert!(crate::erasure::dana_traces(&app).await.is_empty());
    let audits: Vec<_> =
        app.store.audit_log(100).await.unwrap().into_iter().filter(|a| a.action == ErasureRecord::ACTION).collect();
    assert_eq!(audits.len(), 2);
    assert_eq!(audits[0].actor, None, "the host's operator");
    assert!(audits[1].actor.is_some(), "ada");

    let mut nowhere = app.settings.clone();
    nowhere.database_url = "sqlite:///nonexistent/engram.db".into();
    let e =
        erase_cli::run(&nowhere, Some("415.555.0142"), None, &mut "".as_bytes(), &mut Vec::new()).await.unwrap_err();
    assert_eq!(e.code, 1);
    assert!(e.message.starts_with("There is no database at /nonexistent/engram.db"), "{}", e.message);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn engram_ops_report_prints_the_report_in_words_and_as_json() {
    let app = spawn_app().await;
    let mut out = Vec::new();
    ops_cli(&Ops::Report { json: false }, &app.settings, &mut out).await.unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(text.starts_with("Operations at "), "{text}");
    assert!(text.contains("(days in Asia/Kolkata)\nPeople: 7\nMemory on disk: "), "{text}");
    for line in [
        "  Cards: ",
        "  Bots' rows: ",
        "Oldest card past its hard limit: ",
        "At 10,000 people (projected from 7 people",
    ] {
        assert!(text.contains(line), "{line}: {text}");
    }

    let mut out = Vec::new();
    ops_cli(&Ops::Report { json: true }, &app.settings, &mut out).await.unwrap();
    let report: OperationsReport = serde_json::from_slice(&out).expect("the report as JSON");
    let ada = app.sign_in("ada").await;
    let served = crate::operations::report(&app, &ada).await;
    assert_eq!((report.people, report.time_zone.as_str(), report.days.len()), (7, "Asia/Kolkata", 30));
    assert_eq!(
        report.layers.iter().map(|l| l.rows).collect::<Vec<_>>(),
        served.layers.iter().map(|l| l.rows).collect::<Vec<_>>(),
        "the same rows as the page"
    );

    let mut missing = app.settings.clone();
    missing.database_url = "sqlite:///nonexistent/x.db".into();
    let refused = ops_cli(&Ops::Report { json: false }, &missing, &mut Vec::new()).await.unwrap_err();
    assert_eq!(refused, "There is no database at /nonexistent/x.db; start Engram (or the demo) first.");
}
