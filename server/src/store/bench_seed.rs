//! Bulk writes for the block benchmark only: 10,000 people with 300 cards each are millions of
//! rows, which the product's one-row-at-a-time writes would take hours to make. Rows get the
//! ids given, in batches inside one transaction, exactly as the product's own writes shape them.
//! The use log (every use of a card, one row each) is what the naive baseline reads; the product
//! keeps only the summary and has no such table. Compiled only with the `bench-seed` feature,
//! which only the benchmark turns on, and never on the store traits, so no route can reach it.

use super::{AnyStore, PgStore, SqliteStore};
use crate::store::OrBackend;
use chrono::{DateTime, Utc};
use engine::cards::store::{Card, CardUse};
use engine::store::StoreError;
use sqlx::{QueryBuilder, Row, Sqlite};

fn to_json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_else(|_| "null".into())
}

/// A person as the benchmark makes them: a member of a team, never an admin.
#[derive(Debug, Clone)]
pub struct SeedPerson {
    pub id: i64,
    pub name: String,
    pub email: String,
    pub main_team: Option<i64>,
}

/// One use of one card by one person, for the naive baseline's log.
#[derive(Debug, Clone, Copy)]
pub struct LoggedUse {
    pub person: i64,
    pub card: i64,
    pub at: DateTime<Utc>,
    pub weight: f64,
}

/// Each card's terms, as the product's writes keep them.
fn card_terms(cards: &[Card]) -> Vec<(i64, String)> {
    use engine::cards::select::stored_terms;
    cards
        .iter()
        .flat_map(|c| stored_terms(&c.record_id, &c.fields, c.open_work).into_iter().map(move |t| (c.id, t)))
        .collect()
}

/// SQLite binds at most 32,766 values a statement.
const SQLITE_VALUES: usize = 30_000;
const PG_ROWS: usize = 10_000;

impl SqliteStore {
    async fn bench_insert<T>(
        &self,
        head: &str,
        rows: &[T],
        per_row: usize,
        push: impl Fn(&mut sqlx::query_builder::Separated<'_, '_, Sqlite, &'static str>, &T),
    ) -> Result<(), StoreError> {
        let mut tx = self.pool().begin_with("BEGIN IMMEDIATE").await.or_backend()?;
        for chunk in rows.chunks(SQLITE_VALUES / per_row) {
            let mut q: QueryBuilder<Sqlite> = QueryBuilder::new(head);
            q.push_values(chunk, |mut b, row| push(&mut b, row));
            q.build().execute(&mut *tx).await.or_backend()?;
        }
        tx.commit().await.or_backend()
    }

    #[doc(hidden)]
    pub async fn bench_insert_people(&self, people: &[SeedPerson], at: DateTime<Utc>) -> Result<(), StoreError> {
        self.bench_insert(
            "INSERT INTO people (id, name, email, password_hash, is_admin, main_team_id, created_at) ",
            people,
            7,
            |b, p| {
                b.push_bind(p.id)
                    .push_bind(p.name.clone())
                    .push_bind(p.email.clone())
                    .push_bind("unused")
                    .push_bind(0i64)
                    .push_bind(p.main_team)
                    .push_bind(at);
            },
        )
        .await
    }

    #[doc(hidden)]
    pub async fn bench_insert_cards(&self, cards: &[Card]) -> Result<(), StoreError> {
        self.bench_insert(
            "INSERT INTO cards (id, connector_id, tool, kind, record_id, version, fields, not_returned, read_with, \
             read_as, label_when_read, open_work, read_at) ",
            cards,
            13,
            |b, c| {
                b.push_bind(c.id)
                    .push_bind(c.connector)
                    .push_bind(c.tool.clone())
                    .push_bind(c.kind.clone())
                    .push_bind(c.record_id.clone())
                    .push_bind(c.version.clone())
                    .push_bind(to_json(&c.fields))
                    .push_bind(to_json(&c.not_returned))
                    .push_bind(c.read_with.as_str())
                    .push_bind(c.read_as.map(|p| p.0))
                    .push_bind(c.label_when_read.as_str())
                    .push_bind(i64::from(c.open_work))
                    .push_bind(c.read_at);
            },
        )
        .await?;
        let terms = card_terms(cards);
        self.bench_insert("INSERT INTO card_terms (card_id, term) ", &terms, 2, |b, (card, term)| {
            b.push_bind(*card).push_bind(term.clone());
        })
        .await
    }

    #[doc(hidden)]
    pub async fn bench_insert_uses(&self, uses: &[CardUse]) -> Result<(), StoreError> {
        self.bench_insert("INSERT INTO card_uses (person_id, card_id, summary, pinned, last_use) ", uses, 5, |b, u| {
            b.push_bind(u.person.0)
                .push_bind(u.card)
                .push_bind(to_json(&u.summary))
                .push_bind(i64::from(u.pinned))
                .push_bind(u.last_use);
        })
        .await
    }

    #[doc(hidden)]
    pub async fn bench_log_uses(&self, uses: &[LoggedUse]) -> Result<(), StoreError> {
        sqlx::query(
            "CREATE TABLE IF NOT EXISTS bench_use_log (person_id INTEGER NOT NULL, card_id INTEGER NOT NULL, \
             at TEXT NOT NULL, weight REAL NOT NULL)",
        )
        .execute(self.pool())
        .await
        .or_backend()?;
        sqlx::query("CREATE INDEX IF NOT EXISTS bench_use_log_person ON bench_use_log (person_id)")
            .execute(self.pool())
            .await
            .or_backend()?;
        self.bench_insert("INSERT INTO bench_use_log (person_id, card_id, at, weight) ", uses, 4, |b, u| {
            b.push_bind(u.person).push_bind(u.card).push_bind(u.at).push_bind(u.weight);
        })
        .await
    }

    #[doc(hidden)]
    pub async fn bench_logged_uses(&self, person: i64) -> Result<Vec<LoggedUse>, StoreError> {
        let rows = sqlx::query("SELECT card_id, at, weight FROM bench_use_log WHERE person_id = ?")
            .bind(person)
            .fetch_all(self.pool())
            .await
            .or_backend()?;
        Ok(rows
            .iter()
            .map(|r| LoggedUse { person, card: r.get("card_id"), at: r.get("at"), weight: r.get("weight") })
            .collect())
    }
}

impl PgStore {
    #[doc(hidden)]
    pub async fn bench_insert_people(&self, people: &[SeedPerson], at: DateTime<Utc>) -> Result<(), StoreError> {
        let mut tx = self.pool().begin().await.or_backend()?;
        for chunk in people.chunks(PG_ROWS) {
            sqlx::query(
                "INSERT INTO people (id, name, email, password_hash, is_admin, main_team_id, created_at) \
                 SELECT id, name, email, 'unused', FALSE, team, $5 FROM \
                 UNNEST($1::bigint[], $2::text[], $3::text[], $4::bigint[]) AS t (id, name, email, team)",
            )
            .bind(chunk.iter().map(|p| p.id).collect::<Vec<_>>())
            .bind(chunk.iter().map(|p| p.name.clone()).collect::<Vec<_>>())
            .bind(chunk.iter().map(|p| p.email.clone()).collect::<Vec<_>>())
            .bind(chunk.iter().map(|p| p.main_team).collect::<Vec<_>>())
            .bind(at)
            .execute(&mut *tx)
            .await
            .or_backend()?;
        }
        sqlx::query("SELECT setval(pg_get_serial_sequence('people', 'id'), (SELECT MAX(id) FROM people))")
            .execute(&mut *tx)
            .await
            .or_backend()?;
        tx.commit().await.or_backend()
    }

