-- The Inbox also holds tasks an agent would hand on to a bot. SQLite changes a CHECK only by
-- copying the table; every row is kept as it was.
CREATE TABLE inbox_actions_next (
    id              INTEGER PRIMARY KEY,
    person_id       INTEGER NOT NULL REFERENCES people (id),
    run_id          INTEGER NOT NULL REFERENCES runs (id),
    kind            TEXT    NOT NULL CHECK (kind IN ('write', 'send', 'task')),
    connector_id    INTEGER REFERENCES connectors (id),
    tool            TEXT    NOT NULL,
    arguments       TEXT    NOT NULL,
    line            TEXT    NOT NULL,
    state           TEXT    NOT NULL CHECK (state IN ('waiting', 'approved', 'declined', 'done', 'failed')),
    outcome         TEXT,
    created_at      TEXT    NOT NULL,
    decided_at      TEXT
);
INSERT INTO inbox_actions_next
    (id, person_id, run_id, kind, connector_id, tool, arguments, line, state, outcome, created_at, decided_at)
SELECT id, person_id, run_id, kind, connector_id, tool, arguments, line, state, outcome, created_at, decided_at
FROM inbox_actions;
DROP TABLE inbox_actions;
ALTER TABLE inbox_actions_next RENAME TO inbox_actions;
CREATE INDEX inbox_actions_person ON inbox_actions (person_id, id);
