//! Recall of lessons by the databases' own text search, beside the product's ranking, in one run:
//! SQLite FTS5 (the `porter unicode61 remove_diacritics 2` tokenizer, ranked by `bm25`) and, when
//! a PostgreSQL URL is given, PostgreSQL's full-text search (`to_tsvector('english', …)`, ranked by
//! `ts_rank_cd`), over the labelled set the engine's recall bench reads
//! (`engine/benches/recall/recall_set.json`). Each search takes the ten best matches of any of the
//! question's words and keeps those at 40% of the best one's rank or more, the floor the product's
//! ranking uses. Then, for a person with 500 lessons, it times a question's whole selection each
//! way: the product's read of the person's lessons with their kept terms and its ranking, and
//! each database's search.
//!
//! Run with `cargo bench -p server --bench recall_fts`; PostgreSQL is measured when
//! `ENGRAM_BENCH_POSTGRES_URL` (else `ENGRAM_TEST_POSTGRES_URL`) names a server, on a database of
//! its own, dropped after. Figures are printed, never asserted.

use chrono::{DateTime, Utc};
use engine::lessons::select::{lessons_for, LessonTerms};
use engine::lessons::Lesson;
use sqlx::{Connection, Executor, PgConnection, Row, SqliteConnection};
use std::time::Instant;

#[path = "../../engine/benches/recall/set.rs"]
mod set;
use set::{lesson, percentile, Tally};

/// The share of the best match's rank a lesson needs to load: the product's floor.
const FLOOR: f64 = 0.4;

/// The question's words as both searches take them: letters and digits, each a quoted term, any
/// of which may match. The databases' tokenizers split, fold and stem them as they did the lessons.
fn words(question: &str) -> Vec<String> {
    let mut out: Vec<String> =
        question.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(|w| w.to_lowercase()).collect();
    out.sort();
    out.dedup();
    out
}

/// The loaded lessons of ranked (id, rank) rows, best first: those at the floor or above.
fn floored(rows: Vec<(i64, f64)>) -> Vec<i64> {
    let best = rows.first().map_or(0.0, |r| r.1);
    rows.into_iter().filter(|(_, r)| *r >= best * FLOOR && *r > 0.0).map(|(id, _)| id).collect()
}

struct Sqlite(SqliteConnection);

impl Sqlite {
    async fn new() -> Self {
        let mut c = SqliteConnection::connect("sqlite::memory:").await.expect("an in-memory SQLite");
        c.execute(
            "CREATE VIRTUAL TABLE lesson_text USING fts5(person UNINDEXED, id UNINDEXED, text, \
             tokenize = 'porter unicode61 remove_diacritics 2')",
        )
        .await
        .expect("FTS5 is built into the bundled SQLite");
        // The product's read: a person's lessons with the terms kept when each was written.
        c.execute("CREATE TABLE lessons (person INTEGER, id INTEGER, text TEXT, match_terms TEXT)").await.unwrap();
        c.execute("CREATE INDEX lessons_by_person ON lessons (person, id)").await.unwrap();
        Sqlite(c)
    }

    async fn add(&mut self, person: i64, id: usize, text: &str) {
        sqlx::query("INSERT INTO lesson_text (person, id, text) VALUES (?, ?, ?)")
            .bind(person)
            .bind(id as i64)
            .bind(text)
            .execute(&mut self.0)
            .await
            .unwrap();
        sqlx::query("INSERT INTO lessons (person, id, text, match_terms) VALUES (?, ?, ?, ?)")
            .bind(person)
            .bind(id as i64)
            .bind(text)
            .bind(LessonTerms::of(text).to_stored())
            .execute(&mut self.0)
            .await
            .unwrap();
    }