    #[doc(hidden)]
    pub async fn bench_insert_cards(&self, cards: &[Card]) -> Result<(), StoreError> {
        let mut tx = self.pool().begin().await.or_backend()?;
        for chunk in cards.chunks(PG_ROWS) {
            sqlx::query(
                "INSERT INTO cards (id, connector_id, tool, kind, record_id, version, fields, not_returned, read_with, \
                 read_as, label_when_read, open_work, read_at) \
                 SELECT * FROM UNNEST($1::bigint[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], \
                 $7::text[], $8::text[], $9::text[], $10::bigint[], $11::text[], $12::boolean[], $13::timestamptz[])",
            )
            .bind(chunk.iter().map(|c| c.id).collect::<Vec<_>>())
            .bind(chunk.iter().map(|c| c.connector).collect::<Vec<_>>())
            .bind(chunk.iter().map(|c| c.tool.clone()).collect::<Vec<_>>())
            .bind(chunk.iter().map(|c| c.kind.clone()).collect::<Vec<_>>())
            .bind(chunk.iter().map(|c| c.record_id.clone()).collect::<Vec<_>>())
            .bind(chunk.iter().map(|c| c.version.clone()).collect::<Vec<_>>())
            .bind(chunk.iter().map(|c| to_json(&c.fields)).collect::<Vec<_>>())
            .bind(chunk.iter().map(|c| to_json(&c.not_returned)).collect::<Vec<_>>())
            .bind(chunk.iter().map(|c| c.read_with.as_str().to_string()).collect::<Vec<_>>())
            .bind(chunk.iter().map(|c| c.read_as.map(|p| p.0)).collect::<Vec<_>>())
            .bind(chunk.iter().map(|c| c.label_when_read.as_str().to_string()).collect::<Vec<_>>())
            .bind(chunk.iter().map(|c| c.open_work).collect::<Vec<_>>())
            .bind(chunk.iter().map(|c| c.read_at).collect::<Vec<_>>())
            .execute(&mut *tx)
            .await
            .or_backend()?;
        }
        for chunk in card_terms(cards).chunks(PG_ROWS * 4) {
            sqlx::query("INSERT INTO card_terms (card_id, term) SELECT * FROM UNNEST($1::bigint[], $2::text[])")
                .bind(chunk.iter().map(|(c, _)| *c).collect::<Vec<_>>())
                .bind(chunk.iter().map(|(_, t)| t.clone()).collect::<Vec<_>>())
                .execute(&mut *tx)
                .await
                .or_backend()?;
        }
        sqlx::query("SELECT setval(pg_get_serial_sequence('cards', 'id'), (SELECT MAX(id) FROM cards))")
            .execute(&mut *tx)
            .await
            .or_backend()?;
        tx.commit().await.or_backend()
    }

