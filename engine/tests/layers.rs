//! The engine's areas import only downward. This test reads every `crate::<area>` path in the
//! engine's own code (tests left out), finds each area's floor, and fails on an import that runs
//! back up, on a pair of areas importing each other, and on an area beside the floors that reaches
//! past what it stands on. `cargo test -p engine --test layers -- --nocapture` prints the graph of
//! areas as Mermaid.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Where an area stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    /// A floor, from the ground (0) up.
    Floor(u8),
    /// Beside the floors, standing on the floors up to and including this one.
    Beside(u8),
    /// Above every area: only assembles them.
    Roof,
}

/// The order, bottom up. A module not named here fails the test, so a new one gets a place.
const AREAS: &[(&str, Place)] = &[
    // The ground floor: what every area speaks.
    ("kernel", Place::Floor(0)),
    ("canon", Place::Floor(0)),
    ("clock", Place::Floor(0)),
    ("diff", Place::Floor(0)),
    ("error", Place::Floor(0)),
    ("quoting", Place::Floor(0)),
    ("secrets", Place::Floor(0)),
    ("terms", Place::Floor(0)),
    ("locale", Place::Floor(0)),
    ("tokens", Place::Floor(0)),
    ("auth", Place::Floor(1)),
    ("org", Place::Floor(2)),
    ("cores", Place::Floor(3)),
    ("cards", Place::Floor(4)),
    ("lessons", Place::Floor(5)),
    ("runs", Place::Floor(6)),
    ("learning", Place::Floor(7)),
    // Erasing a third party: above the cards, lessons and who's who it removes from.
    ("erasure", Place::Floor(7)),
    // What memory costs: reads every floor's figures, and is read by none.
    ("operations", Place::Floor(8)),
    // The bots stand beside, over org and the ground only.
    ("persona", Place::Beside(2)),
    // The memory archive's format, over the ground only.
    ("archive", Place::Beside(0)),
    ("store", Place::Roof),
    // The one assembly of every service.
    ("services", Place::Roof),
    ("lib", Place::Roof),
];

/// Imports that run against the order, each to be cut. Empty now, and kept so: an entry the code
/// no longer has, or one now in order, fails the test until it is taken off.
const NOT_YET: &[(&str, &str)] = &[];

fn place(area: &str) -> Place {
    AREAS
        .iter()
        .find(|(a, _)| *a == area)
        .map(|(_, p)| *p)
        .unwrap_or_else(|| panic!("engine/src/{area} has no place in the order: give it one in AREAS"))
}

/// Whether `from` may import `to`.
fn allowed(from: Place, to: Place) -> bool {
    match (from, to) {
        (Place::Roof, _) => true,
        (_, Place::Roof) => false,
        (Place::Floor(a), Place::Floor(b)) => b <= a,
        (Place::Beside(a), Place::Floor(b)) => b <= a,
        // Nothing on the floors leans on what stands beside them, nor one side on the other.
        (_, Place::Beside(_)) => false,
    }
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n != "tests") {
                sources(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "rs")
            && !path.file_name().unwrap().to_string_lossy().ends_with("_tests.rs")
        {
            out.push(path);
        }
    }
}

/// The code of a file without its test modules (`#[cfg(test)] mod tests { … }`, or one kept in
/// a file of its own), which may import anything.
fn code(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..i]);
        let after = &rest[i..];
        let Some(open) = after.find(['{', ';']) else { return out };
        if after[..open].contains("mod ") && after.as_bytes()[open] == b'{' {
            // Skip to the brace that closes the module.
            let mut depth = 0usize;
            let mut end = after.len();
            for (j, c) in after[open..].char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            end = open + j + 1;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            rest = &after[end..];
        } else if after[..open].contains("mod ") {
            rest = &after[open + 1..];
        } else {
            // A test-only item that is no module counts as code: better to see an arrow too many.
            out.push_str("#[cfg(test)]");
            rest = &after["#[cfg(test)]".len()..];
        }
    }
    out.push_str(rest);
    out
}

/// Every area a text names as `crate::<area>`, and the first line naming each.
fn named_areas(text: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("//") {
            continue;
        }
        let mut rest = line;
        while let Some(i) = rest.find("crate::") {
            rest = &rest[i + "crate::".len()..];
            let name: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            // `crate::string_enum!` is a macro the ground floor exports at the crate's root.
            let is_macro = rest[name.len()..].starts_with('!');
            if !name.is_empty() && !is_macro {
                out.entry(name).or_insert_with(|| line.trim().to_string());
            }
        }
    }
    // `use crate::{a::x, b::y}` names several areas at once.
    for (i, _) in text.match_indices("crate::{") {
        let inner = &text[i + "crate::{".len()..];
        let mut depth = 1;
        let mut start = 0;
        for (j, c) in inner.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 1 => {
                    let name: String =
                        inner[start..j].trim().chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
                    if !name.is_empty() {
                        out.entry(name).or_insert_with(|| "use crate::{…}".to_string());
                    }
                    start = j + 1;
                }
                _ => {}
            }
            if depth == 0 {
                let name: String =
                    inner[start..j].trim().chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
                if !name.is_empty() {
                    out.entry(name).or_insert_with(|| "use crate::{…}".to_string());
                }
                break;
            }
        }
    }
    out
}

