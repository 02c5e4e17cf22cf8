//! The bots' self-edits (seed 003). Each request is decided by the engine over rows and counts read
//! under the bot's memory lock (see `store::memory_rows`), in the transaction that carries it out and
//! records it.
//!
//! Written once for both backends (see "Written once" in `store`).

macro_rules! self_edits_store {
    () => {
        use super::memory_rows::{
            close_row, insert_row, lock_active_row, memory_from, supersede, with_evidence, MEMORY_COLUMNS,
        };
        use super::{audit, begin_write, in_list, list, lock_agent_memory, Conn, DbRow, ThisStore};
        use crate::store::OrBackend;
        use async_trait::async_trait;
        use chrono::{DateTime, Duration, NaiveTime, Utc};
        use engine::persona::backlog::MemoryRow;
        use engine::persona::config::SelfEditPolicy;
        use engine::persona::self_edit::{decide, Change, Counts, Decision, EditRequest, Planned};
        use engine::persona::self_edit_store::{
            changed_since, settle_refusal, EditState, KnowledgeGap, SelfEdit, SelfEditStore, Settled,
        };
        use engine::store::{Actor, StoreError};
        use sqlx::Row;

        const EDIT_COLUMNS: &str = "id, agent, action, target, content, reason, state, approval, refusal, plan, \
             row_id, new_row_id, before_text, after_text, grace_s, created_at, applied_at, undo_until, decided_at, \
             decided_by, decided_why, undone_at, undone_by";

        fn edit_from(row: &DbRow) -> Result<SelfEdit, StoreError> {
            let state = EditState::parse(row.get("state"))
                .ok_or_else(|| StoreError::Backend("unreadable edit state".into()))?;
            Ok(SelfEdit {
                id: row.get("id"),
                agent: row.get("agent"),
                action: row.get("action"),
                target: row.get("target"),
                content: row.get("content"),
                reason: row.get("reason"),
                state,
                approval: row.get("approval"),
                refusal: row.get("refusal"),
                change: row.get::<Option<String>, _>("plan").and_then(|p| serde_json::from_str(&p).ok()),
                row: row.get("row_id"),
                new_row: row.get("new_row_id"),
                before: row.get("before_text"),
                after: row.get("after_text"),
                created_at: row.get("created_at"),
                applied_at: row.get("applied_at"),
                undo_until: row.get("undo_until"),
                decided_at: row.get("decided_at"),
                decided_by: row.get("decided_by"),
                decided_why: row.get("decided_why"),
                undone_at: row.get("undone_at"),
                undone_by: row.get("undone_by"),
            })
        }

        async fn edit_on(conn: &mut Conn, id: i64) -> Result<Option<SelfEdit>, StoreError> {
            let row = sqlx::query(&format!("SELECT {EDIT_COLUMNS} FROM org_agent_self_edits WHERE id = $1"))
                .bind(id)
                .fetch_optional(&mut *conn)
                .await
                .or_backend()?;
            row.as_ref().map(edit_from).transpose()
        }

        /// Takes the edit's bot's memory lock, then reads the edit, so settling it is serialised with
        /// every other write to that bot's rows.
        async fn locked_edit(conn: &mut Conn, id: i64) -> Result<SelfEdit, StoreError> {
            // An edit's bot never changes, so reading it before the lock is safe.
            let agent: String = sqlx::query_scalar("SELECT agent FROM org_agent_self_edits WHERE id = $1")
                .bind(id)
                .fetch_optional(&mut *conn)
                .await
                .or_backend()?
                .ok_or_else(|| StoreError::NotFound(format!("self-edit {id}")))?;
            lock_agent_memory(conn, &agent).await?;
            edit_on(conn, id).await?.ok_or_else(|| StoreError::NotFound(format!("self-edit {id}")))
        }

        async fn profile_on(conn: &mut Conn, agent: &str) -> Result<Option<String>, StoreError> {
            sqlx::query_scalar(
                "SELECT after_text FROM org_agent_self_edits WHERE agent = $1 AND target = 'profile' AND state = \
                 'applied' \
                 ORDER BY applied_at DESC, id DESC LIMIT 1",
            )
            .bind(agent)
            .fetch_optional(&mut *conn)
            .await
            .or_backend()
            .map(Option::flatten)
        }

        /// The bot's earlier requests that count: in this session (since its latest episode, whose id
        /// is returned), and its forgets today.
        async fn counts_on(
            conn: &mut Conn,
            agent: &str,
            at: DateTime<Utc>,
        ) -> Result<(Counts, Option<i64>), StoreError> {
            let session: Option<i64> = sqlx::query_scalar("SELECT MAX(id) FROM org_agent_episodes WHERE agent = $1")
                .bind(agent)
                .fetch_one(&mut *conn)
                .await
                .or_backend()?;
            let day = at.date_naive().and_time(NaiveTime::MIN).and_utc();
            let (edits, deletes): (i64, i64) = sqlx::query_as(
                "SELECT COUNT(*) FILTER (WHERE session_after IS NOT DISTINCT FROM $1), \
                        COUNT(*) FILTER (WHERE action = 'forget' AND created_at >= $2) \
                 FROM org_agent_self_edits WHERE agent = $3 AND state <> 'refused' AND action <> 'reflect'",
            )
            .bind(session)
            .bind(day)
            .bind(agent)
            .fetch_one(&mut *conn)
            .await
            .or_backend()?;
            Ok((Counts { edits_this_session: edits as u32, deletes_today: deletes as u32 }, session))
        }

        /// Carries out a change for edit `id`; the row it wrote, if any. `Changed` when its line is no
        /// longer active.
        async fn carry_out(
            conn: &mut Conn,
            agent: &str,
            id: i64,
            change: &Change,
            reason: &str,
            at: DateTime<Utc>,
        ) -> Result<Option<i64>, StoreError> {
            let by = format!("self-edit #{id}");
            match change {
                Change::Insert { kind, text } => Ok(Some(insert_row(conn, agent, *kind, text, 1, at, at, at).await?)),
                Change::Supersede { row, text } => {
                    let old = own_active_row(conn, *row, agent).await?;
                    let why = format!("replaced by {agent}: {reason}");
                    Ok(Some(supersede(conn, &old, text, &why, &by, at).await?))
                }
                Change::Worth { row, delta } => {
                    let done = sqlx::query(
                        "UPDATE org_agent_memory SET worth = worth + $1 WHERE id = $2 AND agent = $3 AND state = \
                         'active'",
                    )
                    .bind(delta)
                    .bind(row)
                    .bind(agent)
                    .execute(&mut *conn)
                    .await
                    .or_backend()?;
                    if done.rows_affected() != 1 {
                        return Err(StoreError::Changed { current: 0 });
                    }
                    Ok(None)
                }
                Change::Close { row } => {
                    own_active_row(conn, *row, agent).await?;
                    close_row(conn, *row, &format!("forgotten by {agent}: {reason}"), &by, None, at).await?;
                    Ok(None)
                }
                // The profile is the edit's own `after`: there is no row to write.
                Change::Profile { .. } => Ok(None),
            }
        }

        async fn own_active_row(conn: &mut Conn, id: i64, agent: &str) -> Result<MemoryRow, StoreError> {
            let row = lock_active_row(conn, id).await?;
            if row.agent != agent {
                return Err(StoreError::Changed { current: 0 });
            }
            Ok(row)
        }

        /// Reopens a row an edit closed, if it is still as the edit left it.
        async fn reopen(
            conn: &mut Conn,
            row: i64,
            closed_by: &str,
            superseded_by: Option<i64>,
        ) -> Result<(), StoreError> {
            let done = sqlx::query(
                "UPDATE org_agent_memory SET state = 'active', closed_at = NULL, closed_reason = NULL, \
                 closed_by = NULL, superseded_by = NULL WHERE id = $1 AND state = 'closed' AND closed_by = $2 \
                 AND superseded_by IS NOT DISTINCT FROM $3",
            )
            .bind(row)
            .bind(closed_by)
            .bind(superseded_by)
            .execute(&mut *conn)
            .await
            .or_backend()?;
            if done.rows_affected() == 1 {
                Ok(())
            } else {
                Err(StoreError::Changed { current: 0 })
            }
        }

        async fn take_back(conn: &mut Conn, edit: &SelfEdit, by: &str, at: DateTime<Utc>) -> Result<(), StoreError> {
            let own = format!("self-edit #{}", edit.id);
            let why = format!("undone: self-edit #{} taken back by {by}", edit.id);
            match &edit.change {
                Some(Change::Insert { .. }) => {
                    close_row(conn, edit.new_row.unwrap_or_default(), &why, by, None, at).await?;
                }
                Some(Change::Supersede { row, .. }) => {
                    let new = edit.new_row.unwrap_or_default();
                    reopen(conn, *row, &own, Some(new)).await?;
                    close_row(conn, new, &why, by, None, at).await?;
                }
                Some(Change::Worth { row, delta }) => {
                    let done = sqlx::query(
                        "UPDATE org_agent_memory SET worth = worth - $1 WHERE id = $2 AND state = 'active'",
                    )
                    .bind(delta)
                    .bind(row)
                    .execute(&mut *conn)
                    .await
                    .or_backend()?;
                    if done.rows_affected() != 1 {
                        return Err(StoreError::Changed { current: 0 });
                    }
                }
                Some(Change::Close { row }) => reopen(conn, *row, &own, None).await?,
                Some(Change::Profile { .. }) => {
                    let later: i64 = sqlx::query_scalar(
                        "SELECT COUNT(*) FROM org_agent_self_edits WHERE agent = $1 AND target = 'profile' \
                         AND state = 'applied' AND id > $2",
                    )
                    .bind(&edit.agent)
                    .bind(edit.id)
                    .fetch_one(&mut *conn)
                    .await
                    .or_backend()?;
                    if later > 0 {
                        return Err(StoreError::Changed { current: 0 });
                    }
                }
                None => return Err(StoreError::Backend(format!("self-edit {} has no plan", edit.id))),
            }
            Ok(())
        }

        fn plan_json(p: &Planned) -> String {
            serde_json::to_string(&p.change).unwrap_or_default()
        }

        #[async_trait]
        impl SelfEditStore for ThisStore {
            async fn self_edit(
                &self,
                agent: &str,
                policy: &SelfEditPolicy,
                req: &EditRequest,
                at: DateTime<Utc>,
            ) -> Result<SelfEdit, StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                lock_agent_memory(&mut tx, agent).await?;
                let rows = sqlx::query(&format!(
                    "SELECT {MEMORY_COLUMNS} FROM org_agent_memory WHERE agent = $1 AND state = 'active' ORDER BY id"
                ))
                .bind(agent)
                .fetch_all(&mut *tx)
                .await
                .or_backend()?;
                let active = rows.iter().map(memory_from).collect::<Result<Vec<_>, _>>()?;
                let active = with_evidence(&mut tx, active).await?;
                let profile = profile_on(&mut tx, agent).await?;
                let (counts, session) = counts_on(&mut tx, agent, at).await?;
                let decision = decide(policy, agent, req, &active, profile.as_deref(), counts);
                let (state, planned, refusal) = match decision {
                    Decision::Apply(p) => (EditState::Applied, Some(p), None),
                    Decision::Wait(p) => (EditState::Waiting, Some(p), None),
                    Decision::Refuse(why) => (EditState::Refused, None, Some(why)),
                    Decision::Reflect => (
                        EditState::Refused,
                        None,
                        Some("reflect runs the reflection cycle: POST /api/org/self/reflect".into()),
                    ),
                };
                let applied = state == EditState::Applied;
                let grace = i64::from(policy.edit_grace_period);
                let id: i64 = sqlx::query_scalar(
                    "INSERT INTO org_agent_self_edits (agent, action, target, content, reason, state, approval, \
                     refusal, plan, \
                     row_id, before_text, after_text, session_after, grace_s, created_at, applied_at, undo_until) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17) RETURNING id",
                )
                .bind(agent)
                .bind(req.action.trim())
                .bind(req.target.trim())
                .bind(req.content.as_deref())
                .bind(req.reason.trim())
                .bind(state.as_str())
                .bind(planned.as_ref().and_then(|p| p.approval))
                .bind(refusal.as_deref())
                .bind(planned.as_ref().map(plan_json))
                .bind(planned.as_ref().and_then(|p| p.row))
                .bind(planned.as_ref().and_then(|p| p.before.as_deref()))
                .bind(planned.as_ref().and_then(|p| p.after.as_deref()))
                .bind(session)
                .bind(grace)
                .bind(at)
                .bind(applied.then_some(at))
                .bind(applied.then(|| at + Duration::seconds(grace)))
                .fetch_one(&mut *tx)
                .await
                .or_backend()?;
                if let (true, Some(p)) = (applied, &planned) {
                    let new = carry_out(&mut tx, agent, id, &p.change, req.reason.trim(), at).await?;
                    sqlx::query("UPDATE org_agent_self_edits SET new_row_id = $1 WHERE id = $2")
                        .bind(new)
                        .bind(id)
                        .execute(&mut *tx)
                        .await
                        .or_backend()?;
                }
                let edit =
                    edit_on(&mut tx, id).await?.ok_or_else(|| StoreError::NotFound(format!("self-edit {id}")))?;
                tx.commit().await.or_backend()?;
                Ok(edit)
            }

            async fn self_edit_by_id(&self, id: i64) -> Result<Option<SelfEdit>, StoreError> {
                let mut conn = self.pool().acquire().await.or_backend()?;
                edit_on(&mut conn, id).await
            }

            async fn self_edits(&self, agent: &str, limit: u32) -> Result<Vec<SelfEdit>, StoreError> {
                let rows = sqlx::query(&format!(
                    "SELECT {EDIT_COLUMNS} FROM org_agent_self_edits WHERE agent = $1 ORDER BY id DESC LIMIT $2"
                ))
                .bind(agent)
                .bind(i64::from(limit))
                .fetch_all(self.pool())
                .await
                .or_backend()?;
                rows.iter().map(edit_from).collect()
            }

            async fn self_edit_counts(&self, agent: &str) -> Result<Vec<(EditState, u32)>, StoreError> {
                let rows: Vec<(String, i64)> = sqlx::query_as(
                    "SELECT state, COUNT(*) FROM org_agent_self_edits WHERE agent = $1 GROUP BY state ORDER BY state",
                )
                .bind(agent)
                .fetch_all(self.pool())
                .await
                .or_backend()?;
                rows.into_iter()
                    .map(|(s, n)| {
                        let state = EditState::parse(&s)
                            .ok_or_else(|| StoreError::Backend(format!("unreadable edit state {s}")))?;
                        Ok((state, n as u32))
                    })
                    .collect()
            }

            async fn waiting_self_edits(&self, agents: &[String]) -> Result<Vec<SelfEdit>, StoreError> {
                let rows = sqlx::query(&format!(
                    "SELECT {EDIT_COLUMNS} FROM org_agent_self_edits WHERE state = 'waiting' AND {} ORDER BY id",
                    in_list("agent", 1)
                ))
                .bind(list(agents))
                .fetch_all(self.pool())
                .await
                .or_backend()?;
                rows.iter().map(edit_from).collect()
            }

            async fn decide_self_edit(
                &self,
                id: i64,
                approve: bool,
                why: Option<&str>,
                by: &str,
                actor: Actor,
            ) -> Result<Settled, StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                let edit = locked_edit(&mut tx, id).await?;
                if let Some(s) = settle_refusal(&edit, false, actor.at) {
                    return Ok(Settled::Refused(s));
                }
                let at = actor.at;
                if approve {
                    let change = edit
                        .change
                        .clone()
                        .ok_or_else(|| StoreError::Backend(format!("self-edit {id} has no plan")))?;
                    if matches!(change, Change::Profile { .. })
                        && profile_on(&mut tx, &edit.agent).await? != edit.before
                    {
                        return Ok(Settled::Refused(changed_since(&edit)));
                    }
                    let new = match carry_out(&mut tx, &edit.agent, id, &change, &edit.reason, at).await {
                        Ok(n) => n,
                        Err(StoreError::Changed { .. }) | Err(StoreError::NotFound(_)) => {
                            return Ok(Settled::Refused(changed_since(&edit)))
                        }
                        Err(e) => return Err(e),
                    };
                    let grace: i64 = sqlx::query_scalar("SELECT grace_s FROM org_agent_self_edits WHERE id = $1")
                        .bind(id)
                        .fetch_one(&mut *tx)
                        .await
                        .or_backend()?;
                    sqlx::query(
                        "UPDATE org_agent_self_edits SET state = 'applied', new_row_id = $1, applied_at = $2, \
                         undo_until = $3, \
                         decided_at = $4, decided_by = $5, decided_why = $6 WHERE id = $7",
                    )
                    .bind(new)
                    .bind(at)
                    .bind(at + Duration::seconds(grace))
                    .bind(at)
                    .bind(by)
                    .bind(why)
                    .bind(id)
                    .execute(&mut *tx)
                    .await
                    .or_backend()?;
                } else {
                    sqlx::query(
                        "UPDATE org_agent_self_edits SET state = 'declined', decided_at = $1, decided_by = $2, \
                         decided_why = $3 \
                         WHERE id = $4",
                    )
                    .bind(at)
                    .bind(by)
                    .bind(why)
                    .bind(id)
                    .execute(&mut *tx)
                    .await
                    .or_backend()?;
                }
                let action = if approve { "agent.self_edit.approve" } else { "agent.self_edit.decline" };
                let detail = format!("{} {} {}: {}", edit.agent, edit.action, edit.target, edit.reason);
                audit(&mut tx, actor, action, &id.to_string(), &detail).await?;
                let edit =
                    edit_on(&mut tx, id).await?.ok_or_else(|| StoreError::NotFound(format!("self-edit {id}")))?;
                tx.commit().await.or_backend()?;
                Ok(Settled::Done(Box::new(edit)))
            }

            async fn undo_self_edit(&self, id: i64, by: &str, actor: Actor) -> Result<Settled, StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                let edit = locked_edit(&mut tx, id).await?;
                if let Some(s) = settle_refusal(&edit, true, actor.at) {
                    return Ok(Settled::Refused(s));
                }
                match take_back(&mut tx, &edit, by, actor.at).await {
                    Ok(()) => {}
                    Err(StoreError::Changed { .. }) => return Ok(Settled::Refused(changed_since(&edit))),
                    Err(e) => return Err(e),
                }
                sqlx::query(
                    "UPDATE org_agent_self_edits SET state = 'undone', undone_at = $1, undone_by = $2 WHERE id = $3",
                )
                .bind(actor.at)
                .bind(by)
                .bind(id)
                .execute(&mut *tx)
                .await
                .or_backend()?;
                let detail = format!("{} {} {}: {}", edit.agent, edit.action, edit.target, edit.reason);
                audit(&mut tx, actor, "agent.self_edit.undo", &id.to_string(), &detail).await?;
                let edit =
                    edit_on(&mut tx, id).await?.ok_or_else(|| StoreError::NotFound(format!("self-edit {id}")))?;
                tx.commit().await.or_backend()?;
                Ok(Settled::Done(Box::new(edit)))
            }

            async fn self_profile(&self, agent: &str) -> Result<Option<String>, StoreError> {
                let mut conn = self.pool().acquire().await.or_backend()?;
                profile_on(&mut conn, agent).await
            }
            async fn add_knowledge_gaps(
                &self,
                agent: &str,
                episode: i64,
                texts: &[String],
                at: DateTime<Utc>,
            ) -> Result<(), StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                for t in texts {
                    sqlx::query(
                        "INSERT INTO org_agent_knowledge_gaps (agent, text, episode_id, created_at) VALUES ($1, $2, \
                         $3, $4)",
                    )
                    .bind(agent)
                    .bind(t)
                    .bind(episode)
                    .bind(at)
                    .execute(&mut *tx)
                    .await
                    .or_backend()?;
                }
                tx.commit().await.or_backend()
            }

            async fn knowledge_gaps(&self, agent: &str, limit: u32) -> Result<Vec<KnowledgeGap>, StoreError> {
                let rows = sqlx::query(
                    "SELECT id, agent, text, episode_id, created_at FROM org_agent_knowledge_gaps WHERE agent = $1 \
                     ORDER BY id DESC LIMIT $2",
                )
                .bind(agent)
                .bind(i64::from(limit))
                .fetch_all(self.pool())
                .await
                .or_backend()?;
                Ok(rows
                    .iter()
                    .map(|r| KnowledgeGap {
                        id: r.get("id"),
                        agent: r.get("agent"),
                        text: r.get("text"),
                        episode: r.get("episode_id"),
                        created_at: r.get("created_at"),
                    })
                    .collect())
            }
        }
    };
}
pub(crate) use self_edits_store;
