//! What lessons mean: each lesson's vector from the configured embedding model, claimed once
//! across servers before it is made (see `engine::lessons::vectors`).
//!
//! Written once for both backends (see "Written once" in `store`).

macro_rules! lesson_vectors_store {
    () => {
        use super::{in_list, list, ThisStore};
        use crate::store::OrBackend;
        use async_trait::async_trait;
        use chrono::{DateTime, Utc};
        use engine::kernel::embed::{from_bytes, to_bytes};
        use engine::kernel::DataLabel;
        use engine::lessons::vectors::LessonVectorStore;
        use engine::store::StoreError;
        use sqlx::Row;
        use std::collections::HashMap;

        #[async_trait]
        impl LessonVectorStore for ThisStore {
            async fn claim_lessons_to_embed(
                &self,
                model: &str,
                labels: &[DataLabel],
                limit: u32,
                now: DateTime<Utc>,
                stale_before: DateTime<Utc>,
            ) -> Result<Vec<(i64, String)>, StoreError> {
                let labels: Vec<&str> = labels.iter().map(|l| l.as_str()).collect();
                // One statement claims: of racing servers, the conflict on the lesson's row lets
                // one in, and the other finds a fresh claim and skips it. A row of another model,
                // or a stale claim that made nothing, is claimed again.
                let claimed: Vec<i64> = sqlx::query_scalar(&format!(
                    "INSERT INTO lesson_embeddings (lesson_id, model, claimed_at) \
                     SELECT l.id, $1, $2 FROM lessons l \
                     WHERE l.state IN ('accepted', 'waiting') AND {} \
                     AND NOT EXISTS (SELECT 1 FROM lesson_embeddings e WHERE e.lesson_id = l.id \
                     AND ((e.model = $1 AND e.vector IS NOT NULL) OR e.claimed_at > $4)) \
                     ORDER BY l.id DESC LIMIT $5 \
                     ON CONFLICT (lesson_id) DO UPDATE SET model = excluded.model, vector = NULL, \
                     claimed_at = excluded.claimed_at, made_at = NULL \
                     WHERE (lesson_embeddings.model <> excluded.model OR lesson_embeddings.vector IS NULL) \
                     AND lesson_embeddings.claimed_at <= $4 \
                     RETURNING lesson_id",
                    in_list("l.label", 3)
                ))
                .bind(model)
                .bind(now)
                .bind(list(&labels))
                .bind(stale_before)
                .bind(i64::from(limit))
                .fetch_all(self.pool())
                .await
                .or_backend()?;
                if claimed.is_empty() {
                    return Ok(vec![]);
                }
                let rows = sqlx::query(&format!(
                    "SELECT id, text FROM lessons WHERE {} ORDER BY id DESC",
                    in_list("id", 1)
                ))
                .bind(list(&claimed))
                .fetch_all(self.pool())
                .await
                .or_backend()?;
                Ok(rows.iter().map(|r| (r.get("id"), r.get("text"))).collect())
            }

            async fn keep_lesson_vector(
                &self,
                lesson: i64,
                model: &str,
                vector: &[f32],
                at: DateTime<Utc>,
            ) -> Result<bool, StoreError> {
                let done = sqlx::query(
                    "UPDATE lesson_embeddings SET vector = $1, made_at = $2 WHERE lesson_id = $3 AND model = $4",
                )
                .bind(to_bytes(vector))
                .bind(at)
                .bind(lesson)
                .bind(model)
                .execute(self.pool())
                .await
                .or_backend()?;
                Ok(done.rows_affected() > 0)
            }

            async fn lesson_vectors(
                &self,
                lessons: &[i64],
                model: &str,
            ) -> Result<HashMap<i64, Vec<f32>>, StoreError> {
                if lessons.is_empty() {
                    return Ok(HashMap::new());
                }
                let rows = sqlx::query(&format!(
                    "SELECT lesson_id, vector FROM lesson_embeddings WHERE model = $1 AND vector IS NOT NULL AND {}",
                    in_list("lesson_id", 2)
                ))
                .bind(model)
                .bind(list(lessons))
                .fetch_all(self.pool())
                .await
                .or_backend()?;
                let mut out = HashMap::with_capacity(rows.len());
                for r in &rows {
                    let bytes: Vec<u8> = r.get("vector");
                    let v = from_bytes(&bytes)
                        .ok_or_else(|| StoreError::Backend("a stored lesson vector has bad bytes".into()))?;
                    out.insert(r.get::<i64, _>("lesson_id"), v);
                }
                Ok(out)
            }
        }
    };
}
pub(crate) use lesson_vectors_store;
