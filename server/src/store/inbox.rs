//! The Inbox: what runs would do that acts, waiting for their person.
//!
//! Written once for both backends (see "Written once" in `store`).

macro_rules! inbox_store {
    () => {
        use super::{audit, begin_write, Conn, DbRow, ThisStore};
        use crate::store::run_rows::{from_json, json};
        use crate::store::OrBackend;
        use async_trait::async_trait;
        use chrono::{DateTime, Utc};
        use engine::org::PersonId;
        use engine::runs::inbox::{ActionKind, ActionState, InboxAction, InboxStore, NewAction};
        use engine::runs::RunId;
        use engine::store::{Actor, StoreError};
        use sqlx::Row;

        const ACTION_COLUMNS: &str =
            "id, person_id, run_id, kind, connector_id, tool, arguments, line, state, outcome, created_at, decided_at";

        fn bad(what: &str) -> StoreError {
            StoreError::Backend(format!("an Inbox action's {what} is not one Engram writes"))
        }

        fn action_from(row: &DbRow) -> Result<InboxAction, StoreError> {
            Ok(InboxAction {
                id: row.get("id"),
                person: PersonId(row.get("person_id")),
                run: RunId(row.get("run_id")),
                kind: ActionKind::parse(row.get("kind")).ok_or_else(|| bad("kind"))?,
                connector: row.get("connector_id"),
                tool: row.get("tool"),
                arguments: from_json("Inbox action arguments", row.get("arguments"))?,
                line: row.get("line"),
                state: ActionState::parse(row.get("state")).ok_or_else(|| bad("state"))?,
                outcome: row.get("outcome"),
                created_at: row.get("created_at"),
                decided_at: row.get("decided_at"),
            })
        }

        async fn action_in(conn: &mut Conn, id: i64) -> Result<Option<InboxAction>, StoreError> {
            let row = sqlx::query(&format!("SELECT {ACTION_COLUMNS} FROM inbox_actions WHERE id = $1"))
                .bind(id)
                .fetch_optional(&mut *conn)
                .await
                .or_backend()?;
            row.as_ref().map(action_from).transpose()
        }

        /// Moves the action from `from` to `to` in the transaction, or says it is no longer `from`.
        async fn move_in(
            conn: &mut Conn,
            id: i64,
            from: ActionState,
            to: ActionState,
            outcome: Option<&str>,
            at: DateTime<Utc>,
        ) -> Result<InboxAction, StoreError> {
            let moved = sqlx::query(
                "UPDATE inbox_actions SET state = $1, outcome = COALESCE($2, outcome), \
                 decided_at = COALESCE(decided_at, $3) WHERE id = $4 AND state = $5",
            )
            .bind(to.as_str())
            .bind(outcome)
            .bind(at)
            .bind(id)
            .bind(from.as_str())
            .execute(&mut *conn)
            .await
            .or_backend()?
            .rows_affected();
            let action =
                action_in(conn, id).await?.ok_or_else(|| StoreError::NotFound(format!("inbox action {id}")))?;
            if moved == 0 {
                return Err(StoreError::Changed { current: 0 });
            }
            Ok(action)
        }

        #[async_trait]
        impl InboxStore for ThisStore {
            async fn add_action(&self, a: &NewAction, at: DateTime<Utc>) -> Result<InboxAction, StoreError> {
                let mut conn = self.pool().acquire().await.or_backend()?;
                let id: i64 = sqlx::query_scalar(
                    "INSERT INTO inbox_actions (person_id, run_id, kind, connector_id, tool, arguments, line, state, \
                     created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, 'waiting', $8) RETURNING id",
                )
                .bind(a.person.0)
                .bind(a.run.0)
                .bind(a.kind.as_str())
                .bind(a.connector)
                .bind(&a.tool)
                .bind(json(&a.arguments)?)
                .bind(&a.line)
                .bind(at)
                .fetch_one(&mut *conn)
                .await
                .or_backend()?;
                action_in(&mut conn, id).await?.ok_or_else(|| StoreError::NotFound(format!("inbox action {id}")))
            }

            async fn action(&self, id: i64) -> Result<Option<InboxAction>, StoreError> {
                action_in(&mut *self.pool().acquire().await.or_backend()?, id).await
            }

            async fn inbox(&self, person: PersonId, limit: u32) -> Result<Vec<InboxAction>, StoreError> {
                let rows = sqlx::query(&format!(
                    "SELECT {ACTION_COLUMNS} FROM inbox_actions WHERE person_id = $1 ORDER BY id DESC LIMIT $2"
                ))
                .bind(person.0)
                .bind(i64::from(limit))
                .fetch_all(self.pool())
                .await
                .or_backend()?;
                rows.iter().map(action_from).collect()
            }

            async fn decide_action(&self, id: i64, to: ActionState, actor: Actor) -> Result<InboxAction, StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                let action = move_in(&mut tx, id, ActionState::Waiting, to, None, actor.at).await?;
                audit(&mut tx, actor, &format!("inbox.{}", to.as_str()), &format!("inbox_action:{id}"), &action.line)
                    .await?;
                tx.commit().await.or_backend()?;
                Ok(action)
            }

            async fn finish_action(
                &self,
                id: i64,
                to: ActionState,
                outcome: &str,
                at: DateTime<Utc>,
            ) -> Result<InboxAction, StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                let action = move_in(&mut tx, id, ActionState::Approved, to, Some(outcome), at).await?;
                tx.commit().await.or_backend()?;
                Ok(action)
            }
        }
    };
}
pub(crate) use inbox_store;
