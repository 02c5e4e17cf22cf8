//! LessonVectorStore: a lesson's vector kept with the model that made it and read back exactly;
//! each lesson claimed to be embedded by one caller of many, claimed again once the claim is stale
//! or the model changed; only lessons in use or waiting, and of a label the embedder is cleared
//! for; a forgotten lesson's vector goes with it.

use crate::backends::{at, on_both, org, Db};
use crate::lessons::new;
use engine::kernel::DataLabel;
use engine::lessons::LessonScope;
use engine::lessons::LessonState;
use engine::org::PersonId;
use engine::store::Actor;

const MODEL: &str = "openai/text-embedding-3-small";
const INTERNAL: &[DataLabel] = &[DataLabel::Public, DataLabel::Internal];

on_both! {
    a_claimed_lessons_vector_reads_back_exactly_for_its_model_alone:
        sqlite_a_claimed_lessons_vector_reads_back_exactly_for_its_model_alone,
        postgres_a_claimed_lessons_vector_reads_back_exactly_for_its_model_alone;
    only_open_lessons_of_a_cleared_label_are_claimed_and_a_stale_claim_is_taken_again:
        sqlite_only_open_lessons_of_a_cleared_label_are_claimed_and_a_stale_claim_is_taken_again,
        postgres_only_open_lessons_of_a_cleared_label_are_claimed_and_a_stale_claim_is_taken_again;
    racing_claimers_each_get_a_lesson_once: sqlite_racing_claimers_each_get_a_lesson_once,
        postgres_racing_claimers_each_get_a_lesson_once;
    a_forgotten_lessons_vector_goes_with_it: sqlite_a_forgotten_lessons_vector_goes_with_it,
        postgres_a_forgotten_lessons_vector_goes_with_it;
}

async fn kept(db: &Db, p: PersonId, text: &str, state: LessonState, label: DataLabel) -> i64 {
    let mut l = new(p, LessonScope::Personal, text, state, 1);
    l.label = label;
    db.add_lesson(&l, Actor { person: None, at: at(1) }).await.unwrap().id
}

async fn a_claimed_lessons_vector_reads_back_exactly_for_its_model_alone(db: Db) {
    let p = org(&db).await.alice.id;
    let a = kept(&db, p, "Kaveri Foods pays in 45 days", LessonState::Accepted, DataLabel::Internal).await;
    let b = kept(&db, p, "Priya prefers calls", LessonState::Accepted, DataLabel::Internal).await;
    let claimed = db.claim_lessons_to_embed(MODEL, INTERNAL, 32, at(2), at(-10)).await.unwrap();
    assert_eq!(claimed, [(b, "Priya prefers calls".to_string()), (a, "Kaveri Foods pays in 45 days".to_string())]);
    // Numbers no text form keeps exactly: the bytes are the floats.
    let v = vec![0.1f32, -0.333_333_34, 1e-7, 0.942_809];
    assert!(db.keep_lesson_vector(a, MODEL, &v, at(3)).await.unwrap());
    let read = db.lesson_vectors(&[a, b, 999], MODEL).await.unwrap();
    assert_eq!(read.len(), 1, "a claim with no vector yet, and no lesson at all, read as none");
    assert_eq!(read[&a], v);
    assert!(db.lesson_vectors(&[a], "ollama/nomic-embed-text").await.unwrap().is_empty(), "another model's space");
    assert!(db.lesson_vectors(&[], MODEL).await.unwrap().is_empty());
    // A model changed: the lesson is claimed again for it, and the old vector is no longer read.
    let again = db.claim_lessons_to_embed("ollama/nomic-embed-text", INTERNAL, 32, at(30), at(20)).await.unwrap();
    assert_eq!(again.iter().map(|c| c.0).collect::<Vec<_>>(), [b, a]);
    assert!(db.lesson_vectors(&[a], MODEL).await.unwrap().is_empty());
    assert!(!db.keep_lesson_vector(a, MODEL, &v, at(31)).await.unwrap(), "a late vector of the old model is not kept");
    assert!(db.keep_lesson_vector(a, "ollama/nomic-embed-text", &[1.0, 0.0], at(31)).await.unwrap());
    assert_eq!(db.lesson_vectors(&[a], "ollama/nomic-embed-text").await.unwrap()[&a], vec![1.0, 0.0]);
}