/// The names lib.rs hands on from its modules (`pub use clock::{Clock, …}`), by the module
/// they come from: `crate::Clock` is an import of `clock`.
fn handed_on(lib: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for line in lib.lines().filter_map(|l| l.trim().strip_prefix("pub use ")) {
        let Some((module, names)) = line.trim_end_matches(';').split_once("::") else { continue };
        for name in names.trim_matches(|c| c == '{' || c == '}').split(',') {
            let name = name.trim().rsplit("::").next().unwrap_or("").to_string();
            if !name.is_empty() {
                out.insert(name, module.to_string());
            }
        }
    }
    out
}

fn area_of(root: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(root).unwrap();
    let first = rel.components().next().unwrap().as_os_str().to_string_lossy().to_string();
    first.trim_end_matches(".rs").to_string()
}

/// Each import between areas, with one file and line that makes it.
fn arrows() -> BTreeMap<(String, String), String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&root, &mut files);
    files.sort();
    let lib = handed_on(&std::fs::read_to_string(root.join("lib.rs")).unwrap());
    let mut arrows = BTreeMap::new();
    for file in files {
        let from = area_of(&root, &file);
        let text = std::fs::read_to_string(&file).unwrap();
        for (to, line) in named_areas(&code(&text)) {
            let to = lib.get(&to).cloned().unwrap_or(to);
            if to != from && to != "self" && to != "super" {
                let rel = file.strip_prefix(&root).unwrap().display().to_string();
                arrows.entry((from.clone(), to)).or_insert(format!("engine/src/{rel}: {line}"));
            }
        }
    }
    arrows
}

#[test]
fn the_engines_areas_import_only_downward() {
    let arrows = arrows();
    let areas: BTreeSet<&String> = arrows.keys().flat_map(|(a, b)| [a, b]).collect();
    let mut wrong = Vec::new();
    for ((from, to), at) in &arrows {
        let ok = allowed(place(from), place(to)) && !arrows.contains_key(&(to.clone(), from.clone()));
        let known = NOT_YET.contains(&(from.as_str(), to.as_str()));
        if !ok && !known {
            wrong.push(format!("{from} -> {to}, at {at}"));
        }
    }
    for (from, to) in NOT_YET {
        let (f, t) = (from.to_string(), to.to_string());
        if !arrows.contains_key(&(f.clone(), t.clone())) {
            wrong.push(format!("{from} -> {to} is gone: take it off NOT_YET"));
        } else if allowed(place(from), place(to)) && !arrows.contains_key(&(t, f)) {
            wrong.push(format!("{from} -> {to} is in order now: take it off NOT_YET"));
        }
    }
    // The graph, for ARCHITECTURE.md.
    println!("```mermaid\nflowchart BT");
    for area in &areas {
        let label = match place(area) {
            Place::Floor(n) => format!("{area} · floor {n}"),
            Place::Beside(_) => format!("{area} · beside"),
            Place::Roof => format!("{area} · roof"),
        };
        println!("    {area}[\"{label}\"]");
    }
    for (from, to) in arrows.keys() {
        println!("    {from} --> {to}");
    }
    println!("```");
    assert!(wrong.is_empty(), "imports against the order of areas:\n{}", wrong.join("\n"));
}

#[test]
fn the_reader_finds_areas_in_each_spelling_of_an_import() {
    let text = "use crate::org::Person;\nuse crate::{cards::Card, runs::{RunId, Run}};\n// crate::lessons in a comment\nlet x = crate::tokens::count(y);\ncrate::string_enum!(A { B => \"b\" });";
    let found: Vec<String> = named_areas(text).into_keys().collect();
    assert_eq!(found, ["cards", "org", "runs", "tokens"]);
    assert_eq!(code("use crate::org::X;\n#[cfg(test)]\nmod tests { use crate::runs::Y; }"), "use crate::org::X;\n");
    assert_eq!(
        code("use a;\n#[cfg(test)]\nmod tests { fn f() { if x { y } } }\nuse crate::runs::Z;"),
        "use a;\n\nuse crate::runs::Z;"
    );
    assert_eq!(code("#[cfg(test)]\n#[path = \"x_tests.rs\"]\nmod tests;\nuse b;"), "\nuse b;");
    assert!(allowed(Place::Floor(6), Place::Floor(2)));
    assert!(!allowed(Place::Floor(2), Place::Floor(6)));
    assert!(allowed(Place::Beside(2), Place::Floor(1)));
    assert!(!allowed(Place::Beside(2), Place::Floor(4)));
    assert!(!allowed(Place::Floor(6), Place::Beside(2)));
    assert!(!allowed(Place::Floor(3), Place::Roof));
}
