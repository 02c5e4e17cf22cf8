//! What an archive carries: every table of organisation memory, parents before children, with each
//! column's kind. The migrations of both backends must agree with this list; the store contract
//! suite exports and imports every table on both, so a column added to one and not here fails there.
//!
//! Not carried, on purpose:
//! - secrets: `api_tokens` and `agent_tokens` (token hashes; owners make new tokens), `agent_triggers`
//!   (trigger secrets' hashes; owners make new triggers), `person_keys`
//!   (the row is the secret; people enter their keys again), `invites` (an admin makes new links),
//!   `password_reset_notices` (after a move everyone sets a new password, so a waiting notice of an
//!   admin's reset would only mislead), `erasure_key` (sealed under the old database's secret key; the new
//!   one makes its own at its first erasure, so the same value hashes differently there);
//! - runtime state: `connector_calls` and `reflect_calls` (the ledgers of hourly and daily limits),
//!   `job_runs` (daily job claims), `trigger_fires` (triggers' hourly limits), `list_fetch_claims` (who's-who list fetches claimed across
//!   servers), `idempotency_keys` (kept 24 hours) and sign-in sessions;
//! - what is made from other rows: `card_terms` (each card's match terms, written again from the
//!   cards on import), `use_terms` (each person's share of them, which the store's triggers make
//!   from `card_uses` and `card_terms`), `team_sizes` (each team's count of current people, which
//!   the store's triggers keep from `people`), `store_tasks` (the store's one-time work at start-up)
//!   and `lesson_embeddings` (each lesson's vector, which the embedder makes again after an import).
//!
//! Hidden columns of carried tables (people's password hashes, a connector's company key) are never
//! written; an import fills them as `Hidden` says.

/// How a column's values are written in an archive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A JSON integer.
    Int,
    /// A JSON string, as stored (JSON held in text columns stays text).
    Text,
    /// A JSON boolean (SQLite keeps 0 and 1).
    Bool,
    /// A JSON number.
    Real,
    /// RFC 3339 in UTC with exactly six fractional digits: PostgreSQL keeps microseconds, so both
    /// backends write the same text for the same instant.
    Time,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Column {
    pub name: &'static str,
    pub kind: Kind,
    pub nullable: bool,
    /// For a column added after archives of this version were first written: the JSON value an
    /// archive without it reads as, the column's default, so an older archive still imports.
    pub missing: Option<&'static str>,
}

/// What an import puts in a column the archive never carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hidden {
    /// A password hash that no password matches: people set a new password after a move.
    UnusablePassword,
    /// Nothing: the key must be entered again.
    Null,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Table {
    pub name: &'static str,
    pub columns: &'static [Column],
    /// The primary key, which orders the rows.
    pub key: &'static [&'static str],
    /// Columns that may refer to a row loaded after this one (a team's lead, a memory row's
    /// successor): loaded empty, then set once every row is in.
    pub late: &'static [&'static str],
    pub hidden: &'static [(&'static str, Hidden)],
    /// Whether `id` is generated: PostgreSQL's identity is moved past the loaded ids.
    pub identity: bool,
}

impl Table {
    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|c| c.name == name)
    }

    pub fn is_hidden(&self, name: &str) -> bool {
        self.hidden.iter().any(|(h, _)| *h == name)
    }
}

const fn c(name: &'static str, kind: Kind) -> Column {
    Column { name, kind, nullable: false, missing: None }
}

const fn n(name: &'static str, kind: Kind) -> Column {
    Column { name, kind, nullable: true, missing: None }
}

/// A column added later, read as `missing` (JSON) from an archive written before it.
const fn later(column: Column, missing: &'static str) -> Column {
    Column { missing: Some(missing), ..column }
}

use Kind::{Bool, Int, Real, Text, Time};

const ID: &[&str] = &["id"];

/// A table keyed by a generated `id`, with nothing late or hidden.
const fn plain(name: &'static str, columns: &'static [Column]) -> Table {
    Table { name, columns, key: ID, late: &[], hidden: &[], identity: true }
}

/// A table keyed by other tables' ids.
const fn joined(name: &'static str, columns: &'static [Column], key: &'static [&'static str]) -> Table {
    Table { name, columns, key, late: &[], hidden: &[], identity: false }
}

