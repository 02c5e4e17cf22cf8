//! org.yaml as a YAML parser reads it, so a proposal is judged by what the file means rather than
//! by how its lines look: YAML can spell one key in many ways that a line-by-line reading takes
//! for prose.

use saphyr_parser::{Event, Parser, ScalarStyle, Span, Tag};
use std::collections::{HashMap, HashSet};
use std::fmt;

/// Aliases are expanded, so a few lines could otherwise stand for billions of nodes.
const MAX_NODES: usize = 100_000;
const MAX_DEPTH: usize = 64;

/// A node with its tag. Scalars keep whether they were plain, since `4` and `"4"` differ in
/// meaning; comparing them as different is the cautious side.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    Scalar { text: String, plain: bool, tag: Option<String> },
    Seq { items: Vec<Node>, tag: Option<String> },
    Map { entries: Vec<(String, Node)>, tag: Option<String> },
}

impl Node {
    /// The entries of an untagged mapping.
    pub fn entries(&self) -> Option<&[(String, Node)]> {
        match self {
            Node::Map { entries, tag: None } => Some(entries),
            _ => None,
        }
    }

    fn size(&self) -> usize {
        match self {
            Node::Scalar { .. } => 1,
            Node::Seq { items, .. } => 1 + items.iter().map(Node::size).sum::<usize>(),
            Node::Map { entries, .. } => 1 + entries.iter().map(|(_, v)| 1 + v.size()).sum::<usize>(),
        }
    }
}

pub fn get<'a>(entries: &'a [(String, Node)], key: &str) -> Option<&'a Node> {
    entries.iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

/// Every key of either mapping once: the old order, then keys only the new one has.
pub fn union_keys<'a>(old: &'a [(String, Node)], new: &'a [(String, Node)]) -> Vec<&'a str> {
    let mut keys: Vec<&str> = old.iter().map(|(k, _)| k.as_str()).collect();
    for (k, _) in new {
        if !keys.contains(&k.as_str()) {
            keys.push(k);
        }
    }
    keys
}

/// A YAML form that changes meaning without looking like it in a diff.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FormKind {
    ExplicitKey,
    Anchor,
    Alias,
    MergeKey,
    Tag,
}

impl fmt::Display for FormKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FormKind::ExplicitKey => "an explicit key (?)",
            FormKind::Anchor => "an anchor (&)",
            FormKind::Alias => "an alias (*)",
            FormKind::MergeKey => "a merge key (<<)",
            FormKind::Tag => "a tag (!)",
        })
    }
}

/// Where a form stands: the lines from the end of what precedes it to the start of its node, so
/// properties written on a line of their own are inside, and the keys above it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Form {
    pub kind: FormKind,
    /// 1-based, inclusive.
    pub first_line: usize,
    pub last_line: usize,
    /// The keys from the top down to it, joined with dots.
    pub at: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Doc {
    pub root: Node,
    pub forms: Vec<Form>,
}

enum Frame {
    Seq { items: Vec<Node>, tag: Option<String>, anchor: usize },
    Map { entries: Vec<(String, Node)>, tag: Option<String>, anchor: usize, key: Option<String> },
}

fn tag_text(tag: Option<std::borrow::Cow<'_, Tag>>) -> Option<String> {
    tag.map(|t| format!("{}{}", t.handle, t.suffix))
}

struct Builder<'t> {
    chars: &'t [char],
    frames: Vec<Frame>,
    anchors: HashMap<usize, (Node, usize)>,
    nodes: usize,
    forms: Vec<Form>,
    root: Option<Node>,
}

