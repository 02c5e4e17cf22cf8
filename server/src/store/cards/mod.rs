//! Person memory: connectors, record shapes, cards and people's use of them, written once for both
//! backends (see "Written once" in `store`). `cards_store!` gives each backend's `cards` module the
//! rows' readers and the removals its stores share; the stores are in this module's children.
//!
//! Where SQLite begins IMMEDIATE, each method on PostgreSQL is one transaction that holds up under
//! concurrency on its own terms:
//! - A card's identity is the unique index `cards_identity`; `upsert_card` makes a card with
//!   `INSERT … ON CONFLICT`, so two reads of one record can never make two cards.
//! - Connector settings begin with the `UPDATE` of the connector's row, which locks it, so two
//!   changes to one connector (and the cards they remove) run one after the other.
//! - Cards to purge are read `FOR UPDATE`, so a concurrent write to one of them waits for the purge.
//!   Every removal locks a card before its uses, so two removals of one card cannot deadlock.
//! - The hourly limit of reads is the shared `claim_call`, under the connector's advisory lock.
//! - Removing cards nobody keeps locks them `FOR UPDATE` first, then deletes those still unused
//!   under a fresh snapshot: a use saved concurrently either counts (its card stays) or waits.

pub(crate) mod connectors;
pub(crate) mod forgetting;
pub(crate) mod kept;
pub(crate) mod prepare;

macro_rules! cards_store {
    () => {
        use super::{
            audit, begin_write, claim_call, lock, locks, CallLedger, Conn, DbRow, ThisStore, BY_BYTES, FOR_UPDATE,
        };
        use crate::store::OrBackend;
        use async_trait::async_trait;
        use chrono::{DateTime, Utc};
        use engine::cards::access::{DataLabel, KeyKind};
        use engine::cards::source::CardField;
        use engine::cards::source::{Connector, Freshness, KeyMode, RecordShape, ShapeField};
        use engine::cards::store::{
            after_read, Card, CardUse, Forgotten, KeptForQuestion, MyWorkQuery, NewCard, NewConnector, OpenWhen,
            PrepareSetting,
        };
        use engine::org::{PersonId, RoleId};
        use engine::store::{Actor, StoreError};
        use sqlx::Row;

        const CARD_COLUMNS: &str = "id, connector_id, tool, kind, record_id, version, fields, read_with, read_as, \
             label_when_read, open_work, read_at, not_returned";

        fn bad(what: &str) -> StoreError {
            StoreError::Backend(format!("unreadable {what}"))
        }

        fn json_list(row: &DbRow, col: &str) -> Vec<String> {
            serde_json::from_str(&row.get::<String, _>(col)).unwrap_or_default()
        }

        fn to_json<T: serde::Serialize>(v: &T) -> String {
            serde_json::to_string(v).unwrap_or_else(|_| "null".into())
        }

        fn connector_from(row: &DbRow) -> Result<Connector, StoreError> {
            Ok(Connector {
                id: row.get("id"),
                name: row.get("name"),
                base_url: row.get("base_url"),
                key_mode: KeyMode::parse(row.get("key_mode")).ok_or_else(|| bad("key mode"))?,
                own_key_tools: json_list(row, "own_key_tools"),
                ticked: json_list(row, "ticked"),
                acting: json_list(row, "acting_tools"),
                write_targets: serde_json::from_str(row.get("write_targets")).map_err(|_| bad("write targets"))?,
                label: DataLabel::parse(row.get("label")).ok_or_else(|| bad("label"))?,
                admits_roles: json_list(row, "admits_roles"),
                keep_cards: row.get("keep_cards"),
                facts: serde_json::from_str(row.get("fact_limits")).map_err(|_| bad("fact limits"))?,
                free_text: Freshness {
                    soft_mins: row.get::<i64, _>("free_text_soft_mins") as u32,
                    hard_mins: row.get::<i64, _>("free_text_hard_mins") as u32,
                },
                hourly_limit: row.get::<i64, _>("hourly_limit") as u32,
                killed: row.get("killed"),
                has_company_key: row.get::<Option<String>, _>("company_key").is_some(),
            })
        }

        fn card_from(row: &DbRow) -> Result<Card, StoreError> {
            Ok(Card {
                id: row.get("id"),
                connector: row.get("connector_id"),
                tool: row.get("tool"),
                kind: row.get("kind"),
                record_id: row.get("record_id"),
                version: row.get("version"),
                fields: serde_json::from_str(&row.get::<String, _>("fields")).map_err(|_| bad("card fields"))?,
                read_with: KeyKind::parse(row.get("read_with")).ok_or_else(|| bad("key kind"))?,
                read_as: row.get::<Option<i64>, _>("read_as").map(PersonId),
                label_when_read: DataLabel::parse(row.get("label_when_read")).ok_or_else(|| bad("label"))?,
                open_work: row.get("open_work"),
                read_at: row.get("read_at"),
                not_returned: serde_json::from_str(&row.get::<String, _>("not_returned"))
                    .map_err(|_| bad("card's fields not returned"))?,
            })
        }

        fn use_from(row: &DbRow) -> Result<CardUse, StoreError> {
            Ok(CardUse {
                person: PersonId(row.get("person_id")),
                card: row.get("card_id"),
                summary: serde_json::from_str(&row.get::<String, _>("summary")).map_err(|_| bad("use summary"))?,
                pinned: row.get("pinned"),
                last_use: row.get("last_use"),
            })
        }

        /// The card columns prefixed for a join with `card_uses`.
        fn joined_card_columns() -> String {
            CARD_COLUMNS.split(", ").map(|c| format!("c.{c}")).collect::<Vec<_>>().join(", ")
        }

        /// Removes the connector's cards whose key kind is not among `kinds` (all of them when empty).
        async fn purge(conn: &mut Conn, connector: i64, kinds: &[KeyKind]) -> Result<u32, StoreError> {
            let ids: Vec<(i64, String)> = sqlx::query_as(&format!(
                "SELECT id, read_with FROM cards WHERE connector_id = $1 ORDER BY id{FOR_UPDATE}"
            ))
            .bind(connector)
            .fetch_all(&mut *conn)
            .await
            .or_backend()?;
            let mut removed = 0;
            for (id, kind) in ids {
                if KeyKind::parse(&kind).is_some_and(|k| kinds.contains(&k)) {
                    continue;
                }
                delete_card(conn, id).await?;
                removed += 1;
            }
            Ok(removed)
        }

        async fn delete_card(conn: &mut Conn, id: i64) -> Result<(), StoreError> {
            // The card before its uses, in the order a purge takes them, so the two cannot deadlock.
            sqlx::query(&format!("SELECT id FROM cards WHERE id = $1{FOR_UPDATE}"))
                .bind(id)
                .execute(&mut *conn)
                .await
                .or_backend()?;
            sqlx::query("DELETE FROM card_uses WHERE card_id = $1").bind(id).execute(&mut *conn).await.or_backend()?;
            sqlx::query("DELETE FROM cards WHERE id = $1").bind(id).execute(&mut *conn).await.or_backend()?;
            Ok(())
        }
    };
}
pub(crate) use cards_store;