    async fn search(&mut self, person: i64, question: &str) -> Vec<i64> {
        let query = words(question).iter().map(|w| format!("\"{w}\"")).collect::<Vec<_>>().join(" OR ");
        if query.is_empty() {
            return vec![];
        }
        // bm25 is lower for a better match; its negation ranks as the product's relevance does.
        let rows = sqlx::query(
            "SELECT id, -bm25(lesson_text) AS rank FROM lesson_text WHERE lesson_text MATCH ? AND person = ? \
             ORDER BY rank DESC LIMIT 10",
        )
        .bind(query)
        .bind(person)
        .fetch_all(&mut self.0)
        .await
        .unwrap();
        floored(rows.iter().map(|r| (r.get::<i64, _>(0), r.get::<f64, _>(1))).collect())
    }

    /// The product's way: read the person's lessons with their kept terms, then rank.
    async fn product(&mut self, person: i64, question: &str, at: DateTime<Utc>) -> Vec<i64> {
        let rows = sqlx::query("SELECT id, text, match_terms FROM lessons WHERE person = ?")
            .bind(person)
            .fetch_all(&mut self.0)
            .await
            .unwrap();
        let lessons: Vec<Lesson> = rows
            .iter()
            .map(|r| {
                let terms = LessonTerms::from_stored(&r.get::<String, _>(2));
                lesson(r.get::<i64, _>(0) as usize, &r.get::<String, _>(1), terms, at)
            })
            .collect();
        lessons_for(question, &lessons).iter().map(|l| l.id).collect()
    }
}

struct Postgres {
    conn: PgConnection,
    admin: String,
    name: String,
}

impl Postgres {
    async fn new(admin: &str) -> Self {
        let name = format!("recall_fts_{}", std::process::id());
        let mut a = PgConnection::connect(admin).await.expect("the PostgreSQL server");
        a.execute(format!("CREATE DATABASE {name}").as_str()).await.expect("a database of its own");
        let mut url = reqwest::Url::parse(admin).expect("a URL");
        url.set_path(&format!("/{name}"));
        let mut conn = PgConnection::connect(url.as_str()).await.expect("its database");
        conn.execute(
            "CREATE TABLE lesson_text (person BIGINT, id BIGINT, text TEXT, \
             doc tsvector GENERATED ALWAYS AS (to_tsvector('english', text)) STORED); \
             CREATE INDEX lesson_text_doc ON lesson_text USING gin (doc); \
             CREATE INDEX lesson_text_person ON lesson_text (person)",
        )
        .await
        .unwrap();
        Postgres { conn, admin: admin.to_string(), name }
    }

    async fn add(&mut self, person: i64, id: usize, text: &str) {
        sqlx::query("INSERT INTO lesson_text (person, id, text) VALUES ($1, $2, $3)")
            .bind(person)
            .bind(id as i64)
            .bind(text)
            .execute(&mut self.conn)
            .await
            .unwrap();
    }

    async fn search(&mut self, person: i64, question: &str) -> Vec<i64> {
        let query = words(question).join(" | ");
        if query.is_empty() {
            return vec![];
        }
        let rows = sqlx::query(
            "SELECT id, ts_rank_cd(doc, q)::float8 AS rank FROM lesson_text, to_tsquery('english', $1) q \
             WHERE person = $2 AND doc @@ q ORDER BY rank DESC LIMIT 10",
        )
        .bind(query)
        .bind(person)
        .fetch_all(&mut self.conn)
        .await
        .unwrap();
        floored(rows.iter().map(|r| (r.get::<i64, _>(0), r.get::<f64, _>(1))).collect())
    }

    async fn drop_database(self) {
        self.conn.close().await.ok();
        let mut a = PgConnection::connect(&self.admin).await.expect("the PostgreSQL server");
        a.execute(format!("DROP DATABASE {}", self.name).as_str()).await.ok();
    }
}

