//! The core block: a bot's active memory lines, most seen first, within its token budget.

use crate::tokens::count_tokens;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MemoryKind {
    Lesson,
    AntiPattern,
    Preference,
    Friction,
}

crate::string_enum!(MemoryKind {
    Lesson => "lesson",
    AntiPattern => "anti_pattern",
    Preference => "preference",
    Friction => "friction",
});

/// One active, first-person claim in a bot's memory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryLine {
    pub id: i64,
    pub kind: MemoryKind,
    pub text: String,
    pub times_seen: u32,
    #[serde(default)]
    pub worth: i32,
    pub last_seen: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RenderedCore {
    pub text: String,
    pub tokens: u32,
    /// The ids of the lines in the block, in order.
    pub included: Vec<i64>,
    /// Active lines that did not fit.
    pub left_out: usize,
}

fn header(agent: &str) -> String {
    format!("# What {agent} has learned (generated; most seen first)\n")
}

fn render_line(line: &MemoryLine) -> String {
    let text = line.text.split_whitespace().collect::<Vec<_>>().join(" ");
    format!("- [{}] {text} (seen {}×, #{})\n", line.kind.as_str(), line.times_seen, line.id)
}

/// Renders the lines by times seen, then worth (the bot's own strengthen and weaken), then
/// recency, then id, until the next line would take the
/// block over `budget`. The same lines give the same block whatever order they come in.
pub fn render_core(agent: &str, lines: &[MemoryLine], budget: u32) -> RenderedCore {
    let mut ordered: Vec<&MemoryLine> = lines.iter().collect();
    ordered.sort_by(|a, b| {
        b.times_seen
            .cmp(&a.times_seen)
            .then(b.worth.cmp(&a.worth))
            .then(b.last_seen.cmp(&a.last_seen))
            .then(a.id.cmp(&b.id))
    });
    let mut text = header(agent);
    if count_tokens(&text) > budget {
        return RenderedCore { text: String::new(), tokens: 0, included: Vec::new(), left_out: lines.len() };
    }
    let mut included = Vec::new();
    for line in &ordered {
        let candidate = format!("{text}{}", render_line(line));
        if count_tokens(&candidate) > budget {
            break;
        }
        text = candidate;
        included.push(line.id);
    }
    RenderedCore { tokens: count_tokens(&text), left_out: lines.len() - included.len(), included, text }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;
    use proptest::prelude::*;

    fn line(id: i64, seen: u32, day: u32, text: &str) -> MemoryLine {
        MemoryLine {
            id,
            kind: MemoryKind::Lesson,
            text: text.to_string(),
            times_seen: seen,
            worth: 0,
            last_seen: Utc.with_ymd_and_hms(2026, 11, day, 12, 0, 0).unwrap(),
        }
    }

    #[test]
    fn most_seen_first_then_most_recent() {
        let lines = vec![line(1, 1, 20, "once, late"), line(2, 3, 1, "thrice"), line(3, 1, 25, "once, latest")];
        let r = render_core("builder", &lines, 1_500);
        assert_eq!(r.included, vec![2, 3, 1]);
        assert!(r.text.starts_with("# What builder has learned"));
        assert!(r.text.contains("- [lesson] thrice (seen 3×, #2)"));
        assert_eq!(r.left_out, 0);
    }

    #[test]
    fn worth_orders_lines_seen_as_often() {
        let mut strong = line(1, 2, 1, "strengthened, older");
        strong.worth = 2;
        let mut weak = line(4, 5, 1, "weakened but seen most");
        weak.worth = -3;
        let lines = vec![line(3, 2, 20, "plain, newer"), strong, weak];
        assert_eq!(render_core("builder", &lines, 1_500).included, vec![4, 1, 3]);
    }

    #[test]
    fn stops_when_the_budget_is_spent() {
        let lines: Vec<_> = (0..50).map(|i| line(i, 50 - i as u32, 1, &"word ".repeat(20))).collect();
        let r = render_core("builder", &lines, 120);
        assert!(r.tokens <= 120);
        assert!(!r.included.is_empty() && r.left_out > 0);
        assert_eq!(r.included, (0..r.included.len() as i64).collect::<Vec<_>>(), "the most seen are kept");
    }

    #[test]
    fn a_budget_too_small_for_the_header_gives_nothing() {
        let r = render_core("builder", &[line(1, 1, 1, "x")], 3);
        assert_eq!(r.text, "");
        assert_eq!(r.left_out, 1);
    }

    fn arb_line() -> impl Strategy<Value = MemoryLine> {
        (0i64..1000, 1u32..20, 1u32..28, "[a-z ]{1,80}", -3i32..3)
            .prop_map(|(id, seen, day, text, worth)| MemoryLine { worth, ..line(id, seen, day, &text) })
    }

    proptest! {
        #[test]
        fn never_over_the_budget(lines in prop::collection::vec(arb_line(), 0..40), budget in 0u32..600) {
            let r = render_core("agent", &lines, budget);
            prop_assert!(r.tokens <= budget);
            prop_assert_eq!(r.tokens, count_tokens(&r.text));
            prop_assert_eq!(r.included.len() + r.left_out, lines.len());
        }

        #[test]
        fn order_of_input_does_not_matter(mut lines in prop::collection::vec(arb_line(), 0..30), budget in 0u32..600) {
            // Ids are unique in a real table.
            lines.sort_by_key(|l| l.id);
            lines.dedup_by_key(|l| l.id);
            let a = render_core("agent", &lines, budget);
            lines.reverse();
            let b = render_core("agent", &lines, budget);
            prop_assert_eq!(a, b);
        }
    }
}
