//! Erasing a third party: every table that can hold a third party's email address or phone number,
//! searched and cleared in one write, and the company's erasure key the audit's hash is keyed with.
//!
//! Each table is searched in two passes (see `engine::erasure::naming`): SQL finds the rows whose
//! texts may name the value (`probe_condition`: the email's domain, or the phone number's digits
//! once the characters written between them are taken out), and the engine's `Naming::names`
//! decides on each text of each row found, so a row is removed only for a value the gate would
//! read as the one erased.
//!
//! Written once for both backends (see "Written once" in `store`); each gives `BODY_TEXT`, a kept
//! answer's bytes read as text, which is the one expression their SQL spells differently.

use engine::erasure::Probe;
use hmac::{Hmac, Mac};
use sha2::Sha256;

/// HMAC-SHA256 of `text` under `key`, in lowercase hex.
pub(crate) fn hmac_hex(key: &[u8], text: &str) -> String {
    // HMAC takes a key of any length; this is never refused.
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(key).expect("HMAC takes a key of any length");
    mac.update(text.as_bytes());
    mac.finalize().into_bytes().iter().map(|b| format!("{b:02x}")).collect()
}

/// The condition that a row's texts (`columns`, SQL expressions that may be NULL) may name the
/// value: joined and lowercased, each of the probe's characters taken out, and holding one of its
/// needles. Parameters are numbered from `$first`; returns the condition and what to bind, in order.
pub(crate) fn probe_condition(columns: &[&str], probe: &Probe, first: usize) -> (String, Vec<String>) {
    let joined = columns.iter().map(|c| format!("coalesce({c}, '')")).collect::<Vec<_>>().join(" || '|' || ");
    let mut text = format!("lower({joined})");
    let mut binds = Vec::new();
    let mut n = first;
    for s in probe.strip {
        text = format!("replace({text}, ${n}, '')");
        binds.push((*s).to_string());
        n += 1;
    }
    let mut likes = Vec::new();
    for pattern in probe.like_patterns() {
        likes.push(format!("{text} LIKE ${n} ESCAPE '\\'"));
        binds.push(pattern);
        n += 1;
    }
    (format!("({})", likes.join(" OR ")), binds)
}

