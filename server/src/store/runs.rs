//! Threads, runs, their steps and events, written once for both backends (see "Written once" in
//! `store`). A read-then-write takes `begin_write` and locks the run it adds a step to; an event
//! takes the events ledger's lock, so ids are committed in the order they are given and a follower
//! reading after an id never misses one committed later below it.

macro_rules! runs_store {
    () => {
        use super::{audit, backend, begin_write, lock, locks, Conn, DbRow, ThisStore, FOR_UPDATE};
        use crate::store::run_rows::{
            author, author_columns, fact_kind, from_json, json, label, run_check, run_kind, run_state, step_kind,
        };
        use crate::store::OrBackend;
        use async_trait::async_trait;
        use chrono::{DateTime, Utc};
        use engine::cards::access::DataLabel;
        use engine::cards::facts::FactKind;
        use engine::org::{AgentId, PersonId};
        use engine::runs::check::{limit_too_long, CheckEnd, LimitNotice, NOTICE_WINDOW};
        use engine::runs::{
            Author, Event, Message, MessageId, NewEvent, NewRun, NewStep, Run, RunEnd, RunId, RunState, Step, StepKind, Thread,
            ThreadId,
        };
        use engine::store::{Actor, RunStore, StoreError};
        use sqlx::Row;

        const THREAD_COLUMNS: &str = "id, agent_id, person_id, title, created_at";
        const MESSAGE_COLUMNS: &str = "id, thread_id, author_person_id, author_agent_id, text, at, answer_of_run";
        const RUN_COLUMNS: &str = "id, thread_id, message_id, agent_id, for_person_id, kind, state, unwatched, data_label, \
             sources, review_mode, model, answer, failure, retry_of, created_at, finished_at, check_state, check_reason, \
             checked_only";
        const STEP_COLUMNS: &str = "run_id, n, kind, line, words, refs, detail, at";
        const EVENT_COLUMNS: &str = "id, name, run_id, thread_id, message_id, connector_id, state, refs, at";

        fn thread_from(row: &DbRow) -> Thread {
            Thread {
                id: ThreadId(row.get("id")),
                agent: AgentId(row.get("agent_id")),
                person: row.get::<Option<i64>, _>("person_id").map(PersonId),
                title: row.get("title"),
                created_at: row.get("created_at"),
            }
        }

        fn message_from(row: &DbRow) -> Result<Message, StoreError> {
            Ok(Message {
                id: MessageId(row.get("id")),
                thread: ThreadId(row.get("thread_id")),
                author: author(row.get("author_person_id"), row.get("author_agent_id"))?,
                text: row.get("text"),
                at: row.get("at"),
                answer_of: row.get::<Option<i64>, _>("answer_of_run").map(RunId),
            })
        }

        /// A run without its steps: `with_steps` adds them.
        fn run_from(row: &DbRow) -> Result<Run, StoreError> {
            Ok(Run {
                id: RunId(row.get("id")),
                thread: ThreadId(row.get("thread_id")),
                message: MessageId(row.get("message_id")),
                agent: AgentId(row.get("agent_id")),
                for_person: row.get::<Option<i64>, _>("for_person_id").map(PersonId),
                kind: run_kind(row.get("kind"))?,
                state: run_state(row.get("state"))?,
                unwatched: row.get("unwatched"),
                data_label: label(row.get("data_label"))?,
                sources: from_json("run sources", row.get("sources"))?,
                review_mode: row.get("review_mode"),
                model: row.get("model"),
                answer: row.get("answer"),
                failure: row.get("failure"),
                retry_of: row.get::<Option<i64>, _>("retry_of").map(RunId),
                check: run_check(row.get("check_state"), row.get("check_reason"))?,
                checked_only: row.get("checked_only"),
                steps: Vec::new(),
                created_at: row.get("created_at"),
                finished_at: row.get("finished_at"),
            })
        }

        fn step_from(row: &DbRow) -> Result<Step, StoreError> {
            let detail: Option<String> = row.get("detail");
            Ok(Step {
                n: row.get::<i64, _>("n") as u32,
                kind: step_kind(row.get("kind"))?,
                line: row.get("line"),
                words: from_json("step words", row.get("words"))?,
                refs: from_json("step refs", row.get("refs"))?,
                detail: detail.as_deref().map(|d| from_json("step detail", d)).transpose()?,
                at: row.get("at"),
            })
        }

        fn event_from(row: &DbRow) -> Result<Event, StoreError> {
            Ok(Event {
                id: row.get("id"),
                name: row.get("name"),
                run: row.get::<Option<i64>, _>("run_id").map(RunId),
                thread: row.get::<Option<i64>, _>("thread_id").map(ThreadId),
                message: row.get::<Option<i64>, _>("message_id").map(MessageId),
                connector: row.get("connector_id"),
                state: row.get("state"),
                refs: from_json("event refs", row.get("refs"))?,
                at: row.get("at"),
            })
        }

        /// Appends a step numbered after the run's last, inside the caller's transaction. The run's row
        /// is locked first: two servers adding steps to one run never read the same last number.
        async fn insert_step(
            conn: &mut Conn,
            run: RunId,
            step: &NewStep,
            at: DateTime<Utc>,
        ) -> Result<Step, StoreError> {
            let exists: Option<i64> = sqlx::query_scalar(&format!("SELECT id FROM runs WHERE id = $1{FOR_UPDATE}"))
                .bind(run.0)
                .fetch_optional(&mut *conn)
                .await
                .or_backend()?;
            if exists.is_none() {
                return Err(StoreError::NotFound(format!("run:{run}")));
            }
            let last: i64 = sqlx::query_scalar("SELECT COALESCE(MAX(n), 0) FROM run_steps WHERE run_id = $1")
                .bind(run.0)
                .fetch_one(&mut *conn)
                .await
                .or_backend()?;
            let detail = step.detail.as_ref().map(json).transpose()?;
            let row = sqlx::query(&format!(
                "INSERT INTO run_steps (run_id, n, kind, line, words, refs, detail, at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) \
                 RETURNING {STEP_COLUMNS}"
            ))
            .bind(run.0)
            .bind(last + 1)
            .bind(step.kind.as_str())
            .bind(&step.line)
            .bind(json(&step.words)?)
            .bind(json(&step.refs)?)
            .bind(detail)
            .bind(at)
            .fetch_one(&mut *conn)
            .await
            .or_backend()?;
            step_from(&row)
        }

        /// Under the ledger's lock, ids are given and committed in one order: a follower reading after
        /// an id never misses one committed later below it. The lock lasts until the caller commits.
        pub(crate) async fn insert_event(
            conn: &mut Conn,
            event: &NewEvent,
            at: DateTime<Utc>,
        ) -> Result<Event, StoreError> {
            lock(&mut *conn, locks::EVENTS, 0).await?;
            let row = sqlx::query(&format!(
                "INSERT INTO events (name, run_id, thread_id, message_id, connector_id, state, refs, at) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING {EVENT_COLUMNS}"
            ))
            .bind(&event.name)
            .bind(event.run.map(|r| r.0))
            .bind(event.thread.map(|t| t.0))
            .bind(event.message.map(|m| m.0))
            .bind(event.connector)
            .bind(&event.state)
            .bind(json(&event.refs)?)
            .bind(at)
            .fetch_one(&mut *conn)
            .await
            .or_backend()?;
            event_from(&row)
        }

        async fn insert_message(
            conn: &mut Conn,
            thread: ThreadId,
            by: &Author,
            text: &str,
            at: DateTime<Utc>,
            answer_of: Option<RunId>,
        ) -> Result<Message, StoreError> {
            let (person, agent) = author_columns(by);
            let row = sqlx::query(&format!(
                "INSERT INTO messages (thread_id, author_person_id, author_agent_id, text, at, answer_of_run) \
                 VALUES ($1, $2, $3, $4, $5, $6) RETURNING {MESSAGE_COLUMNS}"
            ))
            .bind(thread.0)
            .bind(person)
            .bind(agent)
            .bind(text)
            .bind(at)
            .bind(answer_of.map(|r| r.0))
            .fetch_one(conn)
            .await
            .or_backend()?;
            message_from(&row)
        }

        /// The run with its steps in order.
        async fn run_in(conn: &mut Conn, id: RunId) -> Result<Option<Run>, StoreError> {
            let Some(row) = sqlx::query(&format!("SELECT {RUN_COLUMNS} FROM runs WHERE id = $1"))
                .bind(id.0)
                .fetch_optional(&mut *conn)
                .await
                .or_backend()?
            else {
                return Ok(None);
            };
            let mut run = run_from(&row)?;
            run.steps = sqlx::query(&format!("SELECT {STEP_COLUMNS} FROM run_steps WHERE run_id = $1 ORDER BY n"))
                .bind(id.0)
                .fetch_all(conn)
                .await
                .or_backend()?
                .iter()
                .map(step_from)
                .collect::<Result<_, _>>()?;
            Ok(Some(run))
        }

        async fn thread_exists(conn: &mut Conn, id: ThreadId) -> Result<(), StoreError> {
            let found: Option<i64> = sqlx::query_scalar("SELECT id FROM threads WHERE id = $1")
                .bind(id.0)
                .fetch_optional(conn)
                .await
                .or_backend()?;
            found.map(|_| ()).ok_or_else(|| StoreError::NotFound(format!("thread:{id}")))
        }

        /// Why a conditional update of a run changed nothing: there is no such run, or it is in another
        /// state (another server moved it first).
        async fn refused(conn: &mut Conn, id: RunId) -> StoreError {
            match sqlx::query_scalar::<_, i64>("SELECT id FROM runs WHERE id = $1").bind(id.0).fetch_optional(conn).await {
                Ok(Some(_)) => StoreError::Changed { current: 0 },
                Ok(None) => StoreError::NotFound(format!("run:{id}")),
                Err(e) => backend(e),
            }
        }

        #[async_trait]
        impl RunStore for ThisStore {
            async fn create_thread(
                &self,
                agent: AgentId,
                person: Option<PersonId>,
                title: &str,
                first: &Author,
                text: &str,
                at: DateTime<Utc>,
            ) -> Result<(Thread, Message), StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                let row = sqlx::query(&format!(
                    "INSERT INTO threads (agent_id, person_id, title, created_at) VALUES ($1, $2, $3, $4) RETURNING {THREAD_COLUMNS}"
                ))
                .bind(agent.0)
                .bind(person.map(|p| p.0))
                .bind(title)
                .bind(at)
                .fetch_one(&mut *tx)
                .await
                .or_backend()?;
                let thread = thread_from(&row);
                let message = insert_message(&mut tx, thread.id, first, text, at, None).await?;
                tx.commit().await.or_backend()?;
                Ok((thread, message))
            }

            async fn add_message(
                &self,
                thread: ThreadId,
                author: &Author,
                text: &str,
                at: DateTime<Utc>,
            ) -> Result<Message, StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                thread_exists(&mut tx, thread).await?;
                let message = insert_message(&mut tx, thread, author, text, at, None).await?;
                tx.commit().await.or_backend()?;
                Ok(message)
            }

            async fn thread(&self, id: ThreadId) -> Result<Option<Thread>, StoreError> {
                let row = sqlx::query(&format!("SELECT {THREAD_COLUMNS} FROM threads WHERE id = $1"))
                    .bind(id.0)
                    .fetch_optional(self.pool())
                    .await
                    .or_backend()?;
                Ok(row.as_ref().map(thread_from))
            }

            async fn messages(&self, thread: ThreadId) -> Result<Vec<Message>, StoreError> {
                sqlx::query(&format!("SELECT {MESSAGE_COLUMNS} FROM messages WHERE thread_id = $1 ORDER BY id"))
                    .bind(thread.0)
                    .fetch_all(self.pool())
                    .await
                    .or_backend()?
                    .iter()
                    .map(message_from)
                    .collect()
            }

            async fn threads_for(&self, person: PersonId, limit: u32) -> Result<Vec<Thread>, StoreError> {
                Ok(sqlx::query(&format!("SELECT {THREAD_COLUMNS} FROM threads WHERE person_id = $1 ORDER BY id DESC LIMIT $2"))
                    .bind(person.0)
                    .bind(i64::from(limit))
                    .fetch_all(self.pool())
                    .await
                    .or_backend()?
                    .iter()
                    .map(thread_from)
                    .collect())
            }

            async fn create_run(&self, run: &NewRun, at: DateTime<Utc>) -> Result<Run, StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                let in_thread: Option<i64> = sqlx::query_scalar("SELECT thread_id FROM messages WHERE id = $1")
                    .bind(run.message.0)
                    .fetch_optional(&mut *tx)
                    .await
                    .or_backend()?;
                if in_thread != Some(run.thread.0) {
                    return Err(StoreError::NotFound(format!("message:{} in thread:{}", run.message, run.thread)));
                }
                // A run starts at the lowest label; what it carries raises it when it ends.
                let row = sqlx::query(&format!(
                    "INSERT INTO runs (thread_id, message_id, agent_id, for_person_id, kind, state, unwatched, data_label, \
                     sources, review_mode, retry_of, created_at) VALUES ($1, $2, $3, $4, $5, 'running', $6, $7, '[]', FALSE, $8, $9) \
                     RETURNING {RUN_COLUMNS}"
                ))
                .bind(run.thread.0)
                .bind(run.message.0)
                .bind(run.agent.0)
                .bind(run.for_person.map(|p| p.0))
                .bind(run.kind.as_str())
                .bind(run.unwatched)
                .bind(DataLabel::Public.as_str())
                .bind(run.retry_of.map(|r| r.0))
                .bind(at)
                .fetch_one(&mut *tx)
                .await
                .or_backend()?;
                let created = run_from(&row)?;
                tx.commit().await.or_backend()?;
                Ok(created)
            }

            async fn run(&self, id: RunId) -> Result<Option<Run>, StoreError> {
                let mut conn = self.pool().acquire().await.or_backend()?;
                run_in(&mut conn, id).await
            }

            async fn runs_of_thread(&self, thread: ThreadId) -> Result<Vec<Run>, StoreError> {
                let mut conn = self.pool().acquire().await.or_backend()?;
                let mut runs = sqlx::query(&format!("SELECT {RUN_COLUMNS} FROM runs WHERE thread_id = $1 ORDER BY id"))
                    .bind(thread.0)
                    .fetch_all(&mut *conn)
                    .await
                    .or_backend()?
                    .iter()
                    .map(run_from)
                    .collect::<Result<Vec<_>, _>>()?;
                let steps = sqlx::query(&format!(
                    "SELECT {STEP_COLUMNS} FROM run_steps WHERE run_id IN (SELECT id FROM runs WHERE thread_id = $1) \
                     ORDER BY run_id, n"
                ))
                .bind(thread.0)
                .fetch_all(&mut *conn)
                .await
                .or_backend()?;
                for row in &steps {
                    let id = RunId(row.get("run_id"));
                    if let Some(run) = runs.iter_mut().find(|r| r.id == id) {
                        run.steps.push(step_from(row)?);
                    }
                }
                Ok(runs)
            }

            async fn add_step(&self, run: RunId, step: &NewStep, at: DateTime<Utc>) -> Result<Step, StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                let added = insert_step(&mut tx, run, step, at).await?;
                tx.commit().await.or_backend()?;
                Ok(added)
            }

            async fn end_run(&self, run: RunId, end: &RunEnd, at: DateTime<Utc>) -> Result<Run, StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                let ended = sqlx::query(
                    "UPDATE runs SET state = $1, answer = $2, failure = $3, model = $4, data_label = $5, sources = $6, \
                     review_mode = $7, finished_at = $8, check_state = $9, checked_only = $10 WHERE id = $11 \
                     AND state = 'running' RETURNING thread_id, agent_id",
                )
                .bind(end.state.as_str())
                .bind(&end.answer)
                .bind(&end.failure)
                .bind(&end.model)
                .bind(end.data_label.as_str())
                .bind(json(&end.sources)?)
                .bind(end.review_mode)
                .bind(at)
                .bind(end.check.map(|c| c.as_str()))
                .bind(end.checked_only)
                .bind(run.0)
                .fetch_optional(&mut *tx)
                .await
                .or_backend()?;
                let Some(ended) = ended else {
                    return Err(refused(&mut tx, run).await);
                };
                if let (RunState::Answered, Some(answer)) = (end.state, &end.answer) {
                    let by = Author::Agent(AgentId(ended.get("agent_id")));
                    insert_message(&mut tx, ThreadId(ended.get("thread_id")), &by, answer, at, Some(run)).await?;
                }
                let run = run_in(&mut tx, run).await?.ok_or_else(|| StoreError::NotFound(format!("run:{run}")))?;
                tx.commit().await.or_backend()?;
                Ok(run)
            }

            async fn close_retried(&self, run: RunId, by: RunId, at: DateTime<Utc>) -> Result<(), StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                let closed = sqlx::query(
                    "UPDATE runs SET state = 'retried', retried_by = $1, retried_at = $2 \
                     WHERE id = $3 AND state IN ('failed', 'answered')",
                )
                .bind(by.0)
                .bind(at)
                .bind(run.0)
                .execute(&mut *tx)
                .await
                .or_backend()?;
                if closed.rows_affected() == 0 {
                    return Err(refused(&mut tx, run).await);
                }
                tx.commit().await.or_backend()
            }

            async fn stale_runs(&self, before: DateTime<Utc>) -> Result<Vec<RunId>, StoreError> {
                let ids: Vec<i64> =
                    sqlx::query_scalar("SELECT id FROM runs WHERE state = 'running' AND created_at < $1 ORDER BY id")
                        .bind(before)
                        .fetch_all(self.pool())
                        .await
                        .or_backend()?;
                Ok(ids.into_iter().map(RunId).collect())
            }

            async fn record_event(&self, event: &NewEvent, at: DateTime<Utc>) -> Result<Event, StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                let recorded = insert_event(&mut tx, event, at).await?;
                tx.commit().await.or_backend()?;
                Ok(recorded)
            }

            async fn record_check(
                &self,
                run: RunId,
                end: &CheckEnd,
                at: DateTime<Utc>,
            ) -> Result<Vec<LimitNotice>, StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                let updated = sqlx::query(
                    "UPDATE runs SET check_state = $1, check_reason = $2 WHERE id = $3 AND check_state = 'checking' \
                     RETURNING thread_id",
                )
                .bind(end.state.as_str())
                .bind(&end.reason)
                .bind(run.0)
                .fetch_optional(&mut *tx)
                .await
                .or_backend()?;
                let Some(updated) = updated else {
                    return Err(StoreError::Changed { current: 0 });
                };
                let thread = ThreadId(updated.get("thread_id"));
                let step = NewStep {
                    kind: StepKind::Checked,
                    line: end.line.clone(),
                    words: end.words.clone(),
                    refs: end.refs.clone(),
                    detail: None,
                };
                insert_step(&mut tx, run, &step, at).await?;
                for (connector, kind, changed) in &end.facts {
                    sqlx::query(
                        "INSERT INTO fact_checks (connector_id, fact_kind, changed, run_id, at) VALUES ($1, $2, $3, $4, $5)",
                    )
                    .bind(connector)
                    .bind(kind.as_str())
                    .bind(*changed)
                    .bind(run.0)
                    .bind(at)
                    .execute(&mut *tx)
                    .await
                    .or_backend()?;
                }
                let message: Option<i64> = sqlx::query_scalar("SELECT id FROM messages WHERE answer_of_run = $1")
                    .bind(run.0)
                    .fetch_optional(&mut *tx)
                    .await
                    .or_backend()?;
                let checked = NewEvent {
                    name: "message_checked".into(),
                    thread: Some(thread),
                    message: message.map(MessageId),
                    state: Some(end.state.as_str().into()),
                    ..NewEvent::default()
                };
                insert_event(&mut tx, &checked, at).await?;
                let mut notices = Vec::new();
                let mut touched: Vec<(i64, FactKind)> = end.facts.iter().map(|(c, k, _)| (*c, *k)).collect();
                touched.sort_by_key(|(c, k)| (*c, k.as_str()));
                touched.dedup();
                for (connector, kind) in touched {
                    let (of_checks, changed): (i64, Option<i64>) = sqlx::query_as(
                        "SELECT COUNT(*), SUM(CASE WHEN changed THEN 1 ELSE 0 END) FROM (SELECT changed FROM fact_checks \
                         WHERE connector_id = $1 AND fact_kind = $2 ORDER BY id DESC LIMIT $3) latest",
                    )
                    .bind(connector)
                    .bind(kind.as_str())
                    .bind(i64::from(NOTICE_WINDOW))
                    .fetch_one(&mut *tx)
                    .await
                    .or_backend()?;
                    let (of_checks, changed) = (of_checks as u32, changed.unwrap_or(0) as u32);
                    if !limit_too_long(changed, of_checks) {
                        continue;
                    }
                    let told = sqlx::query(
                        "INSERT INTO limit_notices (connector_id, fact_kind, changed, of_checks, at) \
                         VALUES ($1, $2, $3, $4, $5) ON CONFLICT (connector_id, fact_kind) DO NOTHING",
                    )
                    .bind(connector)
                    .bind(kind.as_str())
                    .bind(i64::from(changed))
                    .bind(i64::from(of_checks))
                    .bind(at)
                    .execute(&mut *tx)
                    .await
                    .or_backend()?;
                    if told.rows_affected() == 1 {
                        let event = NewEvent {
                            name: "limit_may_be_too_long".into(),
                            connector: Some(connector),
                            state: Some(kind.as_str().into()),
                            ..NewEvent::default()
                        };
                        insert_event(&mut tx, &event, at).await?;
                        notices.push(LimitNotice { connector, kind, changed, of_checks, at });
                    }
                }
                tx.commit().await.or_backend()?;
                Ok(notices)
            }

            async fn checked_only(&self) -> Result<Vec<String>, StoreError> {
                sqlx::query_scalar("SELECT scope FROM checked_only ORDER BY scope").fetch_all(self.pool()).await.or_backend()
            }

            async fn set_checked_only(&self, scope: &str, on: bool, actor: Actor) -> Result<(), StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                let changed = if on {
                    sqlx::query("INSERT INTO checked_only (scope, set_at) VALUES ($1, $2) ON CONFLICT (scope) DO NOTHING")
                        .bind(scope)
                        .bind(actor.at)
                        .execute(&mut *tx)
                        .await
                } else {
                    sqlx::query("DELETE FROM checked_only WHERE scope = $1").bind(scope).execute(&mut *tx).await
                }
                .or_backend()?
                .rows_affected()
                    > 0;
                if changed {
                    let action = if on { "checked_only.on" } else { "checked_only.off" };
                    audit(&mut tx, actor, action, scope, "").await?;
                }
                tx.commit().await.or_backend()
            }

            async fn stale_checks(&self, before: DateTime<Utc>) -> Result<Vec<RunId>, StoreError> {
                let ids: Vec<i64> =
                    sqlx::query_scalar("SELECT id FROM runs WHERE check_state = 'checking' AND finished_at < $1 ORDER BY id")
                        .bind(before)
                        .fetch_all(self.pool())
                        .await
                        .or_backend()?;
                Ok(ids.into_iter().map(RunId).collect())
            }

            async fn limit_notices(&self, connector: i64) -> Result<Vec<LimitNotice>, StoreError> {
                let rows = sqlx::query(
                    "SELECT fact_kind, changed, of_checks, at FROM limit_notices WHERE connector_id = $1 ORDER BY at, fact_kind",
                )
                .bind(connector)
                .fetch_all(self.pool())
                .await
                .or_backend()?;
                rows.iter()
                    .map(|r| {
                        Ok(LimitNotice {
                            connector,
                            kind: fact_kind(r.get("fact_kind"))?,
                            changed: r.get::<i64, _>("changed") as u32,
                            of_checks: r.get::<i64, _>("of_checks") as u32,
                            at: r.get("at"),
                        })
                    })
                    .collect()
            }

            async fn events_after(&self, after: i64, limit: u32) -> Result<Vec<Event>, StoreError> {
                sqlx::query(&format!("SELECT {EVENT_COLUMNS} FROM events WHERE id > $1 ORDER BY id LIMIT $2"))
                    .bind(after)
                    .bind(i64::from(limit))
                    .fetch_all(self.pool())
                    .await
                    .or_backend()?
                    .iter()
                    .map(event_from)
                    .collect()
            }

            async fn message(&self, id: MessageId) -> Result<Option<Message>, StoreError> {
                let row = sqlx::query(&format!("SELECT {MESSAGE_COLUMNS} FROM messages WHERE id = $1"))
                    .bind(id.0)
                    .fetch_optional(self.pool())
                    .await
                    .or_backend()?;
                row.as_ref().map(message_from).transpose()
            }
        }
    };
}
pub(crate) use runs_store;