impl Builder<'_> {
    fn path(&self) -> Vec<&str> {
        self.frames
            .iter()
            .filter_map(|f| match f {
                Frame::Map { key: Some(k), .. } => Some(k.as_str()),
                _ => None,
            })
            .collect()
    }

    fn form(&mut self, kind: FormKind, lead_in: usize, span: Span, key: Option<&str>) {
        let mut at = self.path();
        at.extend(key);
        let at = if at.is_empty() { "the top".to_string() } else { at.join(".") };
        self.forms.push(Form { kind, first_line: lead_in.min(span.start.line()), last_line: span.start.line(), at });
    }

    fn count(&mut self, n: usize) -> Result<(), String> {
        self.nodes += n;
        if self.nodes > MAX_NODES {
            return Err(format!("it expands to more than {MAX_NODES} nodes"));
        }
        Ok(())
    }

    /// Whether the text between what precedes a key and the key holds the `?` indicator.
    fn explicit(&self, from: usize, to: usize) -> bool {
        let mut comment = false;
        for c in self.chars.get(from..to).unwrap_or(&[]) {
            match c {
                '\n' => comment = false,
                '#' => comment = true,
                '?' if !comment => return true,
                _ => {}
            }
        }
        false
    }

    /// Places a finished node: as the root, an item, a key, or a key's value.
    fn place(&mut self, node: Node, span: Span, prev: Span) -> Result<(), String> {
        let explicit = self.explicit(prev.end.index(), span.start.index());
        let Some(frame) = self.frames.last_mut() else {
            self.root = Some(node);
            return Ok(());
        };
        match frame {
            Frame::Seq { items, .. } => items.push(node),
            Frame::Map { entries, key, .. } => match key.take() {
                Some(k) => entries.push((k, node)),
                None => {
                    let Node::Scalar { text, plain, .. } = node else {
                        return Err(format!("line {}: a key must be text", span.start.line()));
                    };
                    if entries.iter().any(|(k, _)| *k == text) {
                        return Err(format!("line {}: the key {text} appears twice in one mapping", span.start.line()));
                    }
                    *key = Some(text.clone());
                    if explicit {
                        self.form(FormKind::ExplicitKey, prev.end.line(), span, None);
                    }
                    if plain && text == "<<" {
                        self.form(FormKind::MergeKey, prev.end.line(), span, None);
                    }
                }
            },
        }
        Ok(())
    }

    fn properties(&mut self, anchor: usize, tag: bool, span: Span, prev: Span) {
        if anchor != 0 {
            self.form(FormKind::Anchor, prev.end.line(), span, None);
        }
        if tag {
            self.form(FormKind::Tag, prev.end.line(), span, None);
        }
    }

    /// Keeps a copy of an anchored node for its aliases.
    fn finish(&mut self, node: &Node, anchor: usize) {
        if anchor != 0 {
            self.anchors.insert(anchor, (node.clone(), node.size()));
        }
    }
}

/// Reads one YAML document into nodes, with aliases expanded, and notes every form a reviewer
/// would not spot. Refuses duplicate keys, keys that are not text and more than one document.
pub fn load(text: &str) -> Result<Doc, String> {
    let chars: Vec<char> = text.chars().collect();
    let mut b =
        Builder { chars: &chars, frames: Vec::new(), anchors: HashMap::new(), nodes: 0, forms: Vec::new(), root: None };
    let mut documents = 0;
    let mut prev = Span::default();
    // The span each open collection started at, to place it when it ends.
    let mut starts: Vec<(Span, Span)> = Vec::new();
    let mut parser = Parser::new_from_str(text);
    while let Some(next) = parser.next_event() {
        let (event, span) = next.map_err(|e| e.to_string())?;
        match event {
            Event::DocumentStart(_) => {
                documents += 1;
                if documents > 1 {
                    return Err(format!("line {}: it holds more than one document", span.start.line()));
                }
            }
            Event::Alias(id) => {
                b.form(FormKind::Alias, prev.end.line(), span, None);
                let (node, size) = b.anchors.get(&id).cloned().ok_or("an alias names no anchor")?;
                b.count(size)?;
                b.place(node, span, prev)?;
            }
            Event::Scalar(value, style, anchor, tag) => {
                b.count(1)?;
                b.properties(anchor, tag.is_some(), span, prev);
                let node =
                    Node::Scalar { text: value.into_owned(), plain: style == ScalarStyle::Plain, tag: tag_text(tag) };
                b.finish(&node, anchor);
                b.place(node, span, prev)?;
            }
            Event::SequenceStart(anchor, ref tag) | Event::MappingStart(anchor, ref tag) => {
                b.count(1)?;
                if b.frames.len() >= MAX_DEPTH {
                    return Err(format!("line {}: it nests deeper than {MAX_DEPTH} levels", span.start.line()));
                }
                b.properties(anchor, tag.is_some(), span, prev);
                let tag = tag_text(tag.clone());
                b.frames.push(if matches!(event, Event::SequenceStart(..)) {
                    Frame::Seq { items: Vec::new(), tag, anchor }
                } else {
                    Frame::Map { entries: Vec::new(), tag, anchor, key: None }
                });
                starts.push((span, prev));
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let (node, anchor) = match b.frames.pop() {
                    Some(Frame::Seq { items, tag, anchor }) => (Node::Seq { items, tag }, anchor),
                    Some(Frame::Map { entries, tag, anchor, .. }) => (Node::Map { entries, tag }, anchor),
                    None => return Err("a collection ends that never began".to_string()),
                };
                let (start, before) = starts.pop().ok_or("a collection ends that never began")?;
                b.finish(&node, anchor);
                b.place(node, start, before)?;
            }
            Event::StreamStart | Event::StreamEnd | Event::DocumentEnd | Event::Nothing => {}
        }
        prev = span;
    }
    let root = b.root.ok_or("it holds no document")?;
    Ok(Doc { root, forms: b.forms })
}

