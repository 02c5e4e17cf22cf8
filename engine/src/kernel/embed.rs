//! The embedding port: what the server's embedding endpoints implement (an OpenAI-compatible
//! `/embeddings`, or Ollama's `/api/embed`). Lessons are embedded when they are kept, and a run's
//! question once, so a lesson can be found by what it means as well as by its words. Without an
//! embedder configured nothing here is called, and lessons rank by their words alone.

use super::label::DataLabel;
use async_trait::async_trait;

/// Why an embedding was not made. Each is logged and skipped by the caller: a lesson is then kept
/// without a vector, a run ranks by words alone.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EmbedError {
    #[error("the embedding endpoint did not answer within {0} ms")]
    Timeout(u64),
    #[error("the embedding endpoint could not be reached: {0}")]
    Unreachable(String),
    #[error("the embedding endpoint answered with status {0}")]
    Status(u16),
    /// It redirected elsewhere than the host it was asked at, which the outbound policy refuses.
    #[error("the embedding endpoint was refused: {0}")]
    Refused(String),
    #[error("the embedding endpoint's answer was not in the expected shape: {0}")]
    BadResponse(String),
}

/// What an embedding is for, which sets how long the call may take: a question is on a run's
/// path and waits briefly; lessons are embedded in the background and may wait longer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EmbedFor {
    Question,
    Lessons,
}

#[async_trait]
pub trait Embedder: Send + Sync {
    /// `<provider>/<model>`, kept with every vector it makes: vectors of two models are never
    /// compared, and a lesson embedded by another model counts as not embedded.
    fn model(&self) -> String;
    /// The highest data label the endpoint may be sent: a lesson labelled above it is never
    /// embedded, and ranks by its words.
    fn cleared_for(&self) -> DataLabel;
    /// The cosine similarity below which a lesson is not like the question at all; what counts
    /// as unlike differs by model, so the operator sets it.
    fn min_similarity(&self) -> f32;
    /// One vector per text, in order.
    async fn embed(&self, texts: &[String], purpose: EmbedFor) -> Result<Vec<Vec<f32>>, EmbedError>;
}

/// The vector scaled to length 1, so that the cosine of two is their dot product; `None` for a
/// vector that is empty, zero or not finite, which means nothing.
pub fn unit(v: &[f32]) -> Option<Vec<f32>> {
    let norm = v.iter().map(|x| f64::from(*x) * f64::from(*x)).sum::<f64>().sqrt();
    if v.is_empty() || !norm.is_finite() || norm == 0.0 {
        return None;
    }
    Some(v.iter().map(|x| (f64::from(*x) / norm) as f32).collect())
}

/// The cosine of two unit vectors; 0 when their lengths differ (another model's).
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    if a.len() != b.len() {
        return 0.0;
    }
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// A vector as the store keeps it: each number as four little-endian bytes. A 1,536-number
/// vector is 6 KiB this way, against some 20 KiB as JSON text, and reads back without parsing.
pub fn to_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// As the store kept it; `None` for bytes `to_bytes` never writes.
pub fn from_bytes(b: &[u8]) -> Option<Vec<f32>> {
    if b.is_empty() || !b.len().is_multiple_of(4) {
        return None;
    }
    let v: Vec<f32> = b.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    v.iter().all(|x| x.is_finite()).then_some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_vector_reads_back_as_kept_and_its_unit_has_cosine_one_with_itself() {
        let v = unit(&[3.0, 4.0, 0.0]).unwrap();
        assert_eq!(v, vec![0.6, 0.8, 0.0]);
        assert_eq!(from_bytes(&to_bytes(&v)), Some(v.clone()));
        assert!((cosine(&v, &v) - 1.0).abs() < 1e-6);
        assert_eq!(cosine(&v, &[1.0, 0.0]), 0.0, "another model's vector is never alike");
        assert_eq!(unit(&[0.0, 0.0]), None);
        assert_eq!(unit(&[]), None);
        assert_eq!(unit(&[f32::NAN]), None);
        assert_eq!(from_bytes(&[1, 2, 3]), None);
        assert_eq!(from_bytes(&[]), None);
        assert_eq!(from_bytes(&f32::INFINITY.to_le_bytes()), None);
    }
}
