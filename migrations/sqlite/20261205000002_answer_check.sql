-- The check after an answer: its state on the run, what each check found per kind of fact (for
-- the notice that a limit may be too long), and events that name a message, a connector or a
-- state instead of a run.
ALTER TABLE runs ADD COLUMN check_state TEXT;
ALTER TABLE runs ADD COLUMN check_reason TEXT;
-- The run's role or team shows only checked answers: the answer waits for its check.
ALTER TABLE runs ADD COLUMN checked_only INTEGER NOT NULL DEFAULT 0;

-- One row per record read by a check and kind of fact compared; never deleted.
CREATE TABLE fact_checks (
    id            INTEGER PRIMARY KEY,
    connector_id  INTEGER NOT NULL REFERENCES connectors (id),
    fact_kind     TEXT    NOT NULL,
    changed       INTEGER NOT NULL,
    run_id        INTEGER NOT NULL REFERENCES runs (id),
    at            TEXT    NOT NULL
);
CREATE INDEX fact_checks_latest ON fact_checks (connector_id, fact_kind, id);

-- Admins are told once per connector and kind of fact that its limit may be too long.
CREATE TABLE limit_notices (
    connector_id  INTEGER NOT NULL REFERENCES connectors (id),
    fact_kind     TEXT    NOT NULL,
    changed       INTEGER NOT NULL,
    of_checks     INTEGER NOT NULL,
    at            TEXT    NOT NULL,
    PRIMARY KEY (connector_id, fact_kind)
);

CREATE TABLE events_new (
    id            INTEGER PRIMARY KEY,
    name          TEXT    NOT NULL,
    run_id        INTEGER REFERENCES runs (id),
    thread_id     INTEGER REFERENCES threads (id),
    message_id    INTEGER REFERENCES messages (id),
    connector_id  INTEGER REFERENCES connectors (id),
    state         TEXT,
    refs          TEXT    NOT NULL,
    at            TEXT    NOT NULL
);
INSERT INTO events_new (id, name, run_id, thread_id, refs, at) SELECT id, name, run_id, thread_id, refs, at FROM events;
DROP TABLE events;
ALTER TABLE events_new RENAME TO events;

-- Roles ("role:<slug>") and teams ("team:<id>") whose people see only checked answers.
CREATE TABLE checked_only (
    scope   TEXT    PRIMARY KEY,
    set_at  TEXT    NOT NULL
);
