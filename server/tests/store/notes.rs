//! NoteStore: a person's private notes, kept and read back newest first, each person's apart.

use crate::backends::{at, on_both, org, Db};

on_both! {
    notes_are_kept_per_person_newest_first: sqlite_notes_are_kept_per_person_newest_first,
        postgres_notes_are_kept_per_person_newest_first;
}

async fn notes_are_kept_per_person_newest_first(db: Db) {
    let o = org(&db).await;
    assert!(db.notes_of(o.alice.id).await.unwrap().is_empty());
    let first = db.add_note(o.alice.id, "Dana reads mail at dana@litware.example", at(1)).await.unwrap();
    let second = db.add_note(o.alice.id, "Kaveri's CFO prefers calls", at(2)).await.unwrap();
    db.add_note(o.bob.id, "Bob's own", at(3)).await.unwrap();
    assert_eq!(
        (first.person, first.text.as_str(), first.created_at),
        (o.alice.id, "Dana reads mail at dana@litware.example", at(1))
    );
    assert_eq!(db.notes_of(o.alice.id).await.unwrap(), [second, first]);
    assert_eq!(db.notes_of(o.bob.id).await.unwrap().len(), 1);
}