async fn run() {
    let set = set::read();
    let at: DateTime<Utc> = "2026-11-01T09:00:00Z".parse().expect("a time");
    let pg_url = std::env::var("ENGRAM_BENCH_POSTGRES_URL").or_else(|_| std::env::var("ENGRAM_TEST_POSTGRES_URL")).ok();

    let mut sqlite = Sqlite::new().await;
    let mut pg = match &pg_url {
        Some(url) => Some(Postgres::new(url).await),
        None => None,
    };
    for (p, person) in set.people.iter().enumerate() {
        for (i, text) in person.lessons.iter().enumerate() {
            sqlite.add(p as i64, i, text).await;
            if let Some(pg) = pg.as_mut() {
                pg.add(p as i64, i, text).await;
            }
        }
    }
    // The person with 500 lessons: the set's first 500, as the engine's bench takes them.
    const MANY: i64 = 1_000;
    for (i, text) in set.people.iter().flat_map(|p| p.lessons.iter()).take(500).enumerate() {
        sqlite.add(MANY, i, text).await;
        if let Some(pg) = pg.as_mut() {
            pg.add(MANY, i, text).await;
        }
    }

    let (mut product, mut fts5, mut tsearch) = (Tally::default(), Tally::default(), Tally::default());
    for (p, person) in set.people.iter().enumerate() {
        for q in &person.questions {
            let expect = q.expect as i64;
            product.add(&q.style, &sqlite.product(p as i64, &q.question, at).await, expect);
            fts5.add(&q.style, &sqlite.search(p as i64, &q.question).await, expect);
            if let Some(pg) = pg.as_mut() {
                tsearch.add(&q.style, &pg.search(p as i64, &q.question).await, expect);
            }
        }
    }
    println!("recall set: {} questions over {} people, {} lessons each", product.asked, set.people.len(), 56);
    println!("| selection | recall@10 | precision@10 | lessons loaded per question |");
    println!("|---|---|---|---|");
    let mut rows = vec![("the product's ranking", &product), ("SQLite FTS5, bm25", &fts5)];
    if pg.is_some() {
        rows.push(("PostgreSQL full-text search, ts_rank_cd", &tsearch));
    }
    for (name, t) in &rows {
        println!("| {name} | {:.3} | {:.3} | {:.1} |", t.recall(), t.precision(), t.per_question());
    }
    let mut styles: Vec<_> = product.by_style.keys().cloned().collect();
    styles.sort();
    println!("\n| style | {} |", rows.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(" | "));
    println!("|---|{}", "---|".repeat(rows.len()));
    for s in styles {
        let cells: Vec<String> = rows
            .iter()
            .map(|(_, t)| {
                let (asked, found) = t.by_style[&s];
                format!("{:.2}", found as f64 / asked as f64)
            })
            .collect();
        println!("| {s} | {} |", cells.join(" | "));
    }

    let questions: Vec<&str> =
        set.people.iter().flat_map(|p| p.questions.iter().map(|q| q.question.as_str())).collect();
    for q in questions.iter().take(50) {
        sqlite.product(MANY, q, at).await;
        sqlite.search(MANY, q).await;
        if let Some(pg) = pg.as_mut() {
            pg.search(MANY, q).await;
        }
    }
    let (mut t_product, mut t_fts5, mut t_pg) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..5 {
        for q in &questions {
            let t = Instant::now();
            sqlite.product(MANY, q, at).await;
            t_product.push(t.elapsed());
            let t = Instant::now();
            sqlite.search(MANY, q).await;
            t_fts5.push(t.elapsed());
            if let Some(pg) = pg.as_mut() {
                let t = Instant::now();
                pg.search(MANY, q).await;
                t_pg.push(t.elapsed());
            }
        }
    }
    println!("\na person with 500 lessons, {} questions, each selection with its read:", t_product.len());
    println!("| selection | p50 | p99 |");
    println!("|---|---|---|");
    let mut timed = vec![
        ("the product's: the person's lessons read with their terms, then ranked (SQLite)", t_product),
        ("SQLite FTS5, bm25", t_fts5),
    ];
    if pg.is_some() {
        timed.push(("PostgreSQL full-text search, ts_rank_cd (over TCP)", t_pg));
    }
    for (name, mut v) in timed {
        v.sort();
        println!("| {name} | {:.2?} | {:.2?} |", percentile(&v, 0.5), percentile(&v, 0.99));
    }
    if let Some(pg) = pg {
        pg.drop_database().await;
    }
}

fn main() {
    println!(
        "engram recall by the databases' text search (build profile: {})",
        if cfg!(debug_assertions) { "debug" } else { "release" }
    );
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("runtime");
    rt.block_on(run());
}