/// Every carried table, in load order.
pub const TABLES: &[Table] = &[
    Table {
        identity: false,
        ..plain(
            "company",
            &[
                c("id", Int),
                c("name", Text),
                c("time_zone", Text),
                c("created_at", Time),
                later(c("locale", Text), "\"en-US\""),
            ],
        )
    },
    plain(
        "roles",
        &[c("id", Int), c("slug", Text), c("name", Text), c("company_core_limit", Int), c("created_at", Time)],
    ),
    Table {
        late: &["lead_id"],
        ..plain("teams", &[c("id", Int), c("name", Text), n("role_id", Int), n("lead_id", Int), c("created_at", Time)])
    },
    Table {
        hidden: &[("password_hash", Hidden::UnusablePassword)],
        late: &["manager_id"],
        ..plain(
            "people",
            &[
                c("id", Int),
                c("name", Text),
                c("email", Text),
                c("is_admin", Bool),
                n("main_team_id", Int),
                n("role_override_id", Int),
                c("created_at", Time),
                n("time_zone", Text),
                n("left_at", Time),
                n("manager_id", Int),
                c("session_generation", Int),
            ],
        )
    },
    plain(
        "agents",
        &[
            c("id", Int),
            c("name", Text),
            c("template", Text),
            n("role_id", Int),
            c("owner_id", Int),
            n("team_copy_id", Int),
            c("created_at", Time),
            c("clearance", Text),
            c("description", Text),
            n("copy_of_id", Int),
        ],
    ),
    plain(
        "audit_log",
        &[c("id", Int), c("at", Time), n("actor_id", Int), c("action", Text), c("subject", Text), c("detail", Text)],
    ),
    plain(
        "core_versions",
        &[
            c("id", Int),
            c("scope_key", Text),
            c("version", Int),
            c("body", Text),
            c("tokens", Int),
            c("author_id", Int),
            c("note", Text),
            n("restored_from", Int),
            c("saved_at", Time),
        ],
    ),
    plain(
        "core_suggestions",
        &[
            c("id", Int),
            c("scope_key", Text),
            c("line", Text),
            c("why", Text),
            c("rests_on", Text),
            c("source", Text),
            c("based_on", Int),
            c("state", Text),
            c("created_at", Time),
            n("decided_by", Int),
            n("decided_at", Time),
            n("result_version", Int),
        ],
    ),
    plain(
        "tasks",
        &[
            c("id", Int),
            c("kind", Text),
            c("title", Text),
            c("body", Text),
            c("status", Text),
            c("author", Text),
            n("assignee", Text),
            n("owner_id", Int),
            n("agent", Text),
            n("target_path", Text),
            n("diff", Text),
            n("rationale", Text),
            n("evidence", Text),
            n("base_text", Text),
            n("memory_id", Int),
            n("closed_reason", Text),
            n("closed_by", Int),
            c("created_at", Time),
            c("updated_at", Time),
        ],
    ),
    plain(
        "task_status_log",
        &[c("id", Int), c("task_id", Int), c("status", Text), c("note", Text), c("by_who", Text), c("at", Time)],
    ),
    plain(
        "wakeups",
        &[
            c("id", Int),
            c("agent", Text),
            n("task_id", Int),
            c("reason", Text),
            c("state", Text),
            n("run", Text),
            c("opened_at", Time),
            n("closed_at", Time),
        ],
    ),
    plain(
        "org_agent_episodes",
        &[
            c("id", Int),
            c("agent", Text),
            c("run", Text),
            c("trigger", Text),
            n("task_id", Int),
            c("outcome", Text),
            c("corrected", Bool),
            n("turns", Int),
            n("cost_usd", Real),
            n("duration_s", Real),
            c("summary", Text),
            n("log_path", Text),
            n("transcript_path", Text),
            c("created_at", Time),
        ],
    ),
    Table {
        late: &["superseded_by"],
        ..plain(
            "org_agent_memory",
            &[
                c("id", Int),
                c("agent", Text),
                c("kind", Text),
                c("text", Text),
                c("times_seen", Int),
                c("first_seen", Time),
                c("last_seen", Time),
                c("state", Text),
                n("closed_at", Time),
                n("closed_reason", Text),
                n("closed_by", Text),
                n("superseded_by", Int),
                c("promoted_to_proposal", Bool),
                n("proposal_task_id", Int),
                c("created_at", Time),
            ],
        )
    },
    joined("org_agent_memory_evidence", &[c("memory_id", Int), c("episode_id", Int)], &["memory_id", "episode_id"]),
    Table {
        hidden: &[("company_key", Hidden::Null)],
        ..plain(
            "connectors",
            &[
                c("id", Int),
                c("name", Text),
                c("base_url", Text),
                c("key_mode", Text),
                c("own_key_tools", Text),
                c("ticked", Text),
                c("label", Text),
                c("admits_roles", Text),
                c("keep_cards", Bool),
                c("free_text_soft_mins", Int),
                c("free_text_hard_mins", Int),
                c("hourly_limit", Int),
                c("killed", Bool),
                c("created_at", Time),
                c("updated_at", Time),
                c("whos_who", Bool),
                c("acting_tools", Text),
                c("write_targets", Text),
                c("fact_limits", Text),
            ],
        )
    },
    joined(
        "record_shapes",
        &[
            c("connector_id", Int),
            c("tool", Text),
            c("kind", Text),
            c("id_field", Text),
            n("version_field", Text),
            c("fields", Text),
            c("get_tool", Text),
            n("open_when", Text),
            c("confirmed", Bool),
        ],
        &["connector_id", "tool"],
    ),
    joined(
        "tool_pins",
        &[
            c("connector_id", Int),
            c("tool", Text),
            c("description", Text),
            c("parameters", Text),
            c("pinned_at", Time),
            n("listed_description", Text),
            n("listed_parameters", Text),
            c("listed_gone", Bool),
            n("listed_at", Time),
        ],
        &["connector_id", "tool"],
    ),
    plain(
        "cards",
        &[
            c("id", Int),
            c("connector_id", Int),
            c("tool", Text),
            c("kind", Text),
            c("record_id", Text),
            n("version", Text),
            c("fields", Text),
            c("read_with", Text),
            n("read_as", Int),
            c("label_when_read", Text),
            c("open_work", Bool),
            c("read_at", Time),
            c("not_returned", Text),
        ],
    ),
    joined(
        "card_uses",
        &[c("person_id", Int), c("card_id", Int), c("summary", Text), c("pinned", Bool), c("last_use", Time)],
        &["person_id", "card_id"],
    ),
    joined(
        "forgotten_records",
        &[
            c("person_id", Int),
            c("connector_id", Int),
            c("kind", Text),
            c("record_id", Text),
            c("until", Time),
            c("tool", Text),
            n("forgotten_at", Time),
            n("lifted_at", Time),
            n("lifted_reason", Text),
        ],
        &["person_id", "connector_id", "kind", "record_id"],
    ),
    plain(
        "my_work_queries",
        &[
            c("id", Int),
            c("role_id", Int),
            c("connector_id", Int),
            c("tool", Text),
            c("arguments", Text),
            c("label", Text),
            c("created_at", Time),
        ],
    ),
    joined(
        "prepare_my_day",
        &[c("person_id", Int), c("enabled", Bool), c("at_time", Text), n("last_local_date", Text)],
        &["person_id"],
    ),
    joined("agent_toolsets", &[c("agent_id", Int), c("connector_id", Int)], &["agent_id", "connector_id"]),
    plain("threads", &[c("id", Int), c("agent_id", Int), n("person_id", Int), c("title", Text), c("created_at", Time)]),
    Table {
        late: &["answer_of_run"],
        ..plain(
            "messages",
            &[
                c("id", Int),
                c("thread_id", Int),
                n("author_person_id", Int),
                n("author_agent_id", Int),
                c("text", Text),
                c("at", Time),
                n("answer_of_run", Int),
            ],
        )
    },
    Table {
        late: &["retry_of", "retried_by"],
        ..plain(
            "runs",
            &[
                c("id", Int),
                c("thread_id", Int),
                c("message_id", Int),
                c("agent_id", Int),
                n("for_person_id", Int),
                c("kind", Text),
                c("state", Text),
                c("unwatched", Bool),
                c("data_label", Text),
                c("sources", Text),
                c("review_mode", Bool),
                n("model", Text),
                n("answer", Text),
                n("failure", Text),
                n("retry_of", Int),
                n("retried_by", Int),
                n("retried_at", Time),
                c("created_at", Time),
                n("finished_at", Time),
                n("check_state", Text),
                n("check_reason", Text),
                c("checked_only", Bool),
            ],
        )
    },
    joined(
        "run_steps",
        &[
            c("run_id", Int),
            c("n", Int),
            c("kind", Text),
            c("line", Text),
            c("words", Text),
            c("refs", Text),
            n("detail", Text),
            c("at", Time),
        ],
        &["run_id", "n"],
    ),
    joined(
        "run_costs",
        &[
            c("run_id", Int),
            c("at", Time),
            c("block_tokens", Int),
            c("model_calls", Int),
            c("model_tokens", Int),
            c("model_millicents", Int),
        ],
        &["run_id"],
    ),
    plain(
        "events",
        &[
            c("id", Int),
            c("name", Text),
            n("run_id", Int),
            n("thread_id", Int),
            n("message_id", Int),
            n("connector_id", Int),
            n("state", Text),
            c("refs", Text),
            c("at", Time),
        ],
    ),
    plain(
        "fact_checks",
        &[
            c("id", Int),
            c("connector_id", Int),
            c("fact_kind", Text),
            c("changed", Bool),
            c("run_id", Int),
            c("at", Time),
        ],
    ),
    joined(
        "limit_notices",
        &[c("connector_id", Int), c("fact_kind", Text), c("changed", Int), c("of_checks", Int), c("at", Time)],
        &["connector_id", "fact_kind"],
    ),
    plain(
        "inbox_actions",
        &[
            c("id", Int),
            c("person_id", Int),
            c("run_id", Int),
            c("kind", Text),
            n("connector_id", Int),
            c("tool", Text),
            c("arguments", Text),
            c("line", Text),
            c("state", Text),
            n("outcome", Text),
            c("created_at", Time),
            n("decided_at", Time),
        ],
    ),
    Table {
        late: &["supersedes"],
        ..plain(
            "lessons",
            &[
                c("id", Int),
                c("person_id", Int),
                c("scope", Text),
                n("team_id", Int),
                n("agent_id", Int),
                c("text", Text),
                c("evidence", Text),
                c("label", Text),
                n("checked_at", Time),
                n("source_version", Text),
                c("valid_from", Time),
                n("valid_to", Time),
                n("claim_record", Text),
                n("claim_field", Text),
                n("claim_value", Text),
                c("state", Text),
                c("state_at", Time),
                n("state_reason", Text),
                c("confirmed", Bool),
                n("supersedes", Int),
                c("written_by", Text),
                c("created_at", Time),
                later(c("partner", Bool), "false"),
                later(n("match_terms", Text), "null"),
            ],
        )
    },
    joined(
        "nightly_marks",
        &[c("person_id", Int), c("personal_through", Int), c("shared_through", Int), n("left_out_on", Text)],
        &["person_id"],
    ),
    plain(
        "memory_spend",
        &[
            c("id", Int),
            c("local_date", Text),
            c("purpose", Text),
            c("model", Text),
            c("millicents", Int),
            c("at", Time),
        ],
    ),
    Table { identity: false, ..plain("memory_settings", &[c("id", Int), c("daily_budget_cents", Int)]) },
    joined(
        "budget_stops",
        &[c("local_date", Text), c("budget_cents", Int), c("left_out", Int), c("at", Time)],
        &["local_date"],
    ),
    plain(
        "agent_playbooks",
        &[c("id", Int), c("agent_id", Int), c("text", Text), n("saved_by", Int), c("saved_at", Time)],
    ),
    plain(
        "connector_notes",
        &[c("id", Int), c("connector_id", Int), c("text", Text), n("saved_by", Int), c("saved_at", Time)],
    ),
    joined("agent_memory_scopes", &[c("agent_id", Int), c("scopes", Text)], &["agent_id"]),
    joined(
        "agent_schedules",
        &[
            c("agent_id", Int),
            c("instruction", Text),
            c("kind", Text),
            c("at_value", Text),
            c("next_due_at", Time),
            n("set_by", Int),
            c("set_at", Time),
        ],
        &["agent_id"],
    ),
    joined("paused_agents", &[c("agent_id", Int), n("paused_by", Int), c("paused_at", Time)], &["agent_id"]),
    plain(
        "list_entries",
        &[
            c("id", Int),
            c("connector_id", Int),
            c("list", Text),
            n("entry_id", Text),
            c("kept_values", Text),
            c("names", Text),
            c("fetched_at", Time),
        ],
    ),
    joined("list_entry_keys", &[c("key", Text), c("list_entry_id", Int)], &["key", "list_entry_id"]),
];

/// The carried table of that name.
pub fn table(name: &str) -> Option<&'static Table> {
    TABLES.iter().find(|t| t.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_late_and_hidden_name_is_a_column_or_hidden_and_late_columns_may_be_empty() {
        for t in TABLES {
            for k in t.key {
                assert!(t.column(k).is_some(), "{}.{k} is a key but not a column", t.name);
            }
            for l in t.late {
                assert!(t.column(l).is_some_and(|c| c.nullable), "{}.{l} is late so it must be nullable", t.name);
            }
            for (h, _) in t.hidden {
                assert!(t.column(h).is_none(), "{}.{h} is hidden and must not be written", t.name);
            }
            // The one-row tables are keyed by an id that is always 1.
            let one_row = ["company", "memory_settings"].contains(&t.name);
            assert_eq!(t.identity, t.key == ["id"] && !one_row, "{}", t.name);
        }
    }
}
