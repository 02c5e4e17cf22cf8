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
#[path = "proposal_tests.rs"]
mod tests;
