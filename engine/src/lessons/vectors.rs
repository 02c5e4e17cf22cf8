//! What lessons mean, where an embedding model is configured: each lesson's vector is made after
//! it is kept, off every request's path, and a run embeds its question once to rank the lessons
//! it reads by meaning beside their words ([`select::lessons_for_meaning`]).
//!
//! Lessons are embedded by [`LessonVectors::catch_up`]: right after a person keeps or corrects
//! one (in the background), and every minute for whatever still lacks a vector of the configured
//! model (lessons the nightly job wrote, a call that failed, a model changed). Each lesson is
//! claimed before it is embedded, so however many servers share the database one of them embeds
//! it; a claim not finished within [`CLAIM_MINUTES`] is taken again. A failed or slow call is
//! logged and skipped: the lesson stays without a vector and ranks by its words.

use super::select::{self, Meaning};
use super::{Lesson, LessonError};
use crate::clock::Clock;
use crate::kernel::embed::{unit, EmbedFor, Embedder};
use crate::kernel::{DataLabel, StoreError};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use std::collections::HashMap;
use std::sync::Arc;

/// Lessons embedded in one call, at most: a catch-up after a long outage goes in bounded steps.
pub const EMBED_BATCH: u32 = 32;

/// A claim to embed a lesson that is not finished within this long is taken again, by whichever
/// server comes next: the call failed, or its server stopped.
pub const CLAIM_MINUTES: i64 = 10;

#[async_trait]
pub trait LessonVectorStore: Send + Sync {
    /// Claims at most `limit` accepted or waiting lessons, labelled one of `labels`, that have no
    /// vector of `model` and no claim made after `stale_before`, newest first; returns their ids
    /// and texts. Of racing claimers each lesson goes to one.
    async fn claim_lessons_to_embed(
        &self,
        model: &str,
        labels: &[DataLabel],
        limit: u32,
        now: DateTime<Utc>,
        stale_before: DateTime<Utc>,
    ) -> Result<Vec<(i64, String)>, StoreError>;
    /// Keeps the vector `model` made of a lesson claimed for it; false when the lesson was
    /// forgotten meanwhile, or claimed since for another model.
    async fn keep_lesson_vector(
        &self,
        lesson: i64,
        model: &str,
        vector: &[f32],
        at: DateTime<Utc>,
    ) -> Result<bool, StoreError>;
    /// The vectors `model` made of the lessons named, by lesson id; a lesson without one is left
    /// out.
    async fn lesson_vectors(&self, lessons: &[i64], model: &str) -> Result<HashMap<i64, Vec<f32>>, StoreError>;
}

/// Runs a future in the background: the host hands in its runtime's spawn (the same as the runs'
/// `Spawn`), so the engine needs no runtime of its own.
pub type Spawn = Arc<dyn Fn(std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>>) + Send + Sync>;

/// Embedding lessons and ranking them by meaning, with the configured embedder.
#[derive(Clone)]
pub struct LessonVectors {
    store: Arc<dyn LessonVectorStore>,
    embedder: Arc<dyn Embedder>,
    clock: Arc<dyn Clock>,
}

impl LessonVectors {
    pub fn new(store: Arc<dyn LessonVectorStore>, embedder: Arc<dyn Embedder>, clock: Arc<dyn Clock>) -> Self {
        Self { store, embedder, clock }
    }

    /// Embeds what lacks a vector in the background, now: after a person kept or corrected a
    /// lesson, so it is ranked by meaning from the next run on, and never waited for.
    pub fn catch_up_soon(&self, spawn: &Spawn) {
        let this = self.clone();
        spawn(Box::pin(async move {
            if let Err(e) = this.catch_up().await {
                tracing::warn!(error = %e, "lessons were not embedded; the next minute's job tries again");
            }
        }));
    }

    /// Embeds one batch of the lessons that lack a vector of the configured model; returns how
    /// many were kept. A failed call is logged and embeds nothing: those lessons are taken again
    /// once their claim is stale.
    pub async fn catch_up(&self) -> Result<u32, LessonError> {
        let model = self.embedder.model();
        let cleared = self.embedder.cleared_for();
        let labels: Vec<DataLabel> =
            [DataLabel::Public, DataLabel::Internal, DataLabel::Confidential, DataLabel::Personal]
                .into_iter()
                .filter(|l| *l <= cleared)
                .collect();
        let now = self.clock.now();
        let stale = now - chrono::Duration::minutes(CLAIM_MINUTES);
        let claimed = self.store.claim_lessons_to_embed(&model, &labels, EMBED_BATCH, now, stale).await?;
        if claimed.is_empty() {
            return Ok(0);
        }
        let texts: Vec<String> = claimed.iter().map(|(_, t)| t.clone()).collect();
        let vectors = match self.embedder.embed(&texts, EmbedFor::Lessons).await {
            Ok(v) if v.len() == texts.len() => v,
            Ok(v) => {
                tracing::warn!(
                    model,
                    asked = texts.len(),
                    got = v.len(),
                    "the embedding endpoint answered for other lessons than asked; they rank by words"
                );
                return Ok(0);
            }
            Err(e) => {
                tracing::warn!(model, lessons = texts.len(), error = %e, "lessons were not embedded; they rank by words until a later try");
                return Ok(0);
            }
        };
        let mut kept = 0;
        for ((id, _), v) in claimed.iter().zip(vectors) {
            let Some(v) = unit(&v) else {
                tracing::warn!(
                    model,
                    lesson = id,
                    "the embedding endpoint answered an empty vector; the lesson ranks by words"
                );
                continue;
            };
            if self.store.keep_lesson_vector(*id, &model, &v, self.clock.now()).await? {
                kept += 1;
            }
        }
        tracing::info!(model, lessons = kept, "lessons were embedded");
        Ok(kept)
    }

    /// The question's vector, for one run: one call within the question's short timeout, or
    /// `None` (logged) when it fails, and the run ranks by words.
    pub async fn question(&self, question: &str) -> Option<Vec<f32>> {
        if question.trim().is_empty() {
            return None;
        }
        match self.embedder.embed(&[question.to_string()], EmbedFor::Question).await {
            Ok(mut v) if v.len() == 1 => unit(&v.remove(0)),
            Ok(_) => {
                tracing::warn!(
                    model = self.embedder.model(),
                    "the embedding endpoint answered no vector for the question; ranking by words"
                );
                None
            }
            Err(e) => {
                tracing::warn!(model = self.embedder.model(), error = %e, "the question was not embedded; ranking by words");
                None
            }
        }
    }

    /// The lessons a question loads, by meaning beside words when the question's vector is
    /// known; by words alone otherwise, or when the kept vectors cannot be read (logged).
    pub async fn ranked<'a>(&self, question: &str, lessons: &'a [Lesson], asked: Option<&[f32]>) -> Vec<&'a Lesson> {
        let Some(q) = asked.filter(|_| !lessons.is_empty()) else { return select::lessons_for(question, lessons) };
        let ids: Vec<i64> = lessons.iter().map(|l| l.id).collect();
        let vectors = match self.store.lesson_vectors(&ids, &self.embedder.model()).await {
            Ok(v) => v,
            Err(e) => {
                tracing::warn!(error = %e, "the lessons' vectors were not read; ranking by words");
                return select::lessons_for(question, lessons);
            }
        };
        let meaning = Meaning::new(q, &vectors, self.embedder.min_similarity());
        select::lessons_for_meaning(question, lessons, Some(meaning))
    }
}

#[cfg(test)]
#[path = "vectors_tests.rs"]
mod tests;
