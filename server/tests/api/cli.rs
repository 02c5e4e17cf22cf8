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
