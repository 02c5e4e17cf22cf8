//! Erasing a third party, tried against an in-memory store of memory's rows: who may, what is read
//! as the value, what goes (every spelling, every kind, a lesson's replaced versions) and what the
//! audit keeps. No database; the store contract suite proves the real stores do the same.

use super::*;
use crate::clock::ManualClock;
use crate::erasure::{ErasedCounts, ErasureStore};
use crate::kernel::StoreError;
use crate::org::fake::person;
use async_trait::async_trait;
use std::hash::{Hash, Hasher};
use std::sync::Mutex;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Card,
    Forgotten,
    Snapshot,
    Lesson,
    Entry,
    Claim,
    Answer,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Row {
    kind: Kind,
    id: i64,
    texts: Vec<String>,
    /// For a lesson: the version it replaced.
    supersedes: Option<i64>,
}

fn row(kind: Kind, id: i64, texts: &[&str]) -> Row {
    Row { kind, id, texts: texts.iter().map(|t| t.to_string()).collect(), supersedes: None }
}

fn lesson(id: i64, text: &str, supersedes: Option<i64>) -> Row {
    Row { supersedes, ..row(Kind::Lesson, id, &[text]) }
}

/// Memory's rows, the directory's emails, and what was written and asked.
#[derive(Default)]
struct Memory {
    rows: Mutex<Vec<Row>>,
    people: Vec<(String, String)>,
    /// (actor, action, subject, detail)
    audit: Mutex<Vec<(Actor, String, String, String)>>,
    hashed: Mutex<Vec<String>>,
}

impl Memory {
    fn rows(&self) -> Vec<Row> {
        self.rows.lock().expect("the rows").clone()
    }
    fn audit(&self) -> Vec<(Actor, String, String, String)> {
        self.audit.lock().expect("the audit").clone()
    }
}

#[async_trait]
impl ErasureStore for Memory {
    /// A keyed hash of the fake's own: a fixed key before the text.
    async fn keyed_hash(&self, text: &str) -> Result<String, StoreError> {
        self.hashed.lock().expect("the hashes").push(text.to_string());
        let mut h = std::collections::hash_map::DefaultHasher::new();
        ("the fake's key", text).hash(&mut h);
        Ok(format!("{:016x}", h.finish()))
    }

    /// As the real stores promise: the directory first, then every row a text of which names the
    /// value, a lesson with the versions it replaced, and one audit row.
    async fn erase_naming(
        &self,
        naming: &Naming,
        record: &ErasureRecord,
        actor: Actor,
    ) -> Result<ErasureOutcome, StoreError> {
        if let Some((name, _)) = self.people.iter().find(|(_, email)| naming.names(email)) {
            return Ok(ErasureOutcome::InDirectory { name: name.clone() });
        }
        let mut rows = self.rows.lock().expect("the rows");
        let mut gone: Vec<(Kind, i64)> = rows
            .iter()
            .filter(|r| naming.names_any(r.texts.iter().map(|t| Some(t.as_str()))))
            .map(|r| (r.kind, r.id))
            .collect();
        let mut i = 0;
        while i < gone.len() {
            if gone[i].0 == Kind::Lesson {
                let replaced =
                    rows.iter().find(|r| r.kind == Kind::Lesson && r.id == gone[i].1).and_then(|r| r.supersedes);
                if let Some(older) = replaced.filter(|o| !gone.contains(&(Kind::Lesson, *o))) {
                    gone.push((Kind::Lesson, older));
                }
            }
            i += 1;
        }
        rows.retain(|r| !gone.contains(&(r.kind, r.id)));
        for r in rows.iter_mut().filter(|r| r.kind == Kind::Lesson) {
            if r.supersedes.is_some_and(|s| gone.contains(&(Kind::Lesson, s))) {
                r.supersedes = None;
            }
        }
        let n = |k: Kind| gone.iter().filter(|(kind, _)| *kind == k).count() as u32;
        let counts = ErasedCounts {
            cards: n(Kind::Card),
            snapshots: n(Kind::Snapshot),
            lessons: n(Kind::Lesson),
            whos_who: n(Kind::Entry),
            forgotten: n(Kind::Forgotten),
            fetch_claims: n(Kind::Claim),
            saved_answers: n(Kind::Answer),
        };
        let entry = (actor, ErasureRecord::ACTION.to_string(), record.subject(), record.detail(&counts));
        self.audit.lock().expect("the audit").push(entry);
        Ok(ErasureOutcome::Erased(counts))
    }
}

