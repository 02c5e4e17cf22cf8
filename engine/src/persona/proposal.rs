//! The validator for a bot's proposed change to itself. A proposal that passes becomes a card a
//! person applies or closes; nothing here writes a file.

use super::org_yaml::{self, get, union_keys, Node};
use serde::{Deserialize, Serialize};
use std::collections::HashSet;

pub const ORG_YAML: &str = ".agents/org/org.yaml";
pub const MAX_CHANGED_LINES: usize = 40;
/// The keys of an agent's org.yaml block that a proposal may change: its prose.
pub const PROSE_KEYS: [&str; 7] = ["personality", "goal", "perspective", "style", "voice", "principles", "description"];
/// The harness and the owner's files, refused whatever a config says: a path is refused when any
/// run of its folders and name matches one of these. Compared without case, since a vault on a
/// case-insensitive disk opens `current/` as `CURRENT/`.
const PROTECTED: [&[&str]; 8] = [
    &["AGENTS.md"],
    &["CLAUDE.md"],
    &[".claude"],
    &["guard"],
    &["hooks"],
    &["CURRENT"],
    &["Areas", "Finance"],
    &[".env"],
];

/// Why a vault path is off limits to everything on the bots' side, whatever it is wanted for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
pub enum OffLimits {
    #[error("it is outside the vault; name a relative path inside it")]
    EscapesVault,
    #[error("it is a symbolic link, and only plain files are read")]
    Symlink,
    #[error("it is a hard link, which may be a file outside the vault or a protected one under another name; only files with one name are read")]
    HardLink,
    #[error("it belongs to the harness or the owner, and nothing the bots remember reads it")]
    Protected,
    #[error("it is not written the one way the vault opens it; write it without `//`, a trailing `/` or backslashes")]
    NotNormal,
}

fn is_protected(components: &[&str]) -> bool {
    PROTECTED
        .iter()
        .any(|p| components.windows(p.len()).any(|w| w.iter().zip(p.iter()).all(|(c, p)| c.eq_ignore_ascii_case(p))))
        || components.iter().any(|c| {
            // `.env.local`, `.env.production`: the same secrets under another name.
            c.get(..5).is_some_and(|head| head.eq_ignore_ascii_case(".env."))
        })
}

/// The one rule for where a vault path the bots' side touches may lie: a relative path inside the
/// vault, clear of the harness and the owner's files. Proposal targets and run transcripts both
/// pass through it; whether the path goes through a link is asked of the disk after it.
///
/// The protected areas are judged on the path as the vault opens it: empty folders dropped
/// (`Areas//Finance` opens `Areas/Finance`), either slash a separator (as on Windows), and
/// without case. A path spelled any other way than that one form is then refused too, so that
/// no spelling is judged differently from the file it opens.
pub fn check_vault_path(path: &str) -> Result<(), OffLimits> {
    let components: Vec<&str> = path.split(['/', '\\']).collect();
    let escapes = path.is_empty()
        || path.starts_with('/')
        || path.starts_with('\\')
        || path.contains(':')
        || components.iter().any(|c| *c == ".." || *c == ".");
    if escapes {
        return Err(OffLimits::EscapesVault);
    }
    let opened: Vec<&str> = components.into_iter().filter(|c| !c.is_empty()).collect();
    if is_protected(&opened) {
        return Err(OffLimits::Protected);
    }
    if opened.join("/") != path {
        return Err(OffLimits::NotNormal);
    }
    Ok(())
}