/// The forms whose lines include any of `lines`, first line first.
pub fn forms_on<'a>(doc: &'a Doc, lines: &HashSet<usize>) -> Option<(&'a Form, usize)> {
    doc.forms.iter().find_map(|f| (f.first_line..=f.last_line).find(|l| lines.contains(l)).map(|l| (f, l)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<(FormKind, usize, String)> {
        load(text).unwrap().forms.into_iter().map(|f| (f.kind, f.last_line, f.at)).collect()
    }

    #[test]
    fn plain_yaml_has_no_forms_and_reads_as_nodes() {
        let doc = load(
            "agents:\n  a:\n    goal: Why? Because.\n    tools: [x, \"y\"]\n    # a ? in a comment\n    model: cheap\n",
        )
        .unwrap();
        assert!(doc.forms.is_empty(), "{:?}", doc.forms);
        let agents = get(doc.root.entries().unwrap(), "agents").unwrap();
        let a = get(agents.entries().unwrap(), "a").unwrap().entries().unwrap();
        assert_eq!(union_keys(a, a), vec!["goal", "tools", "model"]);
    }

    #[test]
    fn each_hidden_form_is_found_with_its_line_and_place() {
        let text = "\
agents:
  a:
    goal: Ship.
    ? permission_mode
    : full
    x: &anc plain
    y: *anc
    <<: {m: 1}
    z: !t
      k: v
    ?
      w
    : v
";
        assert_eq!(
            kinds(text),
            vec![
                (FormKind::ExplicitKey, 4, "agents.a.permission_mode".into()),
                (FormKind::Anchor, 6, "agents.a.x".into()),
                (FormKind::Alias, 7, "agents.a.y".into()),
                (FormKind::MergeKey, 8, "agents.a.<<".into()),
                (FormKind::Tag, 9, "agents.a.z".into()),
                (FormKind::ExplicitKey, 12, "agents.a.w".into()),
            ]
        );
    }

    #[test]
    fn aliases_are_expanded_but_not_without_bound() {
        let doc = load("a: &x [1, 2]\nb: *x\n").unwrap();
        let top = doc.root.entries().unwrap();
        assert_eq!(get(top, "a"), get(top, "b"));
        let mut bomb = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..8 {
            let p = i - 1;
            bomb.push_str(&format!(
                "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
            ));
        }
        assert!(load(&bomb).unwrap_err().contains("more than 100000 nodes"));
    }

    #[test]
    fn what_a_loader_would_read_two_ways_is_refused() {
        assert!(load("a: 1\na: 2\n").unwrap_err().contains("the key a appears twice"));
        assert!(load("a: 1\n---\nb: 2\n").unwrap_err().contains("more than one document"));
        assert!(load("[a, b]: c\n").unwrap_err().contains("a key must be text"));
        assert!(load("a: [\n").is_err());
        let deep = format!("a: {}{}\n", "[".repeat(100), "]".repeat(100));
        assert!(load(&deep).unwrap_err().contains("deeper than 64"));
    }
}
