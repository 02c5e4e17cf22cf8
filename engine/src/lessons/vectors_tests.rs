//! The rules of embedding lessons and ranking by meaning, against a fake embedder and a fake
//! store of vectors: no database, no HTTP.

use super::*;
use crate::clock::ManualClock;
use crate::kernel::embed::EmbedError;
use crate::lessons::select::tests::lesson;
use crate::lessons::LessonState;
use std::sync::Mutex;

/// An embedder that maps a text to a vector by the topics it names (three axes: money, people,
/// dates), answers with a scripted failure when told to, and counts its calls.
struct Fake {
    fail: Option<EmbedError>,
    calls: Mutex<Vec<(usize, EmbedFor)>>,
    cleared: DataLabel,
}

fn fake() -> Fake {
    Fake { fail: None, calls: Mutex::new(vec![]), cleared: DataLabel::Internal }
}

/// Made-up meaning: words about paying point one way, about meeting another, about dates a third.
fn meaning_of(text: &str) -> Vec<f32> {
    let t = text.to_lowercase();
    let has = |ws: &[&str]| ws.iter().filter(|w| t.contains(*w)).count() as f32;
    vec![
        has(&["pay", "invoice", "settle", "money", "owe"]),
        has(&["call", "meet", "talk", "phone"]),
        has(&["march", "renew", "date", "when"]),
        0.05,
    ]
}

#[async_trait]
impl Embedder for Fake {
    fn model(&self) -> String {
        "fake/topics".into()
    }
    fn cleared_for(&self) -> DataLabel {
        self.cleared
    }
    fn min_similarity(&self) -> f32 {
        0.3
    }
    async fn embed(&self, texts: &[String], purpose: EmbedFor) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.calls.lock().unwrap().push((texts.len(), purpose));
        if let Some(e) = &self.fail {
            return Err(e.clone());
        }
        Ok(texts.iter().map(|t| meaning_of(t)).collect())
    }
}

/// Lessons by id with their text, label and state; claims and vectors by lesson and model.
#[derive(Default)]
struct Store {
    lessons: Mutex<Vec<(i64, String, DataLabel, LessonState)>>,
    claims: Mutex<HashMap<i64, (String, DateTime<Utc>)>>,
    vectors: Mutex<HashMap<i64, (String, Vec<f32>)>>,
    broken: bool,
}

#[async_trait]
impl LessonVectorStore for Store {
    async fn claim_lessons_to_embed(
        &self,
        model: &str,
        labels: &[DataLabel],
        limit: u32,
        now: DateTime<Utc>,
        stale_before: DateTime<Utc>,
    ) -> Result<Vec<(i64, String)>, StoreError> {
        let (vectors, mut claims) = (self.vectors.lock().unwrap(), self.claims.lock().unwrap());
        let mut out = Vec::new();
        let mut lessons = self.lessons.lock().unwrap().clone();
        lessons.sort_by_key(|l| std::cmp::Reverse(l.0));
        for (id, text, label, state) in lessons {
            let open = matches!(state, LessonState::Accepted | LessonState::Waiting) && labels.contains(&label);
            let has = vectors.get(&id).is_some_and(|(m, _)| m == model);
            let held = claims.get(&id).is_some_and(|(_, at)| *at > stale_before);
            if open && !has && !held && out.len() < limit as usize {
                claims.insert(id, (model.to_string(), now));
                out.push((id, text));
            }
        }
        Ok(out)
    }
    async fn keep_lesson_vector(&self, id: i64, model: &str, v: &[f32], _: DateTime<Utc>) -> Result<bool, StoreError> {
        if !self.lessons.lock().unwrap().iter().any(|l| l.0 == id) {
            return Ok(false);
        }
        self.vectors.lock().unwrap().insert(id, (model.to_string(), v.to_vec()));
        Ok(true)
    }
    async fn lesson_vectors(&self, ids: &[i64], model: &str) -> Result<HashMap<i64, Vec<f32>>, StoreError> {
        if self.broken {
            return Err(StoreError::Backend("down".into()));
        }
        let v = self.vectors.lock().unwrap();
        Ok(ids.iter().filter_map(|id| v.get(id).filter(|(m, _)| m == model).map(|(_, x)| (*id, x.clone()))).collect())
    }
}

fn t0() -> DateTime<Utc> {
    "2026-12-05T09:00:00Z".parse().unwrap()
}

fn service(store: Arc<Store>, embedder: Arc<Fake>) -> LessonVectors {
    LessonVectors::new(store, embedder, Arc::new(ManualClock::new(t0())))
}

const TEXTS: [&str; 4] = [
    "Kaveri Foods settles every invoice after 45 days",
    "Priya at Kaveri Foods prefers a phone call before 10",
    "The Kaveri Foods renewal is in March",
    "Litware's office moved to the fourth floor",
];

fn lessons() -> Vec<Lesson> {
    TEXTS.iter().enumerate().map(|(i, t)| lesson(i as i64 + 1, t, LessonState::Accepted, true, t0())).collect()
}

fn stored(with: &[(i64, DataLabel, LessonState)]) -> Arc<Store> {
    let s = Store::default();
    *s.lessons.lock().unwrap() =
        with.iter().map(|(id, label, state)| (*id, TEXTS[(*id - 1) as usize].to_string(), *label, *state)).collect();
    Arc::new(s)
}

fn ids(ls: Vec<&Lesson>) -> Vec<i64> {
    ls.into_iter().map(|l| l.id).collect()
}

