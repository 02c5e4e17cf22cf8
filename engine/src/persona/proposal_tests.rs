use super::*;

const ORG: &str = "\
agents:
  builder:
    personality: Careful and brief.
    goal: Ship small, tested changes.
    principles:
      - Read the issue twice.
    tools: [git, cargo]
    model: cheap
  reviewer:
    personality: Strict.
    tools: [git]
";

fn knowledge() -> Vec<String> {
    vec!["knowledge/builder".to_string()]
}

fn org(diff: &str) -> Result<ValidChange, ProposalRefusal> {
    validate_proposal("builder", &knowledge(), &Target { path: ORG_YAML, is_symlink: false, current_text: ORG }, diff)
}

#[test]
fn a_prose_change_to_its_own_block_passes() {
    let diff = "@@ -3,2 +3,2 @@\n-    personality: Careful and brief.\n+    personality: Careful, brief and kind.\n     goal: Ship small, tested changes.\n";
    let ok = org(diff).unwrap();
    assert!(ok.new_text.contains("personality: Careful, brief and kind."));
    assert_eq!(ok.changed_lines, 2);
    assert!(ok.new_text.ends_with("tools: [git]\n"));
}

#[test]
fn a_prose_change_holding_a_secret_is_refused() {
    let key = ["sk-", "proj-", "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"].concat();
    let diff = format!(
            "@@ -3,2 +3,2 @@\n-    personality: Careful and brief.\n+    personality: Careful; my key is {key}\n     goal: Ship small, tested changes.\n"
        );
    match org(&diff).unwrap_err() {
        ProposalRefusal::Secret(refused) => {
            assert_eq!(refused.finding.kind, crate::secrets::SecretKind::OpenAiKey);
            assert_eq!(refused.finding.line, 3);
            assert!(!refused.to_string().contains(&key));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn file_headers_are_accepted_before_the_hunks() {
    let diff = "--- a/.agents/org/org.yaml\n+++ b/.agents/org/org.yaml\n@@ -4,1 +4,1 @@\n-    goal: Ship small, tested changes.\n+    goal: Ship small changes with tests.\n";
    assert!(org(diff).unwrap().new_text.contains("goal: Ship small changes with tests."));
}

#[test]
fn a_list_item_under_a_prose_key_passes() {
    let diff = "@@ -6,1 +6,2 @@\n       - Read the issue twice.\n+      - Run the tests before asking for review.\n";
    assert!(org(diff).is_ok());
}

#[test]
fn a_change_to_tools_is_refused_naming_the_key() {
    let diff = "@@ -7,1 +7,1 @@\n-    tools: [git, cargo]\n+    tools: [git, cargo, curl]\n";
    assert_eq!(org(diff).unwrap_err(), ProposalRefusal::NotProse("tools".into()));
    assert!(org(diff).unwrap_err().to_string().contains("touches tools"));
}

#[test]
fn adding_a_non_prose_key_is_refused() {
    let diff = "@@ -4,1 +4,2 @@\n     goal: Ship small, tested changes.\n+    wakes_per_day: 50\n";
    assert_eq!(org(diff).unwrap_err(), ProposalRefusal::NotProse("wakes_per_day".into()));
    let diff = "@@ -8,1 +8,1 @@\n-    model: cheap\n+    model: best\n";
    assert_eq!(org(diff).unwrap_err(), ProposalRefusal::NotProse("model".into()));
}

#[test]
fn another_agents_block_is_refused() {
    let diff = "@@ -10,1 +10,1 @@\n-    personality: Strict.\n+    personality: Lenient.\n";
    assert_eq!(org(diff).unwrap_err(), ProposalRefusal::OtherAgent("reviewer".into()));
}

#[test]
fn renaming_its_own_block_is_refused() {
    let diff = "@@ -2,1 +2,1 @@\n-  builder:\n+  admin:\n";
    assert!(matches!(org(diff).unwrap_err(), ProposalRefusal::NotProse(_) | ProposalRefusal::OtherAgent(_)));
}

#[test]
fn a_diff_that_does_not_apply_is_refused() {
    let diff = "@@ -3,1 +3,1 @@\n-    personality: Someone else.\n+    personality: Me.\n";
    assert!(matches!(org(diff).unwrap_err(), ProposalRefusal::DoesNotApply(_)));
    assert!(matches!(org("not a diff").unwrap_err(), ProposalRefusal::Malformed(_)));
    assert!(matches!(org("@@ -x +y @@\n").unwrap_err(), ProposalRefusal::Malformed(_)));
}

#[test]
fn more_than_40_changed_lines_is_a_rewrite() {
    let current: String = (0..50).map(|i| format!("line {i}\n")).collect();
    let mut diff = String::from("@@ -1,21 +1,21 @@\n");
    for i in 0..21 {
        diff.push_str(&format!("-line {i}\n+LINE {i}\n"));
    }
    let t = Target { path: "knowledge/builder/notes.md", is_symlink: false, current_text: &current };
    assert_eq!(validate_proposal("builder", &knowledge(), &t, &diff).unwrap_err(), ProposalRefusal::TooLarge(42));
    let mut small = String::from("@@ -1,20 +1,20 @@\n");
    for i in 0..20 {
        small.push_str(&format!("-line {i}\n+LINE {i}\n"));
    }
    assert_eq!(validate_proposal("builder", &knowledge(), &t, &small).unwrap().changed_lines, 40);
}

#[test]
fn markdown_under_its_knowledge_paths_passes() {
    let t = Target { path: "knowledge/builder/testing.md", is_symlink: false, current_text: "# Testing\nRun it.\n" };
    let diff = "@@ -2,1 +2,1 @@\n-Run it.\n+Run it twice.\n";
    assert_eq!(validate_proposal("builder", &knowledge(), &t, diff).unwrap().new_text, "# Testing\nRun it twice.\n");
}

#[test]
fn files_outside_its_own_are_refused() {
    let diff = "@@ -1,1 +1,1 @@\n-a\n+b\n";
    for path in ["knowledge/reviewer/x.md", "knowledge/builder/run.sh", "README.md", "knowledge/builderx/y.md"] {
        let t = Target { path, is_symlink: false, current_text: "a\n" };
        assert_eq!(
            validate_proposal("builder", &knowledge(), &t, diff).unwrap_err(),
            ProposalRefusal::NotOwnFile(path.into()),
            "{path}"
        );
    }
}

#[test]
fn the_harness_and_owner_files_are_refused_whatever_the_config_says() {
    let diff = "@@ -1,1 +1,1 @@\n-a\n+b\n";
    let everything = vec!["".to_string(), "knowledge/builder".to_string(), ".claude".to_string()];
    for path in [
        "AGENTS.md",
        "CLAUDE.md",
        ".claude/settings.md",
        "knowledge/builder/hooks/pre.md",
        "guard/rules.md",
        "CURRENT/today.md",
        ".env",
        "knowledge/builder/CLAUDE.md",
        "Areas/Finance/budget.md",
        "knowledge/builder/Areas/Finance/q3.md",
        "current/today.md",
        "areas/FINANCE/x.md",
        "knowledge/builder/.env.local",
    ] {
        let t = Target { path, is_symlink: false, current_text: "a\n" };
        assert_eq!(
            validate_proposal("builder", &everything, &t, diff).unwrap_err(),
            ProposalRefusal::Protected(path.into()),
            "{path}"
        );
    }
}

#[test]
fn a_protected_area_is_judged_as_the_vault_opens_the_path_and_other_spellings_are_refused() {
    use OffLimits::*;
    for (path, why) in [
        ("Areas/Finance/budget.md", Err(Protected)),
        // The case: an empty folder is skipped when the file is opened.
        ("Areas//Finance/budget.md", Err(Protected)),
        ("Areas///Finance/budget.md", Err(Protected)),
        ("Areas/Finance//budget.md", Err(Protected)),
        ("Areas/Finance/", Err(Protected)),
        ("Areas/Finance", Err(Protected)),
        ("./Areas/Finance/budget.md", Err(EscapesVault)),
        ("Areas/./Finance/budget.md", Err(EscapesVault)),
        ("Areas/x/../Finance/budget.md", Err(EscapesVault)),
        ("Areas\\Finance\\budget.md", Err(Protected)),
        ("Areas/Finance\\budget.md", Err(Protected)),
        ("AREAS/finance/budget.md", Err(Protected)),
        ("areas//FINANCE/budget.md", Err(Protected)),
        ("knowledge//Areas/Finance/x.md", Err(Protected)),
        ("a//CURRENT/x.md", Err(Protected)),
        ("a//.env", Err(Protected)),
        ("a/.ENV.local", Err(Protected)),
        // Not protected, but not written the one way the vault opens it either.
        ("knowledge//builder/a.md", Err(NotNormal)),
        ("knowledge/builder/a.md/", Err(NotNormal)),
        ("knowledge/builder/", Err(NotNormal)),
        ("knowledge\\builder\\a.md", Err(NotNormal)),
        ("knowledge/builder\\a.md", Err(NotNormal)),
        ("Areas/Marketing//plan.md", Err(NotNormal)),
        ("knowledge/builder/a.md", Ok(())),
        ("Areas/Marketing/plan.md", Ok(())),
        ("Areas/Financed/x.md", Ok(())),
        ("MyAreas/Finance/x.md", Ok(())),
    ] {
        assert_eq!(check_vault_path(path), why, "{path}");
    }
}

#[test]
fn the_vault_rule_is_the_same_for_every_path_the_bots_side_touches() {
    for path in [".env", "CURRENT/x.md", "Areas/Finance/q3.jsonl", "a/hooks/b", ".claude/x", ".Env"] {
        assert_eq!(check_vault_path(path), Err(OffLimits::Protected), "{path}");
    }
    for path in ["../x", "/etc/passwd", "", "a/./b", "c:x"] {
        assert_eq!(check_vault_path(path), Err(OffLimits::EscapesVault), "{path}");
    }
    for path in
        [".agents/org/runs/r1.jsonl", "Areas/Marketing/plan.md", "Finance/Areas/x.md", "envelope.md", ".environment"]
    {
        assert_eq!(check_vault_path(path), Ok(()), "{path}");
    }
}

#[test]
fn paths_that_escape_the_vault_or_are_links_are_refused() {
    let diff = "@@ -1,1 +1,1 @@\n-a\n+b\n";
    for path in ["../outside.md", "/etc/passwd", "knowledge/builder/../../x.md", "C:\\x.md", "./knowledge/builder/a.md"]
    {
        let t = Target { path, is_symlink: false, current_text: "a\n" };
        assert_eq!(
            validate_proposal("builder", &knowledge(), &t, diff).unwrap_err(),
            ProposalRefusal::EscapesVault(path.into()),
            "{path}"
        );
    }
    let t = Target { path: "knowledge/builder/linked.md", is_symlink: true, current_text: "a\n" };
    assert_eq!(
        validate_proposal("builder", &knowledge(), &t, diff).unwrap_err(),
        ProposalRefusal::Symlink("knowledge/builder/linked.md".into())
    );
}

#[test]
fn an_explicit_key_under_a_prose_key_is_refused_naming_the_key() {
    let diff = "@@ -4,1 +4,3 @@\n     goal: Ship small, tested changes.\n+    ? permission_mode_override\n+    : full_access\n";
    let e = org(diff).unwrap_err();
    assert_eq!(e, ProposalRefusal::NotProse("permission_mode_override".into()));
    assert!(e.to_string().contains("the change touches permission_mode_override, which is not prose"), "{e}");
    // A key with a space in it is a key all the same.
    let diff = "@@ -4,1 +4,2 @@\n     goal: Ship small, tested changes.\n+    permission mode: full_access\n";
    assert_eq!(org(diff).unwrap_err(), ProposalRefusal::NotProse("permission mode".into()));
}

#[test]
fn forms_a_reviewer_would_not_spot_are_refused_even_on_prose() {
    let goal = "-    goal: Ship small, tested changes.\n";
    for (added, form, at_line) in [
        ("+    ? goal\n+    : Ship it.\n", "an explicit key (?)", 4),
        ("+    goal: &g Ship it.\n", "an anchor (&)", 4),
        ("+    goal: !!str Ship it.\n", "a tag (!)", 4),
        ("+    goal:\n+      <<: {model: best}\n", "a merge key (<<)", 5),
    ] {
        let diff = format!("@@ -4,1 +4,2 @@\n{goal}{added}");
        match org(&diff) {
            Err(ProposalRefusal::HiddenForm { form: f, line, at }) => {
                assert_eq!((f.as_str(), line), (form, at_line), "{diff}");
                assert!(at.starts_with("agents.builder.goal"), "{at}");
            }
            other => panic!("{diff}: {other:?}"),
        }
    }
    let diff = "@@ -3,2 +3,2 @@\n-    personality: Careful and brief.\n+    personality: &p Careful and brief.\n-    goal: Ship small, tested changes.\n+    goal: *p\n";
    assert!(matches!(org(diff).unwrap_err(), ProposalRefusal::HiddenForm { .. }));
}

#[test]
fn a_change_is_judged_by_what_the_file_means() {
    let broken = "@@ -4,1 +4,1 @@\n-    goal: Ship small, tested changes.\n+    goal: [unclosed\n";
    assert!(matches!(org(broken).unwrap_err(), ProposalRefusal::BrokenYaml(_)));
    let twice = "@@ -4,1 +4,2 @@\n     goal: Ship small, tested changes.\n+    goal: Ship it.\n";
    assert!(org(twice).unwrap_err().to_string().contains("the key goal appears twice"));
    let top = "@@ -1,1 +1,2 @@\n+version: 2\n agents:\n";
    assert_eq!(org(top).unwrap_err(), ProposalRefusal::OutsideBlocks);
    let quoted = "@@ -7,1 +7,1 @@\n-    tools: [git, cargo]\n+    \"tools\": [git, cargo, curl]\n";
    assert_eq!(org(quoted).unwrap_err(), ProposalRefusal::NotProse("tools".into()));
    // Prose may be rewritten in any plain form, and a comment changes nothing.
    let folded = "@@ -4,1 +4,3 @@\n-    goal: Ship small, tested changes.\n+    goal: >-\n+      Ship small changes,\n+      each with a test.\n";
    assert!(org(folded).unwrap().new_text.contains("each with a test."));
    let comment = "@@ -4,1 +4,2 @@\n     goal: Ship small, tested changes.\n+    # tools: [shell]\n";
    assert!(org(comment).is_ok());
    let t = Target { path: ORG_YAML, is_symlink: false, current_text: "agents: [\n" };
    let diff = "@@ -1,1 +1,1 @@\n-agents: [\n+agents: []\n";
    assert!(matches!(validate_proposal("builder", &knowledge(), &t, diff), Err(ProposalRefusal::UnreadableNow(_))));
}

#[test]
fn an_empty_change_is_refused() {
    let diff = "@@ -3,1 +3,1 @@\n     personality: Careful and brief.\n";
    assert_eq!(org(diff).unwrap_err(), ProposalRefusal::Empty);
}

/// The oracle: another YAML parser, independent of the validator's.
mod oracle {
    use super::super::*;
    use proptest::prelude::*;
    use yaml_rust2::{Yaml, YamlLoader};

    const BASE: &str = "\
# The bots.
defaults:
  model: &m cheap
agents:
  builder:
    personality: Careful and brief.
    goal: Ship small, tested changes.
    principles:
      - Read the issue twice.
    tools: [git, cargo]
    model: *m
  reviewer:
    personality: Strict.
    tools: [git]
";

    const POOL: [&str; 36] = [
        "    goal: Ship it.",
        "    goal: &g Ship it.",
        "    personality: *m",
        "    description: *m",
        "    tools: [git, cargo, curl]",
        "    ? permission_mode_override",
        "    : full_access",
        "    ? goal",
        "    : Ship it.",
        "      - Ask first.",
        "      - <<: {model: best}",
        "    <<: {model: best}",
        "    model: best",
        "    wakes_per_day: 50",
        "    permission mode: full",
        "  admin:",
        "  reviewer:",
        "    personality: Lenient.",
        "agents:",
        "defaults:",
        "  model: &m best",
        "# a comment",
        "",
        "    goal: |",
        "      tools: [shell]",
        "    goal: !!str Ship.",
        "    description: \"Quoted: yes\"",
        "---",
        "    goal: {tools: [shell]}",
        "  builder: {tools: [x]}",
        "\ttools: [x]",
        "    \"model\": best",
        "    model : best",
        "      tools: [x]",
        "  - x",
        "    principles: &p [a]",
    ];

    fn hash(y: &Yaml) -> Option<&yaml_rust2::yaml::Hash> {
        y.as_hash()
    }

    fn same_except(old: &Yaml, new: &Yaml, spare: &dyn Fn(&Yaml) -> bool) -> Result<(), TestCaseError> {
        let (Some(o), Some(n)) = (hash(old), hash(new)) else {
            prop_assert_eq!(old, new);
            return Ok(());
        };
        for k in o.keys().chain(n.keys()) {
            if !spare(k) {
                prop_assert_eq!(o.get(k), n.get(k), "key {:?}", k);
            }
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1024))]
        #[test]
        fn an_accepted_change_leaves_every_non_prose_key_and_every_other_block_equal(
            start in 0usize..=14,
            removed in 0usize..3,
            added in proptest::collection::vec(proptest::sample::select(POOL.to_vec()), 0..4),
        ) {
            let old: Vec<&str> = BASE.lines().collect();
            let removed = removed.min(old.len() - start);
            let mut diff = format!("@@ -{},{removed} +{},{} @@\n", start + 1, start + 1, added.len());
            for line in &old[start..start + removed] {
                diff.push_str(&format!("-{line}\n"));
            }
            for line in &added {
                diff.push_str(&format!("+{line}\n"));
            }
            let target = Target { path: ORG_YAML, is_symlink: false, current_text: BASE };
            if let Ok(ok) = validate_proposal("builder", &[], &target, &diff) {
                let before = YamlLoader::load_from_str(BASE).unwrap();
                let after = YamlLoader::load_from_str(&ok.new_text);
                prop_assert!(after.is_ok(), "accepted an unreadable file: {diff}");
                let after = after.unwrap();
                prop_assert_eq!(after.len(), 1, "{}", diff);
                let agents = Yaml::String("agents".into());
                same_except(&before[0], &after[0], &|k| *k == agents)?;
                let (old_agents, new_agents) = (&before[0]["agents"], &after[0]["agents"]);
                let builder = Yaml::String("builder".into());
                same_except(old_agents, new_agents, &|k| *k == builder)?;
                prop_assert!(new_agents["builder"].as_hash().is_some(), "{}", diff);
                same_except(&old_agents["builder"], &new_agents["builder"], &|k| {
                    k.as_str().is_some_and(|k| PROSE_KEYS.contains(&k))
                })?;
            }
        }
    }
}
