//! The PostgreSQL backend for person memory: connectors, record shapes, cards and people's use of them.
//!
//! Where SQLite begins IMMEDIATE, each method here is one transaction that holds up under
//! concurrency on its own terms:
//! - A card's identity is the unique index `cards_identity`; `upsert_card` makes a card with
//!   `INSERT … ON CONFLICT … DO UPDATE`, so two reads of one record can never make two cards.
//! - Connector settings begin with the `UPDATE` of the connector's row, which locks it, so two
//!   changes to one connector (and the cards they remove) run one after the other.
//! - Cards to purge are read `FOR UPDATE`, so a concurrent write to one of them waits for the purge.
//!   Every removal locks a card before its uses, so two removals of one card cannot deadlock.
//! - The hourly limit of reads is the shared `claim_call`, under the connector's advisory lock.
//! - Removing cards nobody keeps locks them `FOR UPDATE` first, then deletes those still unused
//!   under a fresh snapshot: a use saved concurrently either counts (its card stays) or waits.

use super::{audit, backend, claim_call, is_unique_violation, CallLedger, PgStore};
use crate::secrets::{Place, SecretBox};
use crate::store::sealing::{check_still_opens, open_stored, sealer};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use engine::cards::access::{DataLabel, KeyKind};
use engine::cards::select::CardField;
use engine::cards::source::{Connector, Freshness, KeyMode, RecordShape, ShapeField};
use engine::cards::store::{
    after_read, Card, CardStore, CardUse, Forgotten, MyWorkQuery, NewCard, NewConnector, OpenWhen, PrepareSetting,
};
use engine::org::{PersonId, RoleId};
use engine::store::{Actor, StoreError};
use sqlx::postgres::PgRow;
use sqlx::{PgConnection, Row};

const CARD_COLUMNS: &str = "id, connector_id, tool, kind, record_id, version, fields, read_with, read_as, \
     label_when_read, open_work, read_at, not_returned";

fn bad(what: &str) -> StoreError {
    StoreError::Backend(format!("unreadable {what}"))
}

fn json_list(row: &PgRow, col: &str) -> Vec<String> {
    serde_json::from_str(&row.get::<String, _>(col)).unwrap_or_default()
}

fn to_json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_else(|_| "null".into())
}

fn connector_from(row: &PgRow) -> Result<Connector, StoreError> {
    Ok(Connector {
        id: row.get("id"),
        name: row.get("name"),
        base_url: row.get("base_url"),
        key_mode: KeyMode::parse(row.get("key_mode")).ok_or_else(|| bad("key mode"))?,
        own_key_tools: json_list(row, "own_key_tools"),
        ticked: json_list(row, "ticked"),
        label: DataLabel::parse(row.get("label")).ok_or_else(|| bad("label"))?,
        admits_roles: json_list(row, "admits_roles"),
        keep_cards: row.get("keep_cards"),
        structured: Freshness {
            soft_mins: row.get::<i64, _>("structured_soft_mins") as u32,
            hard_mins: row.get::<i64, _>("structured_hard_mins") as u32,
        },
        free_text: Freshness {
            soft_mins: row.get::<i64, _>("free_text_soft_mins") as u32,
            hard_mins: row.get::<i64, _>("free_text_hard_mins") as u32,
        },
        hourly_limit: row.get::<i64, _>("hourly_limit") as u32,
        killed: row.get("killed"),
        has_company_key: row.get::<Option<String>, _>("company_key").is_some(),
    })
}