/// Why a proposal was refused, in a sentence that names the rule.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
pub enum ProposalRefusal {
    #[error("{0} is outside the vault: a proposal names a relative path inside it")]
    EscapesVault(String),
    #[error("{0} is a symbolic link; proposals change only plain files")]
    Symlink(String),
    #[error("{0} is a hard link; proposals change only files with one name")]
    HardLink(String),
    #[error("{0} belongs to the harness or the owner and is never changed by a proposal")]
    Protected(String),
    #[error("{0} is not written the one way the vault opens it; write it without `//`, a trailing `/` or backslashes")]
    NotNormal(String),
    #[error("{0} is not this agent's own file: only its block in .agents/org/org.yaml or a markdown file under its knowledge paths")]
    NotOwnFile(String),
    #[error("the change touches {0}, which is not prose: only personality, goal, perspective, style, voice, principles and description may change")]
    NotProse(String),
    #[error("the change touches the block of another agent, {0}")]
    OtherAgent(String),
    #[error("the change touches org.yaml outside any agent's block")]
    OutsideBlocks,
    #[error("line {line} adds {form} at {at}, which a reviewer would not spot in a diff; a proposal writes plain keys and values")]
    HiddenForm { line: usize, form: String, at: String },
    #[error("the change leaves .agents/org/org.yaml unreadable as YAML: {0}")]
    BrokenYaml(String),
    #[error(".agents/org/org.yaml is not readable as YAML as it stands ({0}); a person fixes it before any proposal")]
    UnreadableNow(String),
    #[error("the change has {0} changed lines; at most 40 may change, so a rewrite is refused")]
    TooLarge(usize),
    #[error("the change is empty")]
    Empty,
    #[error("the diff is not a unified diff: {0}")]
    Malformed(String),
    #[error("the diff does not apply cleanly to the current text: {0}")]
    DoesNotApply(String),
    #[error("{0}")]
    Secret(crate::secrets::SecretRefusal),
}

/// What passed: the new text, and how many lines changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ValidChange {
    pub new_text: String,
    pub changed_lines: usize,
}

