use crate::helpers::*;
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