fn card_from(row: &PgRow) -> Result<Card, StoreError> {
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

fn use_from(row: &PgRow) -> Result<CardUse, StoreError> {
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
async fn purge(conn: &mut PgConnection, connector: i64, kinds: &[KeyKind]) -> Result<u32, StoreError> {
    let ids: Vec<(i64, String)> =
        sqlx::query_as("SELECT id, read_with FROM cards WHERE connector_id = $1 ORDER BY id FOR UPDATE")
            .bind(connector)
            .fetch_all(&mut *conn)
            .await
            .map_err(backend)?;
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

async fn delete_card(conn: &mut PgConnection, id: i64) -> Result<(), StoreError> {
    // The card before its uses, in the order a purge takes them, so the two cannot deadlock.
    sqlx::query("SELECT id FROM cards WHERE id = $1 FOR UPDATE").bind(id).execute(&mut *conn).await.map_err(backend)?;
    sqlx::query("DELETE FROM card_uses WHERE card_id = $1").bind(id).execute(&mut *conn).await.map_err(backend)?;
    sqlx::query("DELETE FROM cards WHERE id = $1").bind(id).execute(&mut *conn).await.map_err(backend)?;
    Ok(())
}

impl PgStore {
    /// The sealer for a key written in this transaction, once the key check (read `FOR SHARE`, so a
    /// rotation waits for this write or this write for it) says it is still the database's key.
    async fn sealer_in(&self, conn: &mut PgConnection) -> Result<&SecretBox, StoreError> {
        let sealer = sealer(self.secrets())?;
        check_still_opens(sealer, super::secrets::key_check(conn).await?)?;
        Ok(sealer)
    }
}

#[async_trait]
impl CardStore for PgStore {
    async fn connectors(&self) -> Result<Vec<Connector>, StoreError> {
        // COLLATE "C" orders by bytes, as SQLite's BINARY does, whatever the database's locale.
        let rows = sqlx::query("SELECT * FROM connectors ORDER BY name COLLATE \"C\"")
            .fetch_all(self.pool())
            .await
            .map_err(backend)?;
        rows.iter().map(connector_from).collect()
    }

    async fn connector(&self, id: i64) -> Result<Option<Connector>, StoreError> {
        let row = sqlx::query("SELECT * FROM connectors WHERE id = $1")
            .bind(id)
            .fetch_optional(self.pool())
            .await
            .map_err(backend)?;
        row.as_ref().map(connector_from).transpose()
    }

    async fn create_connector(
        &self,
        c: &NewConnector,
        company_key: Option<&str>,
        actor: Actor,
    ) -> Result<Connector, StoreError> {
        let mut tx = self.pool().begin().await.map_err(backend)?;
        // The key check first, before any row is written: a rotation locks it before the key tables.
        let sealer = match company_key {
            Some(_) => Some(self.sealer_in(&mut tx).await?),
            None => None,
        };
        let mut row = sqlx::query(
            "INSERT INTO connectors (name, base_url, key_mode, ticked, label, admits_roles, keep_cards, \
             structured_soft_mins, structured_hard_mins, free_text_soft_mins, free_text_hard_mins, hourly_limit, \
             created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) \
             RETURNING *",
        )
        .bind(&c.name)
        .bind(&c.base_url)
        .bind(c.key_mode.as_str())
        .bind(to_json(&c.ticked))
        .bind(c.label.as_str())
        .bind(to_json(&c.admits_roles))
        .bind(c.keep_cards)
        .bind(i64::from(c.structured.soft_mins))
        .bind(i64::from(c.structured.hard_mins))
        .bind(i64::from(c.free_text.soft_mins))
        .bind(i64::from(c.free_text.hard_mins))
        .bind(i64::from(c.hourly_limit))
        .bind(actor.at)
        .bind(actor.at)
        .fetch_one(&mut *tx)
        .await
        .map_err(|e| if is_unique_violation(&e) { StoreError::Duplicate(c.name.clone()) } else { backend(e) })?;
        // The key is sealed for the row it lives in, whose id the insert has just given.
        if let (Some(key), Some(sealer)) = (company_key, sealer) {
            let id: i64 = row.get("id");
            row = sqlx::query("UPDATE connectors SET company_key = $1 WHERE id = $2 RETURNING *")
                .bind(sealer.seal(key, Place::CompanyKey { connector: id }))
                .bind(id)
                .fetch_one(&mut *tx)
                .await
                .map_err(backend)?;
        }
        let connector = connector_from(&row)?;
        audit(&mut tx, actor, "connector.create", &format!("connector:{}", connector.id), &c.name).await?;
        tx.commit().await.map_err(backend)?;
        Ok(connector)
    }

    async fn company_key(&self, connector: i64) -> Result<Option<String>, StoreError> {
        let key: Option<Option<String>> = sqlx::query_scalar("SELECT company_key FROM connectors WHERE id = $1")
            .bind(connector)
            .fetch_optional(self.pool())
            .await
            .map_err(backend)?;
        key.flatten().map(|k| open_stored(self.secrets(), &k, Place::CompanyKey { connector })).transpose()
    }

    async fn person_key(&self, connector: i64, person: PersonId) -> Result<Option<String>, StoreError> {
        let key: Option<String> =
            sqlx::query_scalar("SELECT secret FROM person_keys WHERE connector_id = $1 AND person_id = $2")
                .bind(connector)
                .bind(person.0)
                .fetch_optional(self.pool())
                .await
                .map_err(backend)?;
        key.map(|k| open_stored(self.secrets(), &k, Place::PersonKey { connector, person: person.0 })).transpose()
    }

    async fn set_person_key(
        &self,
        connector: i64,
        person: PersonId,
        secret: &str,
        actor: Actor,
    ) -> Result<(), StoreError> {
        let mut tx = self.pool().begin().await.map_err(backend)?;
        let sealed = self.sealer_in(&mut tx).await?.seal(secret, Place::PersonKey { connector, person: person.0 });
        sqlx::query(
            "INSERT INTO person_keys (connector_id, person_id, secret, created_at) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (connector_id, person_id) DO UPDATE SET secret = excluded.secret",
        )
        .bind(connector)
        .bind(person.0)
        .bind(sealed)
        .bind(actor.at)
        .execute(&mut *tx)
        .await
        .map_err(backend)?;
        audit(&mut tx, actor, "person_key.set", &format!("connector:{connector}"), &format!("person:{}", person.0))
            .await?;
        tx.commit().await.map_err(backend)
    }

    async fn shapes(&self, connector: i64) -> Result<Vec<RecordShape>, StoreError> {
        let rows = sqlx::query("SELECT * FROM record_shapes WHERE connector_id = $1 ORDER BY tool COLLATE \"C\"")
            .bind(connector)
            .fetch_all(self.pool())
            .await
            .map_err(backend)?;
        rows.iter()
            .map(|r| {
                let fields: Vec<ShapeField> =
                    serde_json::from_str(&r.get::<String, _>("fields")).map_err(|_| bad("shape fields"))?;
                Ok(RecordShape {
                    connector: r.get("connector_id"),
                    tool: r.get("tool"),
                    kind: r.get("kind"),
                    id_field: r.get("id_field"),
                    version_field: r.get("version_field"),
                    fields,
                    get_tool: r.get("get_tool"),
                    confirmed: r.get("confirmed"),
                })
            })
            .collect()
    }

    async fn save_shape(&self, s: &RecordShape, open_when: Option<&OpenWhen>, actor: Actor) -> Result<(), StoreError> {
        let mut tx = self.pool().begin().await.map_err(backend)?;
        sqlx::query(
            "INSERT INTO record_shapes (connector_id, tool, kind, id_field, version_field, fields, get_tool, open_when, \
             confirmed) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (connector_id, tool) DO UPDATE SET \
             kind = excluded.kind, id_field = excluded.id_field, version_field = excluded.version_field, \
             fields = excluded.fields, get_tool = excluded.get_tool, open_when = excluded.open_when, \
             confirmed = excluded.confirmed",
        )
        .bind(s.connector)
        .bind(&s.tool)
        .bind(&s.kind)
        .bind(&s.id_field)
        .bind(&s.version_field)
        .bind(to_json(&s.fields))
        .bind(&s.get_tool)
        .bind(open_when.map(to_json))
        .bind(s.confirmed)
        .execute(&mut *tx)
        .await
        .map_err(backend)?;
        audit(&mut tx, actor, "shape.save", &format!("connector:{}", s.connector), &s.tool).await?;
        tx.commit().await.map_err(backend)
    }

    async fn open_when(&self, connector: i64, tool: &str) -> Result<Option<OpenWhen>, StoreError> {
        let v: Option<Option<String>> =
            sqlx::query_scalar("SELECT open_when FROM record_shapes WHERE connector_id = $1 AND tool = $2")
                .bind(connector)
                .bind(tool)
                .fetch_optional(self.pool())
                .await
                .map_err(backend)?;
        Ok(v.flatten().and_then(|s| serde_json::from_str(&s).ok()))
    }

    async fn set_keep_cards(&self, connector: i64, on: bool, actor: Actor) -> Result<u32, StoreError> {
        let mut tx = self.pool().begin().await.map_err(backend)?;
        sqlx::query("UPDATE connectors SET keep_cards = $1, updated_at = $2 WHERE id = $3")
            .bind(on)
            .bind(actor.at)
            .bind(connector)
            .execute(&mut *tx)
            .await
            .map_err(backend)?;
        let removed = if on { 0 } else { purge(&mut tx, connector, &[]).await? };
        let detail = format!("keep cards {}; {removed} cards removed", if on { "on" } else { "off" });
        audit(&mut tx, actor, "connector.keep_cards", &format!("connector:{connector}"), &detail).await?;
        tx.commit().await.map_err(backend)?;
        Ok(removed)
    }

    async fn set_key_mode(
        &self,
        connector: i64,
        mode: KeyMode,
        own_key_tools: &[String],
        actor: Actor,
    ) -> Result<u32, StoreError> {
        let mut tx = self.pool().begin().await.map_err(backend)?;
        let row = sqlx::query(
            "UPDATE connectors SET key_mode = $1, own_key_tools = $2, updated_at = $3 WHERE id = $4 RETURNING *",
        )
        .bind(mode.as_str())
        .bind(to_json(&own_key_tools))
        .bind(actor.at)
        .bind(connector)
        .fetch_one(&mut *tx)
        .await
        .map_err(backend)?;
        let kinds = connector_from(&row)?.key_kinds_in_use();
        let removed = purge(&mut tx, connector, &kinds).await?;
        let detail = format!("key mode {}; {removed} cards removed", mode.as_str());
        audit(&mut tx, actor, "connector.key_mode", &format!("connector:{connector}"), &detail).await?;
        tx.commit().await.map_err(backend)?;
        Ok(removed)
    }

    async fn set_killed(&self, connector: i64, killed: bool, actor: Actor) -> Result<(), StoreError> {
        let mut tx = self.pool().begin().await.map_err(backend)?;
        sqlx::query("UPDATE connectors SET killed = $1, updated_at = $2 WHERE id = $3")
            .bind(killed)
            .bind(actor.at)
            .bind(connector)
            .execute(&mut *tx)
            .await
            .map_err(backend)?;
        audit(
            &mut tx,
            actor,
            "connector.kill_switch",
            &format!("connector:{connector}"),
            if killed { "on" } else { "off" },
        )
        .await?;
        tx.commit().await.map_err(backend)
    }

    async fn update_connector(&self, c: &Connector, actor: Actor) -> Result<(), StoreError> {
        let mut tx = self.pool().begin().await.map_err(backend)?;
        sqlx::query(
            "UPDATE connectors SET ticked = $1, label = $2, admits_roles = $3, structured_soft_mins = $4, \
             structured_hard_mins = $5, free_text_soft_mins = $6, free_text_hard_mins = $7, hourly_limit = $8, \
             updated_at = $9 WHERE id = $10",
        )
        .bind(to_json(&c.ticked))
        .bind(c.label.as_str())
        .bind(to_json(&c.admits_roles))
        .bind(i64::from(c.structured.soft_mins))
        .bind(i64::from(c.structured.hard_mins))
        .bind(i64::from(c.free_text.soft_mins))
        .bind(i64::from(c.free_text.hard_mins))
        .bind(i64::from(c.hourly_limit))
        .bind(actor.at)
        .bind(c.id)
        .execute(&mut *tx)
        .await
        .map_err(backend)?;
        let detail = format!("ticked {}; label {}; limit {}/h", c.ticked.join(", "), c.label.as_str(), c.hourly_limit);
        audit(&mut tx, actor, "connector.settings", &format!("connector:{}", c.id), &detail).await?;
        tx.commit().await.map_err(backend)
    }

    async fn claim_read(
        &self,
        connector: i64,
        purpose: &str,
        since: DateTime<Utc>,
        limit: u32,
        at: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        claim_call(self.pool(), CallLedger::ConnectorRead { connector, purpose }, since, limit, at).await
    }

    async fn upsert_card(&self, c: &NewCard) -> Result<Card, StoreError> {
        // The stored fields are read under a row lock, so two reads of one record meet them one
        // after the other (`after_read` keeps what a read left out). When no card exists yet, the
        // insert's conflict target is the expression index `cards_identity`: of two first reads
        // racing, the second inserts nothing and goes round once more, finding the first's card.
        let mut tx = self.pool().begin().await.map_err(backend)?;
        for _ in 0..2 {
            let existing: Option<(i64, String)> = sqlx::query_as(
                "SELECT id, fields FROM cards WHERE connector_id = $1 AND kind = $2 AND record_id = $3 \
                 AND read_with = $4 AND COALESCE(read_as, 0) = $5 FOR UPDATE",
            )
            .bind(c.connector)
            .bind(&c.kind)
            .bind(&c.record_id)
            .bind(c.read_with.as_str())
            .bind(c.read_as.map(|p| p.0).unwrap_or(0))
            .fetch_optional(&mut *tx)
            .await
            .map_err(backend)?;
            let row = match existing {
                Some((id, stored)) => {
                    let stored: Vec<CardField> = serde_json::from_str(&stored).map_err(|_| bad("card fields"))?;
                    let after = after_read(&stored, c);
                    // `read_as` is part of the identity, so it never changes.
                    sqlx::query(&format!(
                        "UPDATE cards SET tool = $1, version = $2, fields = $3, not_returned = $4, \
                         label_when_read = $5, open_work = $6, read_at = $7 WHERE id = $8 RETURNING {CARD_COLUMNS}"
                    ))
                    .bind(&c.tool)
                    .bind(&c.version)
                    .bind(to_json(&after.fields))
                    .bind(to_json(&after.not_returned))
                    .bind(c.label_when_read.as_str())
                    .bind(after.open_work)
                    .bind(c.read_at)
                    .bind(id)
                    .fetch_optional(&mut *tx)
                    .await
                    .map_err(backend)?
                }
                None => {
                    let after = after_read(&[], c);
                    sqlx::query(&format!(
                        "INSERT INTO cards (connector_id, tool, kind, record_id, version, fields, not_returned, \
                         read_with, read_as, label_when_read, open_work, read_at) \
                         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) \
                         ON CONFLICT (connector_id, kind, record_id, read_with, (COALESCE(read_as, 0))) DO NOTHING \
                         RETURNING {CARD_COLUMNS}"
                    ))
                    .bind(c.connector)
                    .bind(&c.tool)
                    .bind(&c.kind)
                    .bind(&c.record_id)
                    .bind(&c.version)
                    .bind(to_json(&after.fields))
                    .bind(to_json(&after.not_returned))
                    .bind(c.read_with.as_str())
                    .bind(c.read_as.map(|p| p.0))
                    .bind(c.label_when_read.as_str())
                    .bind(after.open_work)
                    .bind(c.read_at)
                    .fetch_optional(&mut *tx)
                    .await
                    .map_err(backend)?
                }
            };
            if let Some(row) = row {
                let card = card_from(&row)?;
                tx.commit().await.map_err(backend)?;
                return Ok(card);
            }
        }
        Err(StoreError::Backend(format!("card {} {} kept by neither insert nor update", c.kind, c.record_id)))
    }

    async fn card(&self, id: i64) -> Result<Option<Card>, StoreError> {
        let row = sqlx::query(&format!("SELECT {CARD_COLUMNS} FROM cards WHERE id = $1"))
            .bind(id)
            .fetch_optional(self.pool())
            .await
            .map_err(backend)?;
        row.as_ref().map(card_from).transpose()
    }

    async fn remove_card(&self, id: i64, reason: &str, actor: Actor) -> Result<(), StoreError> {
        let mut tx = self.pool().begin().await.map_err(backend)?;
        delete_card(&mut tx, id).await?;
        audit(&mut tx, actor, "card.remove", &format!("card:{id}"), reason).await?;
        tx.commit().await.map_err(backend)
    }

    async fn kept(&self, person: PersonId) -> Result<Vec<(Card, CardUse)>, StoreError> {
        let rows = sqlx::query(&format!(
            "SELECT {}, u.person_id, u.card_id, u.summary, u.pinned, u.last_use FROM card_uses u \
             JOIN cards c ON c.id = u.card_id WHERE u.person_id = $1 ORDER BY c.id",
            joined_card_columns()
        ))
        .bind(person.0)
        .fetch_all(self.pool())
        .await
        .map_err(backend)?;
        rows.iter().map(|r| Ok((card_from(r)?, use_from(r)?))).collect()
    }

    async fn card_use(&self, person: PersonId, card: i64) -> Result<Option<CardUse>, StoreError> {
        let row = sqlx::query("SELECT * FROM card_uses WHERE person_id = $1 AND card_id = $2")
            .bind(person.0)
            .bind(card)
            .fetch_optional(self.pool())
            .await
            .map_err(backend)?;
        row.as_ref().map(use_from).transpose()
    }

    async fn save_use(&self, u: &CardUse) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO card_uses (person_id, card_id, summary, pinned, last_use) VALUES ($1, $2, $3, $4, $5) \
             ON CONFLICT (person_id, card_id) DO UPDATE SET summary = excluded.summary, pinned = excluded.pinned, \
             last_use = excluded.last_use",
        )
        .bind(u.person.0)
        .bind(u.card)
        .bind(to_json(&u.summary))
        .bind(u.pinned)
        .bind(u.last_use)
        .execute(self.pool())
        .await
        .map_err(backend)?;
        Ok(())
    }

    async fn remove_use(&self, person: PersonId, card: i64, reason: &str, actor: Actor) -> Result<(), StoreError> {
        let mut tx = self.pool().begin().await.map_err(backend)?;
        // The delete locks the row, so of two concurrent removals only one sees it and audits it.
        let gone = sqlx::query("DELETE FROM card_uses WHERE person_id = $1 AND card_id = $2")
            .bind(person.0)
            .bind(card)
            .execute(&mut *tx)
            .await
            .map_err(backend)?;
        if gone.rows_affected() > 0 {
            audit(
                &mut tx,
                actor,
                "card_use.remove",
                &format!("person:{}", person.0),
                &format!("card:{card}: {reason}"),
            )
            .await?;
        }
        tx.commit().await.map_err(backend)
    }

    async fn forget(
        &self,
        person: PersonId,
        card: &Card,
        until: DateTime<Utc>,
        actor: Actor,
    ) -> Result<(), StoreError> {
        let mut tx = self.pool().begin().await.map_err(backend)?;
        sqlx::query("DELETE FROM card_uses WHERE person_id = $1 AND card_id = $2")
            .bind(person.0)
            .bind(card.id)
            .execute(&mut *tx)
            .await
            .map_err(backend)?;
        sqlx::query(
            "INSERT INTO forgotten_records (person_id, connector_id, kind, record_id, until, tool, forgotten_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (person_id, connector_id, kind, record_id) DO UPDATE SET \
             until = excluded.until, tool = excluded.tool, forgotten_at = excluded.forgotten_at, lifted_at = NULL, \
             lifted_reason = NULL",
        )
        .bind(person.0)
        .bind(card.connector)
        .bind(&card.kind)
        .bind(&card.record_id)
        .bind(until)
        .bind(&card.tool)
        .bind(actor.at)
        .execute(&mut *tx)
        .await
        .map_err(backend)?;
        audit(&mut tx, actor, "card.forget", &format!("person:{}", person.0), &format!("card:{}", card.id)).await?;
        tx.commit().await.map_err(backend)
    }

    async fn forgotten(&self, person: PersonId, now: DateTime<Utc>) -> Result<Vec<Forgotten>, StoreError> {
        let rows = sqlx::query(
            "SELECT connector_id, kind, record_id, tool, forgotten_at, until FROM forgotten_records \
             WHERE person_id = $1 AND lifted_at IS NULL AND until > $2 ORDER BY until DESC, record_id COLLATE \"C\"",
        )
        .bind(person.0)
        .bind(now)
        .fetch_all(self.pool())
        .await
        .map_err(backend)?;
        Ok(rows
            .iter()
            .map(|r| {
                let until: DateTime<Utc> = r.get("until");
                Forgotten {
                    connector: r.get("connector_id"),
                    kind: r.get("kind"),
                    record_id: r.get("record_id"),
                    tool: r.get("tool"),
                    // Rows from before the column existed were forgotten for the full 30 days.
                    forgotten_at: r
                        .get::<Option<DateTime<Utc>>, _>("forgotten_at")
                        .unwrap_or(until - chrono::Duration::days(engine::cards::service::FORGET_DAYS)),
                    until,
                }
            })
            .collect())
    }

    async fn lift_forget(&self, person: PersonId, f: &Forgotten, reason: &str, actor: Actor) -> Result<(), StoreError> {
        let mut tx = self.pool().begin().await.map_err(backend)?;
        sqlx::query(
            "UPDATE forgotten_records SET lifted_at = $1, lifted_reason = $2 WHERE person_id = $3 \
             AND connector_id = $4 AND kind = $5 AND record_id = $6 AND lifted_at IS NULL",
        )
        .bind(actor.at)
        .bind(reason)
        .bind(person.0)
        .bind(f.connector)
        .bind(&f.kind)
        .bind(&f.record_id)
        .execute(&mut *tx)
        .await
        .map_err(backend)?;
        audit(&mut tx, actor, "card.forget_lifted", &format!("person:{}", person.0), reason).await?;
        tx.commit().await.map_err(backend)
    }

    async fn forgotten_until(
        &self,
        person: PersonId,
        connector: i64,
        kind: &str,
        record_id: &str,
    ) -> Result<Option<DateTime<Utc>>, StoreError> {
        sqlx::query_scalar(
            "SELECT until FROM forgotten_records WHERE person_id = $1 AND connector_id = $2 AND kind = $3 \
             AND record_id = $4 AND lifted_at IS NULL",
        )
        .bind(person.0)
        .bind(connector)
        .bind(kind)
        .bind(record_id)
        .fetch_optional(self.pool())
        .await
        .map_err(backend)
    }

    async fn counts(&self, person: PersonId) -> Result<(u32, u32), StoreError> {
        let (kept, pinned): (i64, i64) =
            sqlx::query_as("SELECT COUNT(*), COUNT(*) FILTER (WHERE pinned) FROM card_uses WHERE person_id = $1")
                .bind(person.0)
                .fetch_one(self.pool())
                .await
                .map_err(backend)?;
        Ok((kept as u32, pinned as u32))
    }

    async fn my_work_queries(&self, role: RoleId) -> Result<Vec<MyWorkQuery>, StoreError> {
        let rows = sqlx::query("SELECT * FROM my_work_queries WHERE role_id = $1 ORDER BY id")
            .bind(role.0)
            .fetch_all(self.pool())
            .await
            .map_err(backend)?;
        Ok(rows
            .iter()
            .map(|r| MyWorkQuery {
                id: r.get("id"),
                role: RoleId(r.get("role_id")),
                connector: r.get("connector_id"),
                tool: r.get("tool"),
                arguments: r.get("arguments"),
                label: r.get("label"),
            })
            .collect())
    }

    async fn add_my_work_query(&self, q: &MyWorkQuery, actor: Actor) -> Result<MyWorkQuery, StoreError> {
        let mut tx = self.pool().begin().await.map_err(backend)?;
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO my_work_queries (role_id, connector_id, tool, arguments, label, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
        )
        .bind(q.role.0)
        .bind(q.connector)
        .bind(&q.tool)
        .bind(&q.arguments)
        .bind(&q.label)
        .bind(actor.at)
        .fetch_one(&mut *tx)
        .await
        .map_err(backend)?;
        audit(&mut tx, actor, "my_work.add", &format!("role:{}", q.role.0), &q.label).await?;
        tx.commit().await.map_err(backend)?;
        Ok(MyWorkQuery { id, ..q.clone() })
    }

    async fn prepare_setting(&self, person: PersonId) -> Result<PrepareSetting, StoreError> {
        let row = sqlx::query("SELECT * FROM prepare_my_day WHERE person_id = $1")
            .bind(person.0)
            .fetch_optional(self.pool())
            .await
            .map_err(backend)?;
        Ok(row
            .map(|r| PrepareSetting {
                enabled: r.get("enabled"),
                at_time: r.get("at_time"),
                last_local_date: r.get("last_local_date"),
            })
            .unwrap_or_default())
    }

    async fn save_prepare_setting(&self, person: PersonId, s: &PrepareSetting) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO prepare_my_day (person_id, enabled, at_time, last_local_date) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (person_id) DO UPDATE SET enabled = excluded.enabled, at_time = excluded.at_time, \
             last_local_date = excluded.last_local_date",
        )
        .bind(person.0)
        .bind(s.enabled)
        .bind(&s.at_time)
        .bind(&s.last_local_date)
        .execute(self.pool())
        .await
        .map_err(backend)?;
        Ok(())
    }

    async fn prepare_enabled(&self) -> Result<Vec<(PersonId, PrepareSetting)>, StoreError> {
        let rows = sqlx::query("SELECT * FROM prepare_my_day WHERE enabled ORDER BY person_id")
            .fetch_all(self.pool())
            .await
            .map_err(backend)?;
        Ok(rows
            .iter()
            .map(|r| {
                (
                    PersonId(r.get("person_id")),
                    PrepareSetting {
                        enabled: true,
                        at_time: r.get("at_time"),
                        last_local_date: r.get("last_local_date"),
                    },
                )
            })
            .collect())
    }

    async fn person_time_zone(&self, person: PersonId) -> Result<Option<String>, StoreError> {
        let tz: Option<Option<String>> = sqlx::query_scalar("SELECT time_zone FROM people WHERE id = $1")
            .bind(person.0)
            .fetch_optional(self.pool())
            .await
            .map_err(backend)?;
        Ok(tz.flatten())
    }

    async fn set_person_time_zone(&self, person: PersonId, zone: Option<&str>, actor: Actor) -> Result<(), StoreError> {
        let mut tx = self.pool().begin().await.map_err(backend)?;
        sqlx::query("UPDATE people SET time_zone = $1 WHERE id = $2")
            .bind(zone)
            .bind(person.0)
            .execute(&mut *tx)
            .await
            .map_err(backend)?;
        audit(&mut tx, actor, "person.time_zone", &format!("person:{}", person.0), zone.unwrap_or("company's")).await?;
        tx.commit().await.map_err(backend)
    }

    async fn agent_access(&self, agent: engine::org::AgentId) -> Result<Option<(DataLabel, Vec<i64>)>, StoreError> {
        let clearance: Option<String> = sqlx::query_scalar("SELECT clearance FROM agents WHERE id = $1")
            .bind(agent.0)
            .fetch_optional(self.pool())
            .await
            .map_err(backend)?;
        let Some(clearance) = clearance else { return Ok(None) };
        let toolsets: Vec<i64> =
            sqlx::query_scalar("SELECT connector_id FROM agent_toolsets WHERE agent_id = $1 ORDER BY connector_id")
                .bind(agent.0)
                .fetch_all(self.pool())
                .await
                .map_err(backend)?;
        Ok(Some((DataLabel::parse(&clearance).ok_or_else(|| bad("clearance"))?, toolsets)))
    }

    async fn set_agent_access(
        &self,
        agent: engine::org::AgentId,
        clearance: DataLabel,
        toolsets: &[i64],
        actor: Actor,
    ) -> Result<(), StoreError> {
        let mut tx = self.pool().begin().await.map_err(backend)?;
        // The update locks the agent's row, so two changes of its toolsets cannot interleave.
        sqlx::query("UPDATE agents SET clearance = $1 WHERE id = $2")
            .bind(clearance.as_str())
            .bind(agent.0)
            .execute(&mut *tx)
            .await
            .map_err(backend)?;
        sqlx::query("DELETE FROM agent_toolsets WHERE agent_id = $1")
            .bind(agent.0)
            .execute(&mut *tx)
            .await
            .map_err(backend)?;
        for t in toolsets {
            sqlx::query("INSERT INTO agent_toolsets (agent_id, connector_id) VALUES ($1, $2)")
                .bind(agent.0)
                .bind(t)
                .execute(&mut *tx)
                .await
                .map_err(backend)?;
        }
        let detail = format!("cleared for {}; holds {:?}", clearance.as_str(), toolsets);
        audit(&mut tx, actor, "agent.access", &format!("agent:{}", agent.0), &detail).await?;
        tx.commit().await.map_err(backend)
    }

    async fn all_uses(&self) -> Result<Vec<(Card, CardUse)>, StoreError> {
        let rows = sqlx::query(&format!(
            "SELECT {}, u.person_id, u.card_id, u.summary, u.pinned, u.last_use FROM card_uses u \
             JOIN cards c ON c.id = u.card_id ORDER BY c.id",
            joined_card_columns()
        ))
        .fetch_all(self.pool())
        .await
        .map_err(backend)?;
        rows.iter().map(|r| Ok((card_from(r)?, use_from(r)?))).collect()
    }

    async fn remove_unkept_cards(&self, actor: Actor) -> Result<u32, StoreError> {
        let mut tx = self.pool().begin().await.map_err(backend)?;
        // Locking the candidates first, then deleting under a fresh snapshot, means a use saved
        // meanwhile is either seen (its card stays) or waits and finds its card gone; it is never
        // taken away with the card by the cascade.
        let candidates: Vec<i64> = sqlx::query_scalar(
            "SELECT id FROM cards WHERE NOT EXISTS (SELECT 1 FROM card_uses u WHERE u.card_id = cards.id) \
             ORDER BY id FOR UPDATE",
        )
        .fetch_all(&mut *tx)
        .await
        .map_err(backend)?;
        let done = sqlx::query(
            "DELETE FROM cards WHERE id = ANY($1) AND NOT EXISTS (SELECT 1 FROM card_uses u WHERE u.card_id = cards.id)",
        )
        .bind(&candidates)
        .execute(&mut *tx)
        .await
        .map_err(backend)?;
        let n = done.rows_affected() as u32;
        if n > 0 {
            audit(&mut tx, actor, "card.remove_unkept", "cards", &format!("{n} cards nobody keeps")).await?;
        }
        tx.commit().await.map_err(backend)?;
        Ok(n)
    }

    async fn job_last_run(&self, name: &str) -> Result<Option<String>, StoreError> {
        sqlx::query_scalar("SELECT last_local_date FROM job_runs WHERE name = $1")
            .bind(name)
            .fetch_optional(self.pool())
            .await
            .map_err(backend)
    }

    async fn claim_job_run(&self, name: &str, local_date: &str) -> Result<bool, StoreError> {
        // One statement: of racing claims for the same date, the unique name lets one insert or
        // move the date, and the others find it already there and change nothing.
        let done = sqlx::query(
            "INSERT INTO job_runs (name, last_local_date) VALUES ($1, $2) \
             ON CONFLICT (name) DO UPDATE SET last_local_date = excluded.last_local_date \
             WHERE job_runs.last_local_date <> excluded.last_local_date",
        )
        .bind(name)
        .bind(local_date)
        .execute(self.pool())
        .await
        .map_err(backend)?;
        Ok(done.rows_affected() == 1)
    }

    async fn claim_prepare(&self, person: PersonId, local_date: &str) -> Result<bool, StoreError> {
        let done = sqlx::query(
            "UPDATE prepare_my_day SET last_local_date = $1 \
             WHERE person_id = $2 AND (last_local_date IS NULL OR last_local_date <> $3)",
        )
        .bind(local_date)
        .bind(person.0)
        .bind(local_date)
        .execute(self.pool())
        .await
        .map_err(backend)?;
        Ok(done.rows_affected() == 1)
    }
}