#[tokio::test]
async fn kept_lessons_are_embedded_once_in_one_call_and_only_those_cleared_and_open() {
    use DataLabel::*;
    let store = stored(&[
        (1, Internal, LessonState::Accepted),
        (2, Internal, LessonState::Waiting),
        (3, Confidential, LessonState::Accepted),
        (4, Internal, LessonState::Superseded),
    ]);
    let embedder = Arc::new(fake());
    let v = service(store.clone(), embedder.clone());
    assert_eq!(v.catch_up().await.unwrap(), 2);
    let kept: Vec<i64> = {
        let mut k: Vec<i64> = store.vectors.lock().unwrap().keys().copied().collect();
        k.sort();
        k
    };
    assert_eq!(
        kept,
        [1, 2],
        "a confidential lesson is not sent an embedder cleared for internal; a superseded one never loads"
    );
    assert_eq!(*embedder.calls.lock().unwrap(), [(2, EmbedFor::Lessons)]);
    assert_eq!(v.catch_up().await.unwrap(), 0, "nothing is embedded twice");
    assert_eq!(embedder.calls.lock().unwrap().len(), 1, "and nothing left asks the endpoint");
    let (_, stored_vector) = store.vectors.lock().unwrap()[&1].clone();
    assert!((stored_vector.iter().map(|x| x * x).sum::<f32>() - 1.0).abs() < 1e-5, "kept at unit length");
}

#[tokio::test]
async fn a_failed_call_keeps_the_lesson_without_a_vector_and_it_is_taken_again_once_its_claim_is_stale() {
    let store = stored(&[(1, DataLabel::Internal, LessonState::Accepted)]);
    let failing = Arc::new(Fake { fail: Some(EmbedError::Timeout(30_000)), ..fake() });
    assert_eq!(service(store.clone(), failing).catch_up().await.unwrap(), 0);
    assert!(store.vectors.lock().unwrap().is_empty());
    let working = Arc::new(fake());
    assert_eq!(service(store.clone(), working.clone()).catch_up().await.unwrap(), 0, "still claimed");
    assert!(working.calls.lock().unwrap().is_empty());
    let later = LessonVectors::new(
        store.clone(),
        working.clone(),
        Arc::new(ManualClock::new(t0() + chrono::Duration::minutes(CLAIM_MINUTES + 1))),
    );
    assert_eq!(later.catch_up().await.unwrap(), 1, "a stale claim is taken again");
}

#[tokio::test]
async fn meaning_finds_a_lesson_the_question_shares_no_word_with_and_orders_by_both() {
    let store = stored(&[
        (1, DataLabel::Internal, LessonState::Accepted),
        (2, DataLabel::Internal, LessonState::Accepted),
        (3, DataLabel::Internal, LessonState::Accepted),
        (4, DataLabel::Internal, LessonState::Accepted),
    ]);
    let embedder = Arc::new(fake());
    let v = service(store.clone(), embedder.clone());
    v.catch_up().await.unwrap();
    let all = lessons();
    let q = "how long until they pay what they owe";
    assert!(select::lessons_for(q, &all).is_empty(), "no word is shared");
    let asked = v.question(q).await;
    assert_eq!(ids(v.ranked(q, &all, asked.as_deref()).await), [1], "meaning alone finds it; the unlike stay out");
    // Words and meaning together: "Kaveri" is in three lessons; the one about paying comes first.
    let q = "does Kaveri pay late";
    let asked = v.question(q).await;
    let both = ids(v.ranked(q, &all, asked.as_deref()).await);
    assert_eq!(both[0], 1, "{both:?}");
    assert_eq!(
        embedder.calls.lock().unwrap().iter().filter(|c| c.1 == EmbedFor::Question).count(),
        2,
        "one call per question"
    );
}

#[tokio::test]
async fn without_a_vector_or_when_the_call_or_the_read_fails_the_ranking_is_the_lexical_one() {
    let all = lessons();
    let q = "Kaveri renewal call";
    let lexical = ids(select::lessons_for(q, &all));
    assert!(!lexical.is_empty());
    // No vectors kept at all: exactly the words' order.
    let empty = stored(&[]);
    let v = service(empty.clone(), Arc::new(fake()));
    let asked = v.question(q).await;
    assert!(asked.is_some());
    assert_eq!(ids(v.ranked(q, &all, asked.as_deref()).await), lexical);
    // The question's call fails: no vector, the words alone.
    let failing = service(empty, Arc::new(Fake { fail: Some(EmbedError::Status(500)), ..fake() }));
    assert_eq!(failing.question(q).await, None);
    assert_eq!(ids(failing.ranked(q, &all, None).await), lexical);
    // The vectors cannot be read: the words alone.
    let broken = Arc::new(Store { broken: true, ..Store::default() });
    let b = service(broken, Arc::new(fake()));
    assert_eq!(ids(b.ranked(q, &all, asked.as_deref()).await), lexical);
}

#[tokio::test]
async fn a_lesson_without_a_vector_still_ranks_by_its_words_beside_those_with_one() {
    // Lesson 3 (the renewal) has no vector: the question names it by its words, and it loads.
    let store =
        stored(&[(1, DataLabel::Internal, LessonState::Accepted), (2, DataLabel::Internal, LessonState::Accepted)]);
    let v = service(store, Arc::new(fake()));
    v.catch_up().await.unwrap();
    let all = lessons();
    let q = "when is the Kaveri renewal";
    let asked = v.question(q).await;
    let found = ids(v.ranked(q, &all, asked.as_deref()).await);
    assert_eq!(found.first(), Some(&3), "{found:?}");
    assert!(!found.contains(&4), "{found:?}");
}