    #[doc(hidden)]
    pub async fn bench_insert_uses(&self, uses: &[CardUse]) -> Result<(), StoreError> {
        let mut tx = self.pool().begin().await.or_backend()?;
        for chunk in uses.chunks(PG_ROWS) {
            sqlx::query(
                "INSERT INTO card_uses (person_id, card_id, summary, pinned, last_use) \
                 SELECT * FROM UNNEST($1::bigint[], $2::bigint[], $3::text[], $4::boolean[], $5::timestamptz[])",
            )
            .bind(chunk.iter().map(|u| u.person.0).collect::<Vec<_>>())
            .bind(chunk.iter().map(|u| u.card).collect::<Vec<_>>())
            .bind(chunk.iter().map(|u| to_json(&u.summary)).collect::<Vec<_>>())
            .bind(chunk.iter().map(|u| u.pinned).collect::<Vec<_>>())
            .bind(chunk.iter().map(|u| u.last_use).collect::<Vec<_>>())
            .execute(&mut *tx)
            .await
            .or_backend()?;
        }
        tx.commit().await.or_backend()
    }

    #[doc(hidden)]
    pub async fn bench_log_uses(&self, uses: &[LoggedUse]) -> Result<(), StoreError> {
        let mut tx = self.pool().begin().await.or_backend()?;
        sqlx::query(
            "CREATE TABLE IF NOT EXISTS bench_use_log (person_id BIGINT NOT NULL, card_id BIGINT NOT NULL, \
             at TIMESTAMPTZ NOT NULL, weight DOUBLE PRECISION NOT NULL)",
        )
        .execute(&mut *tx)
        .await
        .or_backend()?;
        sqlx::query("CREATE INDEX IF NOT EXISTS bench_use_log_person ON bench_use_log (person_id)")
            .execute(&mut *tx)
            .await
            .or_backend()?;
        for chunk in uses.chunks(PG_ROWS) {
            sqlx::query(
                "INSERT INTO bench_use_log (person_id, card_id, at, weight) \
                 SELECT * FROM UNNEST($1::bigint[], $2::bigint[], $3::timestamptz[], $4::float8[])",
            )
            .bind(chunk.iter().map(|u| u.person).collect::<Vec<_>>())
            .bind(chunk.iter().map(|u| u.card).collect::<Vec<_>>())
            .bind(chunk.iter().map(|u| u.at).collect::<Vec<_>>())
            .bind(chunk.iter().map(|u| u.weight).collect::<Vec<_>>())
            .execute(&mut *tx)
            .await
            .or_backend()?;
        }
        tx.commit().await.or_backend()
    }

    #[doc(hidden)]
    pub async fn bench_logged_uses(&self, person: i64) -> Result<Vec<LoggedUse>, StoreError> {
        let rows = sqlx::query("SELECT card_id, at, weight FROM bench_use_log WHERE person_id = $1")
            .bind(person)
            .fetch_all(self.pool())
            .await
            .or_backend()?;
        Ok(rows
            .iter()
            .map(|r| LoggedUse { person, card: r.get("card_id"), at: r.get("at"), weight: r.get("weight") })
            .collect())
    }
}

macro_rules! either {
    ($self:ident, $s:ident => $call:expr) => {
        match $self {
            AnyStore::Sqlite($s) => $call,
            AnyStore::Postgres($s) => $call,
        }
    };
}

impl AnyStore {
    #[doc(hidden)]
    pub async fn bench_insert_people(&self, people: &[SeedPerson], at: DateTime<Utc>) -> Result<(), StoreError> {
        either!(self, s => s.bench_insert_people(people, at).await)
    }

    #[doc(hidden)]
    pub async fn bench_insert_cards(&self, cards: &[Card]) -> Result<(), StoreError> {
        either!(self, s => s.bench_insert_cards(cards).await)
    }

    #[doc(hidden)]
    pub async fn bench_insert_uses(&self, uses: &[CardUse]) -> Result<(), StoreError> {
        either!(self, s => s.bench_insert_uses(uses).await)
    }

    #[doc(hidden)]
    pub async fn bench_log_uses(&self, uses: &[LoggedUse]) -> Result<(), StoreError> {
        either!(self, s => s.bench_log_uses(uses).await)
    }

    #[doc(hidden)]
    pub async fn bench_logged_uses(&self, person: i64) -> Result<Vec<LoggedUse>, StoreError> {
        either!(self, s => s.bench_logged_uses(person).await)
    }
}