async fn only_open_lessons_of_a_cleared_label_are_claimed_and_a_stale_claim_is_taken_again(db: Db) {
    let p = org(&db).await.alice.id;
    let accepted = kept(&db, p, "accepted", LessonState::Accepted, DataLabel::Internal).await;
    let waiting = kept(&db, p, "waiting", LessonState::Waiting, DataLabel::Public).await;
    let _declined = kept(&db, p, "declined", LessonState::Declined, DataLabel::Internal).await;
    let confidential = kept(&db, p, "confidential", LessonState::Accepted, DataLabel::Confidential).await;
    let ids = |c: Vec<(i64, String)>| c.into_iter().map(|(id, _)| id).collect::<Vec<_>>();
    assert_eq!(
        ids(db.claim_lessons_to_embed(MODEL, INTERNAL, 1, at(2), at(-10)).await.unwrap()),
        [waiting],
        "newest first, at most the limit"
    );
    assert_eq!(ids(db.claim_lessons_to_embed(MODEL, INTERNAL, 32, at(3), at(-10)).await.unwrap()), [accepted]);
    assert!(
        db.claim_lessons_to_embed(MODEL, INTERNAL, 32, at(4), at(-10)).await.unwrap().is_empty(),
        "claimed, not taken twice"
    );
    // Ten minutes on, the claims that made nothing are stale: they are taken again.
    assert_eq!(ids(db.claim_lessons_to_embed(MODEL, INTERNAL, 32, at(14), at(4)).await.unwrap()), [waiting, accepted]);
    let all = [DataLabel::Public, DataLabel::Internal, DataLabel::Confidential, DataLabel::Personal];
    assert_eq!(ids(db.claim_lessons_to_embed(MODEL, &all, 32, at(15), at(4)).await.unwrap()), [confidential]);
    assert!(db.keep_lesson_vector(accepted, MODEL, &[1.0], at(16)).await.unwrap());
    assert!(
        !ids(db.claim_lessons_to_embed(MODEL, &all, 32, at(60), at(50)).await.unwrap()).contains(&accepted),
        "a lesson with a vector of the model is never claimed again"
    );
}

async fn racing_claimers_each_get_a_lesson_once(db: Db) {
    let p = org(&db).await.alice.id;
    let mut all = Vec::new();
    for i in 0..20 {
        all.push(kept(&db, p, &format!("lesson {i}"), LessonState::Accepted, DataLabel::Internal).await);
    }
    let claim = |db: Db| async move { db.claim_lessons_to_embed(MODEL, INTERNAL, 8, at(2), at(-10)).await.unwrap() };
    let (a, b, c, d) = tokio::join!(claim(db.clone()), claim(db.clone()), claim(db.clone()), claim(db.clone()));
    // A claimer that lost a lesson to another takes fewer; what is left goes to the next.
    let rest = db.claim_lessons_to_embed(MODEL, INTERNAL, 32, at(3), at(-10)).await.unwrap();
    let mut got: Vec<i64> = [a, b, c, d, rest].into_iter().flatten().map(|(id, _)| id).collect();
    got.sort();
    let before = got.len();
    got.dedup();
    assert_eq!(got.len(), before, "no lesson went to two claimers");
    assert_eq!(got.len(), 20, "every lesson went to one: {got:?}");
}

async fn a_forgotten_lessons_vector_goes_with_it(db: Db) {
    let p = org(&db).await.alice.id;
    let a = kept(&db, p, "soon forgotten", LessonState::Accepted, DataLabel::Internal).await;
    db.claim_lessons_to_embed(MODEL, INTERNAL, 32, at(2), at(-10)).await.unwrap();
    assert!(db.keep_lesson_vector(a, MODEL, &[0.6, 0.8], at(3)).await.unwrap());
    assert_eq!(db.forget_lesson(a, Actor { person: None, at: at(4) }).await.unwrap(), 1);
    assert!(db.lesson_vectors(&[a], MODEL).await.unwrap().is_empty());
    assert!(!db.keep_lesson_vector(a, MODEL, &[0.6, 0.8], at(5)).await.unwrap(), "nothing to keep it for");
}
