//! The validator for a bot's proposed change to itself. A proposal that passes becomes a card a
//! person applies or closes; nothing here writes a file.

use serde::{Deserialize, Serialize};

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
    #[error("it belongs to the harness or the owner, and nothing the bots remember reads it")]
    Protected,
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
    if is_protected(&components) {
        return Err(OffLimits::Protected);
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
    #[error("{0} belongs to the harness or the owner and is never changed by a proposal")]
    Protected(String),
    #[error("{0} is not this agent's own file: only its block in .agents/org/org.yaml or a markdown file under its knowledge paths")]
    NotOwnFile(String),
    #[error("the change touches {0}, which is not prose: only personality, goal, perspective, style, voice, principles and description may change")]
    NotProse(String),
    #[error("the change touches the block of another agent, {0}")]
    OtherAgent(String),
    #[error("the change touches org.yaml outside any agent's block")]
    OutsideBlocks,
    #[error("the change has {0} changed lines; at most 40 may change, so a rewrite is refused")]
    TooLarge(usize),
    #[error("the change is empty")]
    Empty,
    #[error("the diff is not a unified diff: {0}")]
    Malformed(String),
    #[error("the diff does not apply cleanly to the current text: {0}")]
    DoesNotApply(String),
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

/// Where each change lands: the old line it removes, or the old line an addition goes before.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Touch {
    old_line: usize,
    /// The text of the added or removed line.
    text: String,
}

fn apply(current: &str, hunks: &[Hunk]) -> Result<(String, Vec<Touch>), ProposalRefusal> {
    let old: Vec<&str> = current.lines().collect();
    let mut out: Vec<String> = Vec::with_capacity(old.len());
    let mut touches = Vec::new();
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
                        touches.push(Touch { old_line: at, text: text.clone() });
                    }
                    at += 1;
                }
                Op::Add(text) => {
                    touches.push(Touch { old_line: at, text: text.clone() });
                    out.push(text.clone());
                }
            }
        }
    }
    out.extend(old[at..].iter().map(|s| s.to_string()));
    let mut new_text = out.join("\n");
    if current.ends_with('\n') || current.is_empty() {
        new_text.push('\n');
    }
    Ok((new_text, touches))
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// The mapping key a YAML line opens, if it opens one: `  tools: [a]` gives `tools`.
fn key_of(line: &str) -> Option<&str> {
    let t = line.trim_start();
    if t.starts_with('#') || t.starts_with('-') {
        return None;
    }
    let (k, _) = t.split_once(':')?;
    let k = k.trim().trim_matches(|c| c == '"' || c == '\'');
    (!k.is_empty() && !k.contains(' ')).then_some(k)
}

/// For each line of org.yaml, the agent block and the key inside it that the line belongs to.
/// The layout is `agents:`, then one block per agent name, then that agent's keys.
fn yaml_owners(old: &[&str]) -> Vec<Option<(String, Option<String>)>> {
    let mut owners = Vec::with_capacity(old.len());
    let mut in_agents: Option<usize> = None;
    let mut agent: Option<(String, usize)> = None;
    let mut key: Option<(String, usize)> = None;
    for line in old {
        let blank = line.trim().is_empty() || line.trim_start().starts_with('#');
        let ind = indent(line);
        if !blank {
            if ind == 0 {
                in_agents = (key_of(line) == Some("agents")).then_some(0);
                agent = None;
                key = None;
            } else if in_agents.is_some() && agent.as_ref().is_none_or(|(_, a)| ind <= *a) {
                agent = key_of(line).map(|k| (k.to_string(), ind));
                key = None;
            } else if let Some((_, a)) = &agent {
                if key.as_ref().is_none_or(|(_, k)| ind <= *k) && ind > *a {
                    key = key_of(line).map(|k| (k.to_string(), ind));
                }
            }
        }
        owners.push(agent.as_ref().map(|(a, _)| (a.clone(), key.as_ref().map(|(k, _)| k.clone()))));
    }
    owners
}

fn check_org_yaml(agent: &str, current: &str, touches: &[Touch]) -> Result<(), ProposalRefusal> {
    let old: Vec<&str> = current.lines().collect();
    let owners = yaml_owners(&old);
    for t in touches {
        // An added line belongs to the block of the line before it.
        let owner = if t.old_line < owners.len() && old.get(t.old_line).is_some_and(|l| *l == t.text) {
            owners[t.old_line].clone()
        } else {
            t.old_line.checked_sub(1).and_then(|i| owners.get(i).cloned()).flatten()
        };
        let Some((block, key)) = owner else { return Err(ProposalRefusal::OutsideBlocks) };
        if block != agent {
            return Err(ProposalRefusal::OtherAgent(block));
        }
        // A line that itself opens a key must open a prose key; any other line belongs to the
        // key above it. The agent's own name line is not prose either.
        let line_key = key_of(&t.text).filter(|_| indent(&t.text) > 0).map(str::to_string);
        match line_key.or(key) {
            Some(k) if PROSE_KEYS.contains(&k.as_str()) => {}
            Some(k) => return Err(ProposalRefusal::NotProse(k)),
            None => return Err(ProposalRefusal::NotProse(block)),
        }
    }
    Ok(())
}

impl ProposalRefusal {
    pub fn off_limits(path: &str, why: OffLimits) -> Self {
        match why {
            OffLimits::EscapesVault => ProposalRefusal::EscapesVault(path.to_string()),
            OffLimits::Symlink => ProposalRefusal::Symlink(path.to_string()),
            OffLimits::Protected => ProposalRefusal::Protected(path.to_string()),
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
    let hunks = parse_diff(diff)?;
    let (new_text, touches) = apply(target.current_text, &hunks)?;
    if touches.is_empty() {
        return Err(ProposalRefusal::Empty);
    }
    if touches.len() > MAX_CHANGED_LINES {
        return Err(ProposalRefusal::TooLarge(touches.len()));
    }
    if target.path == ORG_YAML {
        check_org_yaml(agent, target.current_text, &touches)?;
    }
    Ok(ValidChange { new_text, changed_lines: touches.len() })
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
    fn an_empty_change_is_refused() {
        let diff = "@@ -3,1 +3,1 @@\n     personality: Careful and brief.\n";
        assert_eq!(org(diff).unwrap_err(), ProposalRefusal::Empty);
    }
}