/// The target file as the caller found it in the vault.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target<'a> {
    /// The path inside the vault, as the proposal names it.
    pub path: &'a str,
    /// Whether the path or any folder on the way is a symbolic link.
    pub is_symlink: bool,
    /// The file's exact current text.
    pub current_text: &'a str,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Op {
    Keep(String),
    Remove(String),
    Add(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Hunk {
    /// Zero-based line of the old text where the hunk starts.
    old_start: usize,
    ops: Vec<Op>,
}

fn parse_range(s: &str) -> Result<usize, ProposalRefusal> {
    let start = s.split(',').next().unwrap_or("");
    start.parse::<usize>().map_err(|_| ProposalRefusal::Malformed(format!("bad range {s:?}")))
}

fn parse_diff(diff: &str) -> Result<Vec<Hunk>, ProposalRefusal> {
    let mut hunks: Vec<Hunk> = Vec::new();
    for line in diff.lines() {
        // File headers come before the first hunk; inside a hunk "--- x" is a removed line.
        let header = ["--- ", "+++ ", "diff ", "index "].iter().any(|p| line.starts_with(p));
        if header && hunks.is_empty() {
            continue;
        }
        if let Some(rest) = line.strip_prefix("@@ ") {
            let ranges = rest.split(" @@").next().unwrap_or("");
            let old = ranges
                .split_whitespace()
                .find_map(|r| r.strip_prefix('-'))
                .ok_or_else(|| ProposalRefusal::Malformed(format!("bad hunk header {line:?}")))?;
            let start = parse_range(old)?;
            hunks.push(Hunk { old_start: start.saturating_sub(1), ops: Vec::new() });
            continue;
        }
        let Some(hunk) = hunks.last_mut() else {
            return Err(ProposalRefusal::Malformed(format!("text before the first hunk: {line:?}")));
        };
        if line == "\\ No newline at end of file" {
            continue;
        }
        let op = match line.chars().next() {
            Some(' ') => Op::Keep(line[1..].to_string()),
            Some('-') => Op::Remove(line[1..].to_string()),
            Some('+') => Op::Add(line[1..].to_string()),
            None => Op::Keep(String::new()),
            Some(_) => return Err(ProposalRefusal::Malformed(format!("a line that is not context, - or +: {line:?}"))),
        };
        hunk.ops.push(op);
    }
    if hunks.is_empty() {
        return Err(ProposalRefusal::Malformed("it has no hunks".to_string()));
    }
    Ok(hunks)
}

/// What a diff does to a text: the new text, how many lines it removes or adds, and the lines it
/// added (1-based, in the new text).
struct Applied {
    new_text: String,
    changed: usize,
    added: HashSet<usize>,
}

fn apply(current: &str, hunks: &[Hunk]) -> Result<Applied, ProposalRefusal> {
    let old: Vec<&str> = current.lines().collect();
    let mut out: Vec<String> = Vec::with_capacity(old.len());
    let mut changed = 0usize;
    let mut added = HashSet::new();
    let mut at = 0usize;
    for hunk in hunks {
        if hunk.old_start < at || hunk.old_start > old.len() {
            return Err(ProposalRefusal::DoesNotApply(format!("a hunk starts at line {}", hunk.old_start + 1)));
        }
        out.extend(old[at..hunk.old_start].iter().map(|s| s.to_string()));
        at = hunk.old_start;
        for op in &hunk.ops {
            match op {
                Op::Keep(text) | Op::Remove(text) => {
                    if old.get(at) != Some(&text.as_str()) {
                        return Err(ProposalRefusal::DoesNotApply(format!(
                            "line {} is {:?}, the diff expects {:?}",
                            at + 1,
                            old.get(at).copied().unwrap_or("(end of file)"),
                            text
                        )));
                    }
                    if let Op::Keep(_) = op {
                        out.push(text.clone());
                    } else {
                        changed += 1;
                    }
                    at += 1;
                }
                Op::Add(text) => {
                    changed += 1;
                    out.push(text.clone());
                    added.insert(out.len());
                }
            }
        }
    }
    out.extend(old[at..].iter().map(|s| s.to_string()));
    let mut new_text = out.join("\n");
    if current.ends_with('\n') || current.is_empty() {
        new_text.push('\n');
    }
    Ok(Applied { new_text, changed, added })
}

/// The agent's own block may differ only in the values of its prose keys; everything else in
/// the file must mean the same after the change as before.
fn compare_org(agent: &str, old: &Node, new: &Node) -> Result<(), ProposalRefusal> {
    let (Some(old_top), Some(new_top)) = (old.entries(), new.entries()) else {
        return if old == new { Ok(()) } else { Err(ProposalRefusal::OutsideBlocks) };
    };
    for key in union_keys(old_top, new_top) {
        if key != "agents" && get(old_top, key) != get(new_top, key) {
            return Err(ProposalRefusal::OutsideBlocks);
        }
    }
    let (old_agents, new_agents) = (get(old_top, "agents"), get(new_top, "agents"));
    let (Some(old_agents), Some(new_agents)) = (old_agents.and_then(Node::entries), new_agents.and_then(Node::entries))
    else {
        return if old_agents == new_agents { Ok(()) } else { Err(ProposalRefusal::OutsideBlocks) };
    };
    for name in union_keys(old_agents, new_agents) {
        let (was, is) = (get(old_agents, name), get(new_agents, name));
        if name != agent {
            if was != is {
                return Err(ProposalRefusal::OtherAgent(name.to_string()));
            }
            continue;
        }
        let (Some(was), Some(is)) = (was.and_then(Node::entries), is.and_then(Node::entries)) else {
            return if was == is { Ok(()) } else { Err(ProposalRefusal::NotProse(agent.to_string())) };
        };
        for key in union_keys(was, is) {
            if !PROSE_KEYS.contains(&key) && get(was, key) != get(is, key) {
                return Err(ProposalRefusal::NotProse(key.to_string()));
            }
        }
    }
    Ok(())
}

/// Decides an org.yaml change by parsing the file before and after it, then refuses the YAML
/// forms that would hide what an added line does.
fn check_org_yaml(agent: &str, current: &str, new_text: &str, added: &HashSet<usize>) -> Result<(), ProposalRefusal> {
    let old = org_yaml::load(current).map_err(ProposalRefusal::UnreadableNow)?;
    let new = org_yaml::load(new_text).map_err(ProposalRefusal::BrokenYaml)?;
    compare_org(agent, &old.root, &new.root)?;
    if let Some((form, line)) = org_yaml::forms_on(&new, added) {
        return Err(ProposalRefusal::HiddenForm { line, form: form.kind.to_string(), at: form.at.clone() });
    }
    Ok(())
}

impl ProposalRefusal {
    pub fn off_limits(path: &str, why: OffLimits) -> Self {
        match why {
            OffLimits::EscapesVault => ProposalRefusal::EscapesVault(path.to_string()),
            OffLimits::Symlink => ProposalRefusal::Symlink(path.to_string()),
            OffLimits::HardLink => ProposalRefusal::HardLink(path.to_string()),
            OffLimits::Protected => ProposalRefusal::Protected(path.to_string()),
            OffLimits::NotNormal => ProposalRefusal::NotNormal(path.to_string()),
        }
    }
}

/// Whether a proposal may name this path at all: the vault's rule, then the agent's own files.
pub fn check_path(path: &str, knowledge: &[String]) -> Result<(), ProposalRefusal> {
    check_vault_path(path).map_err(|why| ProposalRefusal::off_limits(path, why))?;
    if path == ORG_YAML {
        return Ok(());
    }
    let under_knowledge = knowledge.iter().any(|k| {
        let k = k.trim_end_matches('/');
        !k.is_empty() && (path.starts_with(&format!("{k}/")))
    });
    if under_knowledge && path.ends_with(".md") {
        Ok(())
    } else {
        Err(ProposalRefusal::NotOwnFile(path.to_string()))
    }
}

/// Checks one proposed change to `agent`'s own files, against the exact current text, and
/// returns the text it would produce. Every rule refuses with its own reason.
pub fn validate_proposal(
    agent: &str,
    knowledge: &[String],
    target: &Target<'_>,
    diff: &str,
) -> Result<ValidChange, ProposalRefusal> {
    check_path(target.path, knowledge)?;
    if target.is_symlink {
        return Err(ProposalRefusal::Symlink(target.path.to_string()));
    }
    // The diff is kept on the improve card and written into the vault when applied.
    crate::secrets::refuse("The proposed change", diff).map_err(ProposalRefusal::Secret)?;
    let hunks = parse_diff(diff)?;
    let Applied { new_text, changed, added } = apply(target.current_text, &hunks)?;
    if changed == 0 {
        return Err(ProposalRefusal::Empty);
    }
    if changed > MAX_CHANGED_LINES {
        return Err(ProposalRefusal::TooLarge(changed));
    }
    if target.path == ORG_YAML {
        check_org_yaml(agent, target.current_text, &new_text, &added)?;
    }
    Ok(ValidChange { new_text, changed_lines: changed })
}

#[cfg(test)]
mod tests {
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
        validate_proposal(
            "builder",
            &knowledge(),
            &Target { path: ORG_YAML, is_symlink: false, current_text: ORG },
            diff,
        )
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
        let diff =
            "@@ -6,1 +6,2 @@\n       - Read the issue twice.\n+      - Run the tests before asking for review.\n";
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
        let t =
            Target { path: "knowledge/builder/testing.md", is_symlink: false, current_text: "# Testing\nRun it.\n" };
        let diff = "@@ -2,1 +2,1 @@\n-Run it.\n+Run it twice.\n";
        assert_eq!(
            validate_proposal("builder", &knowledge(), &t, diff).unwrap().new_text,
            "# Testing\nRun it twice.\n"
        );
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
        for path in [
            ".agents/org/runs/r1.jsonl",
            "Areas/Marketing/plan.md",
            "Finance/Areas/x.md",
            "envelope.md",
            ".environment",
        ] {
            assert_eq!(check_vault_path(path), Ok(()), "{path}");
        }
    }

    #[test]
    fn paths_that_escape_the_vault_or_are_links_are_refused() {
        let diff = "@@ -1,1 +1,1 @@\n-a\n+b\n";
        for path in
            ["../outside.md", "/etc/passwd", "knowledge/builder/../../x.md", "C:\\x.md", "./knowledge/builder/a.md"]
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
}
