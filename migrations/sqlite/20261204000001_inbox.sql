-- The Inbox: what a run would do that acts waits for the person it acts for, who approves or
-- declines it. Rows are never deleted: a decided action keeps its state, outcome and time.
CREATE TABLE inbox_actions (
    id              INTEGER PRIMARY KEY,
    person_id       INTEGER NOT NULL REFERENCES people (id),
    run_id          INTEGER NOT NULL REFERENCES runs (id),
    kind            TEXT    NOT NULL CHECK (kind IN ('write', 'send')),
    connector_id    INTEGER REFERENCES connectors (id),
    tool            TEXT    NOT NULL,
    arguments       TEXT    NOT NULL,
    line            TEXT    NOT NULL,
    state           TEXT    NOT NULL CHECK (state IN ('waiting', 'approved', 'declined', 'done', 'failed')),
    outcome         TEXT,
    created_at      TEXT    NOT NULL,
    decided_at      TEXT
);
-- A person's Inbox, newest first.
CREATE INDEX inbox_actions_person ON inbox_actions (person_id, id);
