//! What a bot proposes for its vault: org.yaml as YAML reads it, and a proposal's diff.

use super::*;

// ---- org.yaml ------------------------------------------------------------------------------------

/// Text made of YAML's own pieces, so the parser's corners are reached rather than its first error.
fn yaml_soup() -> impl Strategy<Value = String> {
    let piece = prop::sample::select(vec![
        "agents:",
        "builder:",
        "  ",
        "    ",
        "\n",
        "- ",
        ": ",
        "? ",
        "&a ",
        "*a",
        "&b ",
        "*b",
        "!tag ",
        "!!str ",
        "<<: ",
        "{",
        "}",
        "[",
        "]",
        ", ",
        "'",
        "\"",
        "#",
        "|",
        ">",
        "---\n",
        "...\n",
        "personality: ",
        "goal",
        "x",
        "4",
        "\t",
        "\\",
        "%YAML 1.2\n",
        "@",
        "`",
        "\u{feff}",
        "é",
    ]);
    prop_oneof![
        4 => prop::collection::vec(piece, 0..60).prop_map(|p| p.concat()),
        1 => text(),
        // Aliases of aliases: a few lines that would expand to billions of nodes.
        1 => (1usize..12).prop_map(|n| {
            let mut t = "a0: &a0 [x, x, x, x, x, x, x, x, x]\n".to_string();
            for i in 1..=n {
                let p = i - 1;
                t.push_str(&format!("a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"));
            }
            t
        }),
    ]
}

/// A tree of plain mappings, sequences and words, as org.yaml holds.
fn yaml_tree() -> impl Strategy<Value = Node> {
    let word = "[a-z][a-z0-9_]{0,7}";
    let leaf = word.prop_map(|text| Node::Scalar { text, plain: true, tag: None });
    leaf.prop_recursive(4, 40, 5, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 1..5).prop_map(|items| Node::Seq { items, tag: None }),
            prop::collection::btree_map(word, inner, 1..5)
                .prop_map(|m| Node::Map { entries: m.into_iter().collect(), tag: None }),
        ]
    })
}

/// Block-style YAML for a tree, as a person writes org.yaml.
fn render_yaml(node: &Node, indent: usize, out: &mut String) {
    let pad = " ".repeat(indent);
    let item = |lead: &str, value: &Node, out: &mut String| match value {
        Node::Scalar { text, .. } => out.push_str(&format!("{pad}{lead} {text}\n")),
        nested => {
            out.push_str(&format!("{pad}{lead}\n"));
            render_yaml(nested, indent + 2, out);
        }
    };
    match node {
        Node::Scalar { text, .. } => out.push_str(&format!("{pad}{text}\n")),
        Node::Seq { items, .. } => items.iter().for_each(|v| item("-", v, out)),
        Node::Map { entries, .. } => entries.iter().for_each(|(k, v)| item(&format!("{k}:"), v, out)),
    }
}

#[test]
fn fuzz_org_yaml() {
    fuzz("org.yaml", yaml_soup(), |text| {
        let loaded = org_yaml::load(&text);
        prop_assert_eq!(&loaded, &org_yaml::load(&text), "the same text reads the same");
        if let Ok(doc) = loaded {
            let lines = text.lines().count().max(1) + 1;
            for f in &doc.forms {
                prop_assert!(f.first_line <= f.last_line && f.last_line <= lines, "{f:?}");
            }
        }
        Ok(())
    });
}

