//! Fuzz targets for every parser that takes outside input: a model's replies (AUDN, nightly,
//! memory audit, a shape draft), org.yaml and a proposal's diff, the archive importer, the people
//! CSV, a connector's records and tool listings, the canonicaliser, a value to erase and the provenance gate.
//!
//! Each target is an ordinary test on the stable toolchain, driven by proptest: it generates random
//! and structured inputs (JSON of random shapes and long strings, CSV with random quoting, archives
//! the exporter wrote and then cut or changed) and asserts what must hold of the parser's answer,
//! not only that it answers. A panic inside a target is caught and reported with the smallest
//! input proptest shrinks it to.
//!
//! - Plain `cargo test` (and `scripts/check`) runs `SHORT_RUN_CASES` inputs per target from a fixed
//!   seed, so the short run is the same run every time and passes or fails alike.
//! - `ENGRAM_FUZZ_SECONDS=n` runs each target for n seconds from a fresh seed, in batches, and prints
//!   the inputs tried and the seed; `ENGRAM_FUZZ_SEED` replays one. `scripts/fuzz` runs that.

mod fuzz_driver;

use chrono::{DateTime, TimeZone, Utc};
use engine::archive::{self, schema::Kind, schema::TABLES, Cell, TableRows};
use engine::canon::{self, Key};
use engine::cards::draft;
use engine::cards::service::parse_shape_fields;
use engine::cards::source::{keep_fields, CardField, RecordShape, ShapeField, ToolInfo};
use engine::learning::nightly::prompt as nightly;
use engine::org::import::{decode_csv, plan_import, read_csv};
use engine::org::{Directory, Person, PersonId, Role, RoleId, RoleSlug, Team, TeamId};
use engine::persona::audn::{self, AudnError, AudnOp};
use engine::persona::memory_audit::CATEGORIES;
use engine::persona::memory_audit_model;
use engine::persona::org_yaml::{self, Node};
use engine::persona::proposal::{validate_proposal, ProposalRefusal, Target, ORG_YAML};
use engine::runs::provenance::{Provenance, RememberedCard, RememberedLesson, StepKind};
use fuzz_driver::fuzz;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use serde_json::{json, Map, Value};
use std::collections::HashSet;

// ---- Shared generators -------------------------------------------------------------------------

/// Text as outside input brings it: printable text, any characters at all, and long runs.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        5 => "\\PC{0,40}",
        2 => any::<String>(),
        1 => ("[a-z \n\"{}\\[\\],:]{1,6}", 50usize..4000).prop_map(|(s, n)| s.repeat(n)),
    ]
}

/// A key of a JSON object: mostly names the parsers look for, so shapes come close to valid.
fn json_key() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(vec![
            "operations", "op", "kind", "text", "id", "reason", "lessons", "confirms", "supersedes", "core_lines",
            "lesson", "runs", "scope", "claim", "record", "field", "value", "core", "line", "why", "entries", "n",
            "category", "shorter", "records", "tools", "name", "description", "access", "bulk", "parameters",
            "reference", "id_field", "version_field", "fields", "free_text", "updated_at", "notes",
        ])
        .prop_map(str::to_string),
        1 => text(),
    ]
}

/// JSON of random shapes: any value, nested a few levels, with long strings among the leaves.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        (-3i64..20).prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        text().prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 48, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Value::from),
            prop::collection::vec((json_key(), inner), 0..8).prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

/// A model's reply around some JSON: bare, fenced, with words around it, or cut short.
fn as_reply(value: Value) -> impl Strategy<Value = String> {
    let body = value.to_string();
    (0u8..5, "[^{}]{0,20}", any::<prop::sample::Index>()).prop_map(move |(wrap, words, cut)| match wrap {
        0 => body.clone(),
        1 => format!("```json\n{body}\n```"),
        2 => format!("```\n{body}```"),
        3 => format!("{words}{body}{words}"),
        _ => {
            let at = cut.index(body.len() + 1);
            body.char_indices()
                .map(|(i, _)| i)
                .chain([body.len()])
                .find(|i| *i >= at)
                .map_or(body.clone(), |i| body[..i].to_string())
        }
    })
}

/// Safe words: no secret, no agent's name, so what is built of them passes every check of content.
fn plain_words(n: std::ops::Range<usize>) -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(vec!["the", "client", "prefers", "email", "on", "friday", "report", "weekly", "short"]),
        n,
    )
    .prop_map(|w| w.join(" "))
}

#[path = "fuzz/imports.rs"]
mod imports;
/// The bot the AUDN reply and the vault's targets are about.
const AGENT: &str = "builder";

#[path = "fuzz/replies.rs"]
mod replies;
#[path = "fuzz/sources.rs"]
mod sources;
#[path = "fuzz/values.rs"]
mod values;
#[path = "fuzz/vault.rs"]
mod vault;
