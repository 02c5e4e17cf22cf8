//! Cores: versions appended under a unique (scope, version) key, and suggestions.
//!
//! Written once for both backends (see "Written once" in `store`).

macro_rules! cores_store {
    () => {
        use super::{backend, begin_write, is_unique_violation, Conn, DbRow, ThisStore, FOR_UPDATE};
        use crate::store::OrBackend;
        use crate::store::{run_cores_from, JOINED_ROLE_COLUMNS, JOINED_TEAM_COLUMNS};
        use async_trait::async_trait;
        use engine::cores::{
            CoreHead, CoreScope, CoreVersion, NewCoreVersion, NewSuggestion, RunCores, Suggestion, SuggestionState,
            COMPANY_KEY_PREFIX,
        };
        use engine::org::{RoleId, TeamId};
        use engine::store::{Actor, CoreStore, StoreError};
        use sqlx::Row;

        const VERSION_SELECT: &str =
            "SELECT v.scope_key, v.version, v.body, v.tokens, v.note, v.restored_from, v.saved_at, \
             p.name AS author_name FROM core_versions v JOIN people p ON p.id = v.author_id";

        const SUGGESTION_SELECT: &str = "SELECT s.*, p.name AS decided_by_name FROM core_suggestions s \
             LEFT JOIN people p ON p.id = s.decided_by";

        fn scope_from(key: &str) -> Result<CoreScope, StoreError> {
            CoreScope::parse(key).map_err(|e| StoreError::Backend(format!("bad scope key {key}: {e}")))
        }

        fn version_from(row: &DbRow) -> Result<CoreVersion, StoreError> {
            Ok(CoreVersion {
                scope: scope_from(row.get("scope_key"))?,
                version: row.get::<i64, _>("version") as u32,
                text: row.get("body"),
                tokens: row.get::<i64, _>("tokens") as u32,
                author: row.get("author_name"),
                note: row.get("note"),
                restored_from: row.get::<Option<i64>, _>("restored_from").map(|v| v as u32),
                saved_at: row.get("saved_at"),
            })
        }

        fn suggestion_from(row: &DbRow) -> Result<Suggestion, StoreError> {
            let state: String = row.get("state");
            Ok(Suggestion {
                id: row.get("id"),
                scope: scope_from(row.get("scope_key"))?,
                line: row.get("line"),
                why: row.get("why"),
                rests_on: row.get("rests_on"),
                source: row.get("source"),
                based_on: row.get::<i64, _>("based_on") as u32,
                state: SuggestionState::parse(&state)
                    .ok_or_else(|| StoreError::Backend(format!("bad suggestion state {state}")))?,
                created_at: row.get("created_at"),
                decided_by: row.get("decided_by_name"),
                decided_at: row.get("decided_at"),
            })
        }

        /// Inserts the version after `based_on`. Nothing is locked on PostgreSQL: of two saves based on the
        /// same version, the second to insert waits on the first's unique `(scope_key, version)` entry and,
        /// once that commits, gets the violation, which is the refusal. The caller's transaction is then
        /// aborted. On SQLite the IMMEDIATE transaction keeps the second out, and the key is the last guard.
        async fn insert_version(conn: &mut Conn, new: &NewCoreVersion) -> Result<CoreVersion, StoreError> {
            let key = new.scope.key();
            let current: Option<i64> =
                sqlx::query_scalar("SELECT MAX(version) FROM core_versions WHERE scope_key = $1")
                    .bind(&key)
                    .fetch_one(&mut *conn)
                    .await
                    .or_backend()?;
            let current = current.unwrap_or(0) as u32;
            if current != new.based_on {
                return Err(StoreError::Changed { current });
            }
            let inserted = sqlx::query(
                "INSERT INTO core_versions (scope_key, version, body, tokens, author_id, note, restored_from, \
                 saved_at) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
            )
            .bind(&key)
            .bind(i64::from(current + 1))
            .bind(&new.text)
            .bind(i64::from(new.tokens))
            .bind(new.author.0)
            .bind(&new.note)
            .bind(new.restored_from.map(i64::from))
            .bind(new.at)
            .execute(&mut *conn)
            .await;
            match inserted {
                Ok(_) => {}
                Err(e) if is_unique_violation(&e) => return Err(StoreError::Changed { current: current + 1 }),
                Err(e) => return Err(backend(e)),
            }
            let row = sqlx::query(&format!("{VERSION_SELECT} WHERE v.scope_key = $1 AND v.version = $2"))
                .bind(&key)
                .bind(i64::from(current + 1))
                .fetch_one(conn)
                .await
                .or_backend()?;
            version_from(&row)
        }

        #[async_trait]
        impl CoreStore for ThisStore {
            async fn current_core(&self, scope: &CoreScope) -> Result<Option<CoreVersion>, StoreError> {
                let row =
                    sqlx::query(&format!("{VERSION_SELECT} WHERE v.scope_key = $1 ORDER BY v.version DESC LIMIT 1"))
                        .bind(scope.key())
                        .fetch_optional(self.pool())
                        .await
                        .or_backend()?;
                row.as_ref().map(version_from).transpose()
            }

            async fn current_core_heads(&self) -> Result<Vec<CoreHead>, StoreError> {
                // One row a role and a team, each finding its newest version by a seek on the
                // unique (scope_key, version) index: as many seeks as the outline has rows, however
                // long any core's history grows. A GROUP BY over the versions would read them all,
                // and so would a join on the newest version's id, which PostgreSQL answers with a
                // hash of every version; lookups in the select list are run once a row instead.
                sqlx::query(
                    "SELECT scope_key, version, tokens FROM (SELECT s.scope_key, \
                     (SELECT w.version FROM core_versions w WHERE w.scope_key = s.scope_key \
                     ORDER BY w.version DESC LIMIT 1) AS version, \
                     (SELECT w.tokens FROM core_versions w WHERE w.scope_key = s.scope_key \
                     ORDER BY w.version DESC LIMIT 1) AS tokens FROM (\
                     SELECT $1 || slug AS scope_key FROM roles UNION ALL \
                     SELECT 'team:' || CAST(id AS TEXT) FROM teams) s) heads \
                     WHERE version IS NOT NULL",
                )
                .bind(COMPANY_KEY_PREFIX)
                .fetch_all(self.pool())
                .await
                .or_backend()?
                .iter()
                .map(|row| {
                    Ok(CoreHead {
                        scope: scope_from(row.get("scope_key"))?,
                        version: row.get::<i64, _>("version") as u32,
                        tokens: row.get::<i64, _>("tokens") as u32,
                    })
                })
                .collect()
            }

            async fn cores_for_run(&self, role: RoleId, team: Option<TeamId>) -> Result<Option<RunCores>, StoreError> {
                let rows = sqlx::query(&format!(
                    "SELECT r.id AS role_id, {JOINED_ROLE_COLUMNS}, {JOINED_TEAM_COLUMNS}, c.* \
                     FROM roles r LEFT JOIN teams t ON t.id = $2 LEFT JOIN (\
                     SELECT * FROM ({VERSION_SELECT} WHERE v.scope_key = $3 || (SELECT slug FROM roles WHERE id = $1) \
                     ORDER BY v.version DESC LIMIT 1) company UNION ALL \
                     SELECT * FROM ({VERSION_SELECT} WHERE v.scope_key = $4 ORDER BY v.version DESC LIMIT 1) team) c ON true \
                     WHERE r.id = $1"
                ))
                .bind(role.0)
                .bind(team.map(|t| t.0))
                .bind(COMPANY_KEY_PREFIX)
                .bind(team.map(|t| CoreScope::Team(t).key()))
                .fetch_all(self.pool())
                .await
                .or_backend()?;
                run_cores_from(role, &rows, version_from)
            }

            async fn core_versions(
                &self,
                scope: &CoreScope,
                before: Option<u32>,
                limit: u32,
            ) -> Result<Vec<CoreVersion>, StoreError> {
                // The unique (scope_key, version) index serves the range and the order.
                sqlx::query(&format!(
                    "{VERSION_SELECT} WHERE v.scope_key = $1 AND v.version < $2 ORDER BY v.version DESC LIMIT $3"
                ))
                .bind(scope.key())
                .bind(before.map_or(i64::MAX, i64::from))
                .bind(i64::from(limit))
                .fetch_all(self.pool())
                .await
                .or_backend()?
                .iter()
                .map(version_from)
                .collect()
            }

            async fn core_version(&self, scope: &CoreScope, version: u32) -> Result<Option<CoreVersion>, StoreError> {
                let row = sqlx::query(&format!("{VERSION_SELECT} WHERE v.scope_key = $1 AND v.version = $2"))
                    .bind(scope.key())
                    .bind(i64::from(version))
                    .fetch_optional(self.pool())
                    .await
                    .or_backend()?;
                row.as_ref().map(version_from).transpose()
            }

            async fn append_core_version(&self, new: &NewCoreVersion) -> Result<CoreVersion, StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                let saved = insert_version(&mut tx, new).await?;
                tx.commit().await.or_backend()?;
                Ok(saved)
            }

            async fn suggestions(&self, scope: &CoreScope) -> Result<Vec<Suggestion>, StoreError> {
                sqlx::query(&format!("{SUGGESTION_SELECT} WHERE s.scope_key = $1 ORDER BY s.id"))
                    .bind(scope.key())
                    .fetch_all(self.pool())
                    .await
                    .or_backend()?
                    .iter()
                    .map(suggestion_from)
                    .collect()
            }

            async fn suggestion(&self, id: i64) -> Result<Option<Suggestion>, StoreError> {
                let row = sqlx::query(&format!("{SUGGESTION_SELECT} WHERE s.id = $1"))
                    .bind(id)
                    .fetch_optional(self.pool())
                    .await
                    .or_backend()?;
                row.as_ref().map(suggestion_from).transpose()
            }

            async fn add_suggestion(&self, new: &NewSuggestion) -> Result<Suggestion, StoreError> {
                let id: i64 = sqlx::query_scalar(
                    "INSERT INTO core_suggestions (scope_key, line, why, rests_on, source, based_on, created_at) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id",
                )
                .bind(new.scope.key())
                .bind(&new.line)
                .bind(&new.why)
                .bind(&new.rests_on)
                .bind(&new.source)
                .bind(i64::from(new.based_on))
                .bind(new.at)
                .fetch_one(self.pool())
                .await
                .or_backend()?;
                self.suggestion(id).await?.ok_or_else(|| StoreError::NotFound(format!("suggestion:{id}")))
            }

            async fn accept_suggestion(&self, id: i64, new: &NewCoreVersion) -> Result<CoreVersion, StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                // Locked so that two accepts of one suggestion cannot both find it open.
                let state: Option<String> =
                    sqlx::query_scalar(&format!("SELECT state FROM core_suggestions WHERE id = $1{FOR_UPDATE}"))
                        .bind(id)
                        .fetch_optional(&mut *tx)
                        .await
                        .or_backend()?;
                if state.as_deref() != Some("open") {
                    return Err(StoreError::NotFound(format!("open suggestion:{id}")));
                }
                let saved = insert_version(&mut tx, new).await?;
                sqlx::query(
                    "UPDATE core_suggestions SET state = 'accepted', decided_by = $1, decided_at = $2, result_version \
                     = $3 \
                     WHERE id = $4",
                )
                .bind(new.author.0)
                .bind(new.at)
                .bind(i64::from(saved.version))
                .bind(id)
                .execute(&mut *tx)
                .await
                .or_backend()?;
                tx.commit().await.or_backend()?;
                Ok(saved)
            }

            async fn dismiss_suggestion(&self, id: i64, actor: Actor) -> Result<(), StoreError> {
                let done = sqlx::query(
                    "UPDATE core_suggestions SET state = 'dismissed', decided_by = $1, decided_at = $2 \
                     WHERE id = $3 AND state = 'open'",
                )
                .bind(actor.person.map(|p| p.0))
                .bind(actor.at)
                .bind(id)
                .execute(self.pool())
                .await
                .or_backend()?;
                if done.rows_affected() == 0 {
                    return Err(StoreError::NotFound(format!("open suggestion:{id}")));
                }
                Ok(())
            }
        }
    };
}
pub(crate) use cores_store;
