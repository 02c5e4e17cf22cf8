//! A line diff between two texts, for comparing a core version with the current one.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum DiffLine {
    Same(String),
    Removed(String),
    Added(String),
}

/// Longest-common-subsequence diff over lines. Cores are bounded (a few thousand tokens), so the
/// quadratic table stays small.
pub fn diff_lines(old: &str, new: &str) -> Vec<DiffLine> {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let (n, m) = (a.len(), b.len());
    let mut lcs = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if a[i] == b[j] { lcs[i + 1][j + 1] + 1 } else { lcs[i + 1][j].max(lcs[i][j + 1]) };
        }
    }
    let mut out = Vec::with_capacity(n.max(m));
    let (mut i, mut j) = (0, 0);
    while i < n && j < m {
        if a[i] == b[j] {
            out.push(DiffLine::Same(a[i].to_string()));
            i += 1;
            j += 1;
        } else if lcs[i + 1][j] >= lcs[i][j + 1] {
            out.push(DiffLine::Removed(a[i].to_string()));
            i += 1;
        } else {
            out.push(DiffLine::Added(b[j].to_string()));
            j += 1;
        }
    }
    out.extend(a[i..].iter().map(|l| DiffLine::Removed(l.to_string())));
    out.extend(b[j..].iter().map(|l| DiffLine::Added(l.to_string())));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn marks_changed_lines() {
        let d = diff_lines("a\nb\nc", "a\nB\nc\nd");
        assert_eq!(
            d,
            vec![
                DiffLine::Same("a".into()),
                DiffLine::Removed("b".into()),
                DiffLine::Added("B".into()),
                DiffLine::Same("c".into()),
                DiffLine::Added("d".into()),
            ]
        );
    }

    proptest! {
        #[test]
        fn both_sides_can_be_rebuilt(old in "[abc\n]{0,40}", new in "[abc\n]{0,40}") {
            let d = diff_lines(&old, &new);
            let left: Vec<String> = d.iter().filter_map(|l| match l {
                DiffLine::Same(s) | DiffLine::Removed(s) => Some(s.clone()), _ => None }).collect();
            let right: Vec<String> = d.iter().filter_map(|l| match l {
                DiffLine::Same(s) | DiffLine::Added(s) => Some(s.clone()), _ => None }).collect();
            prop_assert_eq!(left, old.lines().map(String::from).collect::<Vec<_>>());
            prop_assert_eq!(right, new.lines().map(String::from).collect::<Vec<_>>());
        }
    }
}