/// Alice's and Bob's memory with Dana Brooks (a customer at Litware) in it, spelled every way,
/// beside rows about someone else.
fn memory() -> Memory {
    let rows = vec![
        row(Kind::Card, 1, &["C-77", r#"[{"name":"email","value":"Dana.Brooks+q3@Litware.example"}]"#]),
        row(Kind::Card, 2, &["L-1042", r#"[{"name":"phone","value":"+1 (415) 555-0142"}]"#]),
        row(Kind::Card, 3, &["L-1043", r#"[{"name":"email","value":"sam@litware.example"}]"#]),
        row(Kind::Forgotten, 1, &["dana.brooks@litware.example"]),
        row(Kind::Snapshot, 1, &[r#"{"owner":"mailto:dana.brooks@litware.example"}"#, "my follow-ups", "[]"]),
        row(Kind::Snapshot, 2, &[r#"{"owner":"sam@litware.example"}"#, "my follow-ups", "[]"]),
        lesson(10, "Dana's direct line is 415.555.0142", None),
        lesson(11, "Dana moved to a new line", Some(10)),
        lesson(20, "Call Dana's office", None),
        lesson(21, "Write to Dana Brooks <dana.brooks@litware.example>", Some(20)),
        lesson(30, "Sam answers before noon", None),
        row(Kind::Entry, 1, &["T-1", r#"{"owner":"DANA.BROOKS@LITWARE.EXAMPLE"}"#, r#"["Dana Brooks"]"#]),
        // A refetch claimed for an id a run met: the store reads the id out of the claim's slot.
        row(Kind::Claim, 1, &["(415) 555 0142"]),
        row(Kind::Answer, 1, &[r#"{"id":10,"text":"Dana's direct line is 415.555.0142"}"#]),
    ];
    Memory {
        rows: Mutex::new(rows),
        people: vec![("Alice Chen".into(), "alice@acme.example".into())],
        ..Default::default()
    }
}

fn erasures(memory: Memory) -> (Erasures, Arc<Memory>) {
    let memory = Arc::new(memory);
    (Erasures::new(memory.clone(), Arc::new(ManualClock::new(chrono::Utc::now()))), memory)
}

fn admin() -> Person {
    person(1, "Ada", true, None)
}

#[tokio::test]
async fn every_spelling_goes_from_every_kind_with_a_lessons_replaced_versions_and_nothing_else() {
    let (erasures, memory) = erasures(memory());
    let email = erasures.erase(ErasureBy::Person(&admin()), "mailto:Dana.Brooks@Litware.example").await.unwrap();
    assert_eq!(email.kind, ValueKind::Email);
    assert_eq!(
        email.counts,
        ErasedCounts { cards: 1, snapshots: 1, lessons: 2, whos_who: 1, forgotten: 1, ..Default::default() },
        "the card, its forgotten mark, the snapshot, lesson 21 with the version it replaced, the entry"
    );
    let phone = erasures.erase(ErasureBy::Person(&admin()), "+1 415-555-0142").await.unwrap();
    assert_eq!(
        phone.counts,
        ErasedCounts { cards: 1, lessons: 1, fetch_claims: 1, saved_answers: 1, ..Default::default() },
        "the card, lesson 10 (not 11, which replaced it), the claim and the saved answer"
    );

    let left = memory.rows();
    let ids: Vec<(Kind, i64)> = left.iter().map(|r| (r.kind, r.id)).collect();
    assert_eq!(ids, vec![(Kind::Card, 3), (Kind::Snapshot, 2), (Kind::Lesson, 11), (Kind::Lesson, 30)]);
    assert_eq!(left[2].supersedes, None, "the later version stays, without the link to the one erased");
}

#[tokio::test]
async fn the_audit_keeps_the_keyed_hash_and_the_counts_never_the_value() {
    let (erasures, memory) = erasures(memory());
    erasures.erase(ErasureBy::Person(&admin()), "Dana.Brooks+q3@Litware.example").await.unwrap();
    erasures.erase(ErasureBy::HostOperator, "dana.brooks@litware.example").await.unwrap();

    let hashed = memory.hashed.lock().unwrap().clone();
    assert_eq!(hashed, vec!["email:dana.brooks@litware.example"; 2], "one value, one text hashed, however spelled");
    let audit = memory.audit();
    assert_eq!(audit.len(), 2);
    let (actor, action, subject, detail) = &audit[0];
    assert_eq!((actor.person, action.as_str()), (Some(admin().id), "third_party.erase"));
    assert!(subject.starts_with("hmac-sha256:") && subject.len() == "hmac-sha256:".len() + 16, "{subject}");
    assert_eq!(audit[1].2, *subject, "the same value, the same hash");
    assert_eq!(audit[1].0.person, None, "the host's operator");
    assert_eq!(
        detail,
        "email: 1 card, 1 list snapshot, 2 lessons, 1 who's-who entry, 1 forgotten record's mark, 0 who's-who \
         refetch claims, 0 saved API answers"
    );
    assert_eq!(
        audit[1].3,
        "email: 0 cards, 0 list snapshots, 0 lessons, 0 who's-who entries, 0 forgotten records' \
                            marks, 0 who's-who refetch claims, 0 saved API answers",
        "a second erasure finds nothing"
    );
    for (_, _, subject, detail) in &audit {
        for spelling in ["dana", "litware", "brooks"] {
            assert!(!subject.to_lowercase().contains(spelling) && !detail.to_lowercase().contains(spelling));
        }
    }
}

#[tokio::test]
async fn only_a_current_admin_erases_and_a_refusal_reads_and_changes_nothing() {
    let (erasures, memory) = erasures(memory());
    let before = memory.rows();
    let mut gone = admin();
    gone.left_at = Some(chrono::Utc::now());
    for who in [person(2, "Alice", false, None), gone] {
        let refused = erasures.erase(ErasureBy::Person(&who), "dana.brooks@litware.example").await.unwrap_err();
        assert_eq!(refused, ErasureError::NotAllowed(ADMIN_ONLY.into()));
    }
    // Refused before reading what was given: a bad value from a non-admin is still "not allowed".
    let refused = erasures.erase(ErasureBy::Person(&person(2, "Alice", false, None)), "nonsense").await.unwrap_err();
    assert_eq!(refused, ErasureError::NotAllowed(ADMIN_ONLY.into()));
    assert_eq!(memory.rows(), before);
    assert!(memory.audit().is_empty() && memory.hashed.lock().unwrap().is_empty());
}

#[tokio::test]
async fn what_is_not_one_email_or_phone_number_is_refused_in_plain_words_and_changes_nothing() {
    let (erasures, memory) = erasures(memory());
    let before = memory.rows();
    let refuse = |given: &'static str| {
        let erasures = erasures.clone();
        async move { erasures.erase(ErasureBy::Person(&admin()), given).await.unwrap_err() }
    };
    assert_eq!(
        refuse("").await,
        ErasureError::Invalid("Give the email address or phone number to erase. Nothing was changed.".into())
    );
    assert_eq!(
        refuse("Dana Brooks").await,
        ErasureError::Invalid(
            "That is neither an email address nor a phone number: give one such as dana@example.com or +1 415 555 \
             0142. Nothing was changed."
                .into()
        )
    );
    assert_eq!(
        refuse("dana.brooks@litware.example, +1 415 555 0142").await,
        ErasureError::Invalid(
            "That holds more than one email address or phone number: give one at a time. Nothing was changed.".into()
        )
    );
    assert_eq!(memory.rows(), before);
    assert!(memory.audit().is_empty() && memory.hashed.lock().unwrap().is_empty());
}

#[tokio::test]
async fn someone_in_the_directory_is_not_a_third_party() {
    let (erasures, memory) = erasures(memory());
    let before = memory.rows();
    let refused = erasures.erase(ErasureBy::Person(&admin()), "Alice <ALICE+news@acme.example>").await.unwrap_err();
    assert_eq!(
        refused,
        ErasureError::Invalid(
            "That is the email address of Alice Chen, in the company's directory: only a third party's address or \
             number is erased here. Nothing was changed."
                .into()
        )
    );
    assert_eq!(memory.rows(), before);
    assert!(memory.audit().is_empty());
}

#[test]
fn the_page_shows_back_what_will_be_erased_before_anything_is() {
    assert_eq!(
        shown_back(" Dana.Brooks+q3@Litware.example").unwrap(),
        "Erases every spelling of the email address dana.brooks@litware.example."
    );
    assert_eq!(
        shown_back("+1 (415) 555-0142").unwrap(),
        "Erases every spelling of the phone number ending 4155550142."
    );
    assert_eq!(shown_back("L-1042").unwrap_err(), NotAValue::Neither);
}
