//! What only the engine's recall bench reads: the questions in other words, and a real embedding
//! model's vectors for every text of both sets.

use serde::Deserialize;
use std::collections::HashMap;

/// A question about one of a person's lessons asked in other words: neither the key's words nor
/// their synonym, only the account's name in common with the lesson.
#[derive(Deserialize)]
pub struct OtherWords {
    /// The person's place among the set's people.
    pub person: usize,
    pub question: String,
    pub expect: usize,
}

#[derive(Deserialize)]
struct OtherWordsFile {
    questions: Vec<OtherWords>,
}

/// Each text's vector from a real embedding model, made by `recall/embed_set.py`.
#[derive(Deserialize)]
pub struct Vectors {
    pub model: String,
    pub vectors: HashMap<String, Vec<f32>>,
}

impl Vectors {
    /// The text's vector; every text of the sets has one, or the file is of other sets.
    pub fn of(&self, text: &str) -> Vec<f32> {
        self.vectors.get(text).cloned().unwrap_or_else(|| panic!("no vector for {text:?}: make the file again"))
    }
}

/// The committed questions in other words, `engine/benches/recall/other_words.json`.
pub fn read_other_words() -> Vec<OtherWords> {
    serde_json::from_str::<OtherWordsFile>(&super::set::committed("other_words.json")).expect("its shape").questions
}

/// The real model's vectors, when `ENGRAM_BENCH_RECALL_VECTORS` names the file.
pub fn read_vectors() -> Option<Vectors> {
    let path = std::env::var("ENGRAM_BENCH_RECALL_VECTORS").ok().filter(|p| !p.is_empty())?;
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    Some(serde_json::from_str(&text).expect("the vectors' shape"))
}