macro_rules! erasure_store {
    () => {
        use super::{audit, begin_write, Conn, DbRow, ThisStore, FOR_UPDATE};
        use crate::secrets::{Place, SecretKey};
        use crate::store::erasure::{hmac_hex, probe_condition};
        use crate::store::sealing::{check_still_opens, open_stored, sealer};
        use crate::store::OrBackend;
        use async_trait::async_trait;
        use engine::erasure::{ErasedCounts, ErasureOutcome, ErasureRecord, ErasureStore, Naming};
        use engine::store::{Actor, StoreError};
        use sqlx::Row;

        /// The rows of `from` whose `texts` may name the value, with `columns` (the key first).
        async fn candidates(
            conn: &mut Conn,
            naming: &Naming,
            columns: &str,
            from: &str,
            texts: &[&str],
            lock: &str,
        ) -> Result<Vec<DbRow>, StoreError> {
            let (condition, binds) = probe_condition(texts, &naming.probe(), 1);
            let sql = format!("SELECT {columns} FROM {from} WHERE {condition}{lock}");
            let mut q = sqlx::query(&sql);
            for b in &binds {
                q = q.bind(b);
            }
            q.fetch_all(&mut *conn).await.or_backend()
        }

        /// Whether a row's text columns name the value.
        fn names(naming: &Naming, row: &DbRow, columns: &[&str]) -> bool {
            let texts: Vec<Option<String>> = columns.iter().map(|c| row.get(*c)).collect();
            naming.names_any(texts.iter().map(|t| t.as_deref()))
        }

        /// The name of a person of the directory, left or not, whose email it is.
        async fn person_named(conn: &mut Conn, naming: &Naming) -> Result<Option<String>, StoreError> {
            let rows = candidates(conn, naming, "name, email", "people", &["email"], "").await?;
            Ok(rows.iter().find(|r| names(naming, r, &["email"])).map(|r| r.get("name")))
        }

        /// Cards, with every use of them (the uses' terms follow by trigger) and their own terms
        /// (by cascade). Each card is locked before its uses, in the order a purge takes them.
        async fn erase_cards(conn: &mut Conn, naming: &Naming) -> Result<u32, StoreError> {
            const TEXTS: &[&str] = &["record_id", "version", "fields"];
            let rows = candidates(conn, naming, "id, record_id, version, fields", "cards", TEXTS, &format!(" ORDER BY id{FOR_UPDATE}")).await?;
            let mut n = 0;
            for row in rows.iter().filter(|r| names(naming, r, TEXTS)) {
                let id: i64 = row.get("id");
                sqlx::query("DELETE FROM card_uses WHERE card_id = $1").bind(id).execute(&mut *conn).await.or_backend()?;
                let done = sqlx::query("DELETE FROM cards WHERE id = $1").bind(id).execute(&mut *conn).await.or_backend()?;
                n += done.rows_affected() as u32;
            }
            Ok(n)
        }

        /// The records people forgot, by the record's id.
        async fn erase_forgotten(conn: &mut Conn, naming: &Naming) -> Result<u32, StoreError> {
            const TEXTS: &[&str] = &["record_id"];
            let rows = candidates(conn, naming, "person_id, connector_id, kind, record_id", "forgotten_records", TEXTS, "").await?;
            let mut n = 0;
            for row in rows.iter().filter(|r| names(naming, r, TEXTS)) {
                let done = sqlx::query(
                    "DELETE FROM forgotten_records WHERE person_id = $1 AND connector_id = $2 AND kind = $3 AND record_id = $4",
                )
                .bind(row.get::<i64, _>("person_id"))
                .bind(row.get::<i64, _>("connector_id"))
                .bind(row.get::<String, _>("kind"))
                .bind(row.get::<String, _>("record_id"))
                .execute(&mut *conn)
                .await
                .or_backend()?;
                n += done.rows_affected() as u32;
            }
            Ok(n)
        }

        /// List snapshots, open or closed.
        async fn erase_snapshots(conn: &mut Conn, naming: &Naming) -> Result<u32, StoreError> {
            const TEXTS: &[&str] = &["arguments", "asked", "records", "closed_reason"];
            let rows = candidates(conn, naming, "id, arguments, asked, records, closed_reason", "list_snapshots", TEXTS, "").await?;
            let mut n = 0;
            for row in rows.iter().filter(|r| names(naming, r, TEXTS)) {
                let done = sqlx::query("DELETE FROM list_snapshots WHERE id = $1")
                    .bind(row.get::<i64, _>("id"))
                    .execute(&mut *conn)
                    .await
                    .or_backend()?;
                n += done.rows_affected() as u32;
            }
            Ok(n)
        }

        /// Lessons of any scope and state, each with every version it replaced. A later version
        /// that replaced one of them stays, without the link to it, as Forget leaves it.
        async fn erase_lessons(conn: &mut Conn, naming: &Naming) -> Result<u32, StoreError> {
            const TEXTS: &[&str] = &["text", "claim_record", "claim_field", "claim_value", "source_version", "state_reason"];
            let rows = candidates(
                conn,
                naming,
                "id, supersedes, text, claim_record, claim_field, claim_value, source_version, state_reason",
                "lessons",
                TEXTS,
                &format!(" ORDER BY id{FOR_UPDATE}"),
            )
            .await?;
            let mut gone: Vec<i64> = Vec::new();
            for row in rows.iter().filter(|r| names(naming, r, TEXTS)) {
                let mut next = Some(row.get::<i64, _>("id"));
                while let Some(at) = next.filter(|i| !gone.contains(i)) {
                    let replaced: Option<Option<i64>> =
                        sqlx::query_scalar(&format!("SELECT supersedes FROM lessons WHERE id = $1{FOR_UPDATE}"))
                            .bind(at)
                            .fetch_optional(&mut *conn)
                            .await
                            .or_backend()?;
                    let Some(replaced) = replaced else { break };
                    gone.push(at);
                    next = replaced;
                }
            }
            for id in &gone {
                sqlx::query("UPDATE lessons SET supersedes = NULL WHERE supersedes = $1")
                    .bind(id)
                    .execute(&mut *conn)
                    .await
                    .or_backend()?;
            }
            for id in &gone {
                sqlx::query("DELETE FROM lessons WHERE id = $1").bind(id).execute(&mut *conn).await.or_backend()?;
            }
            Ok(gone.len() as u32)
        }

        /// Who's-who entries, with their keys; the next fetch of their list may keep them again.
        async fn erase_entries(conn: &mut Conn, naming: &Naming) -> Result<u32, StoreError> {
            const TEXTS: &[&str] = &["entry_id", "kept_values", "names"];
            let rows = candidates(conn, naming, "id, entry_id, kept_values, names", "list_entries", TEXTS, "").await?;
            let mut n = 0;
            for row in rows.iter().filter(|r| names(naming, r, TEXTS)) {
                let id: i64 = row.get("id");
                sqlx::query("DELETE FROM list_entry_keys WHERE list_entry_id = $1")
                    .bind(id)
                    .execute(&mut *conn)
                    .await
                    .or_backend()?;
                let done =
                    sqlx::query("DELETE FROM list_entries WHERE id = $1").bind(id).execute(&mut *conn).await.or_backend()?;
                n += done.rows_affected() as u32;
            }
            Ok(n)
        }

        /// Who's-who refetches claimed for an id a run met, by the id in the claim's slot.
        async fn erase_fetch_claims(conn: &mut Conn, naming: &Naming) -> Result<u32, StoreError> {
            let rows = candidates(conn, naming, "connector_id, slot", "list_fetch_claims", &["slot"], "").await?;
            let mut n = 0;
            for row in &rows {
                let slot: String = row.get("slot");
                let id = engine::runs::lists::id_of_unknown_id_slot(&slot);
                if !naming.names_any([id, Some(slot.as_str())]) {
                    continue;
                }
                let done = sqlx::query("DELETE FROM list_fetch_claims WHERE connector_id = $1 AND slot = $2")
                    .bind(row.get::<i64, _>("connector_id"))
                    .bind(&slot)
                    .execute(&mut *conn)
                    .await
                    .or_backend()?;
                n += done.rows_affected() as u32;
            }
            Ok(n)
        }

        /// Answers kept for a retried API request that quote the value: the key then counts as
        /// never used.
        async fn erase_saved_answers(conn: &mut Conn, naming: &Naming) -> Result<u32, StoreError> {
            let rows = candidates(conn, naming, "scope, key, body", "idempotency_keys", &[BODY_TEXT], "").await?;
            let mut n = 0;
            for row in &rows {
                let body: Option<Vec<u8>> = row.get("body");
                if !body.is_some_and(|b| naming.names(&String::from_utf8_lossy(&b))) {
                    continue;
                }
                let done = sqlx::query("DELETE FROM idempotency_keys WHERE scope = $1 AND key = $2")
                    .bind(row.get::<String, _>("scope"))
                    .bind(row.get::<String, _>("key"))
                    .execute(&mut *conn)
                    .await
                    .or_backend()?;
                n += done.rows_affected() as u32;
            }
            Ok(n)
        }

        impl ThisStore {
            /// The company's erasure key, made at its first use: 32 random bytes, sealed with the
            /// secret key once the key check (read `FOR_SHARE`, so a rotation waits for this write
            /// or this write for it) says it is still the database's key.
            async fn erasure_key(&self) -> Result<SecretKey, StoreError> {
                let stored: Option<String> = sqlx::query_scalar("SELECT sealed FROM erasure_key WHERE id = 1")
                    .fetch_optional(self.pool())
                    .await
                    .or_backend()?;
                let stored = match stored {
                    Some(s) => s,
                    None => {
                        let sealer = sealer(self.secrets())?;
                        let mut tx = begin_write(self.pool()).await?;
                        check_still_opens(sealer, super::secrets::key_check(&mut tx).await?)?;
                        // Of two servers making it at once, the first one's key is everyone's.
                        sqlx::query(
                            "INSERT INTO erasure_key (id, sealed, created_at) VALUES (1, $1, $2) ON CONFLICT (id) DO NOTHING",
                        )
                        .bind(sealer.seal(&SecretKey::generate().to_base64(), Place::ErasureKey))
                        .bind(chrono::Utc::now())
                        .execute(&mut *tx)
                        .await
                        .or_backend()?;
                        let s: String = sqlx::query_scalar("SELECT sealed FROM erasure_key WHERE id = 1")
                            .fetch_one(&mut *tx)
                            .await
                            .or_backend()?;
                        tx.commit().await.or_backend()?;
                        s
                    }
                };
                let text = open_stored(self.secrets(), &stored, Place::ErasureKey)?;
                SecretKey::parse(&text).map_err(|e| StoreError::Backend(format!("the erasure key {e}")))
            }
        }

        #[async_trait]
        impl ErasureStore for ThisStore {
            async fn keyed_hash(&self, text: &str) -> Result<String, StoreError> {
                Ok(hmac_hex(self.erasure_key().await?.as_bytes(), text))
            }

            async fn erase_naming(
                &self,
                naming: &Naming,
                record: &ErasureRecord,
                actor: Actor,
            ) -> Result<ErasureOutcome, StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                // Dropped without a commit: nothing was changed.
                if let Some(name) = person_named(&mut tx, naming).await? {
                    return Ok(ErasureOutcome::InDirectory { name });
                }
                let counts = ErasedCounts {
                    cards: erase_cards(&mut tx, naming).await?,
                    forgotten: erase_forgotten(&mut tx, naming).await?,
                    snapshots: erase_snapshots(&mut tx, naming).await?,
                    lessons: erase_lessons(&mut tx, naming).await?,
                    whos_who: erase_entries(&mut tx, naming).await?,
                    fetch_claims: erase_fetch_claims(&mut tx, naming).await?,
                    saved_answers: erase_saved_answers(&mut tx, naming).await?,
                };
                audit(&mut tx, actor, ErasureRecord::ACTION, &record.subject(), &record.detail(&counts)).await?;
                tx.commit().await.or_backend()?;
                Ok(ErasureOutcome::Erased(counts))
            }
        }
    };
}
pub(crate) use erasure_store;
