-- A person's private notes: kept for their own runs, which load them as data. Only they read them.
CREATE TABLE private_notes (
    id          INTEGER PRIMARY KEY,
    person_id   INTEGER NOT NULL REFERENCES people (id),
    text        TEXT NOT NULL,
    created_at  TEXT NOT NULL
);
CREATE INDEX private_notes_person ON private_notes (person_id, id);