/// A tree written out as block YAML reads back as the same tree, and with no hidden form.
#[test]
fn fuzz_org_yaml_round_trip() {
    fuzz("org.yaml round trip", yaml_tree(), |tree| {
        let mut text = String::new();
        render_yaml(&tree, 0, &mut text);
        let doc = org_yaml::load(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(&doc.root, &tree, "{}", text);
        prop_assert!(doc.forms.is_empty());
        Ok(())
    });
}

// ---- The proposal diff ---------------------------------------------------------------------------

const ORG: &str = "\
agents:
  builder:
    personality: Careful and brief.
    goal: Ship small changes.
    tools: [read, write]
  scout:
    personality: Curious.
settings:
  review: true
";

#[derive(Debug, Clone)]
enum Edit {
    Keep(String),
    Remove(String),
    Add(String),
}

/// A diff from an edit script: the old text is the kept and removed lines, the new the kept and
/// added ones.
fn diff_of(edits: &[Edit], header: bool) -> (String, String, String) {
    let (mut old, mut new, mut diff) = (String::new(), Vec::new(), String::new());
    if header {
        diff.push_str("--- a/notes/x.md\n+++ b/notes/x.md\n");
    }
    diff.push_str("@@ -1,1 +1,1 @@\n");
    for e in edits {
        let (mark, line) = match e {
            Edit::Keep(l) => (' ', l),
            Edit::Remove(l) => ('-', l),
            Edit::Add(l) => ('+', l),
        };
        diff.push(mark);
        diff.push_str(line);
        diff.push('\n');
        if !matches!(e, Edit::Add(_)) {
            old.push_str(line);
            old.push('\n');
        }
        if !matches!(e, Edit::Remove(_)) {
            new.push(line.clone());
        }
    }
    (old, new.join("\n") + "\n", diff)
}

#[test]
fn fuzz_proposal_diff() {
    let knowledge = vec!["notes".to_string()];
    let line = prop_oneof![plain_words(0..6), "[-+ @a-z\\\\]{0,12}"];
    let edit =
        prop_oneof![line.clone().prop_map(Edit::Keep), line.clone().prop_map(Edit::Remove), line.prop_map(Edit::Add)];
    let structured = (prop::collection::vec(edit, 0..50), any::<bool>()).prop_map(|(edits, header)| {
        let (old, new, diff) = diff_of(&edits, header);
        (old, diff, Some((new, edits.iter().filter(|e| !matches!(e, Edit::Keep(_))).count())))
    });
    let soup = prop::sample::select(vec![
        "@@ ",
        "@@ -1 +1 @@\n",
        "-1,2 ",
        "+1,2",
        " @@",
        "\n",
        "-",
        "+",
        " ",
        "x",
        "--- ",
        "+++ ",
        "\\ No newline at end of file\n",
        "é",
    ]);
    let random = (text(), prop_oneof![text(), prop::collection::vec(soup, 0..30).prop_map(|p| p.concat())])
        .prop_map(|(current, diff)| (current, diff, None));
    fuzz("proposal diff", prop_oneof![2 => structured, 1 => random], |(current, diff, expected)| {
        let target = Target { path: "notes/x.md", is_symlink: false, current_text: &current };
        let result = validate_proposal(AGENT, &knowledge, &target, &diff);
        if let Ok(change) = &result {
            prop_assert!(change.changed_lines >= 1 && change.changed_lines <= 40);
        }
        if let Some((new, changed)) = expected {
            match (changed, result) {
                (0, r) => prop_assert_eq!(r, Err(ProposalRefusal::Empty)),
                (n, r) if n > 40 => prop_assert_eq!(r, Err(ProposalRefusal::TooLarge(n))),
                (n, Ok(change)) => {
                    prop_assert_eq!(change.new_text, new);
                    prop_assert_eq!(change.changed_lines, n);
                }
                (_, Err(e)) => return Err(TestCaseError::fail(format!("a clean diff was refused: {e}"))),
            }
        }
        Ok(())
    });
}

/// Diffs of org.yaml: whatever passes leaves it readable YAML, and another agent's block as it was.
#[test]
fn fuzz_proposal_org_yaml() {
    let knowledge: Vec<String> = vec![];
    let old: Vec<&str> = ORG.lines().collect();
    let line = prop_oneof![
        plain_words(1..4).prop_map(|w| format!("    personality: {w}")),
        plain_words(1..4).prop_map(|w| format!("    goal: {w}")),
        plain_words(1..4).prop_map(|w| format!("    personality: &a {w}")),
        Just("    personality: *a".to_string()),
        Just("    ? tools".to_string()),
        Just("  scout: {personality: Bold.}".to_string()),
        "[ -~]{0,20}",
    ];
    let input = prop::collection::vec((any::<bool>(), prop::option::of(line)), old.len()).prop_map(move |choices| {
        let mut diff = String::from("--- a\n+++ b\n@@ -1,9 +1,9 @@\n");
        for (l, (remove, add)) in old.iter().zip(choices) {
            diff.push_str(&format!("{}{l}\n", if remove { '-' } else { ' ' }));
            if let Some(a) = add {
                diff.push_str(&format!("+{a}\n"));
            }
        }
        diff
    });
    fuzz("proposal org.yaml", input, |diff| {
        let target = Target { path: ORG_YAML, is_symlink: false, current_text: ORG };
        if let Ok(change) = validate_proposal(AGENT, &knowledge, &target, &diff) {
            let doc = org_yaml::load(&change.new_text).map_err(TestCaseError::fail)?;
            let before = org_yaml::load(ORG).unwrap();
            let scout = |d: &org_yaml::Doc| {
                d.root
                    .entries()
                    .and_then(|e| org_yaml::get(e, "agents"))
                    .cloned()
                    .and_then(|a| a.entries().and_then(|e| org_yaml::get(e, "scout")).cloned())
            };
            prop_assert_eq!(scout(&doc), scout(&before));
        }
        Ok(())
    });
}
