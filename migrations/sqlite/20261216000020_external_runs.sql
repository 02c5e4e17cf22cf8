-- Runs of kind 'external': an outside agent uses one company agent's memory and gate. SQLite
-- changes a CHECK only by making the table again, and other tables refer to runs, so the check
-- of those references waits for the end of this migration's transaction: the rows are kept
-- aside, the table is made again under its own name, and every row goes back with its id, so
-- every reference to a run holds again before it commits (or nothing changes).
PRAGMA defer_foreign_keys = ON;
CREATE TABLE runs_kept AS SELECT * FROM runs;
DROP TABLE runs;
CREATE TABLE runs (
    id              INTEGER PRIMARY KEY,
    thread_id       INTEGER NOT NULL REFERENCES threads (id),
    message_id      INTEGER NOT NULL REFERENCES messages (id),
    agent_id        INTEGER NOT NULL REFERENCES agents (id),
    for_person_id   INTEGER REFERENCES people (id),
    kind            TEXT    NOT NULL CHECK (kind IN ('ask', 'schedule', 'eval', 'consult', 'external')),
    state           TEXT    NOT NULL CHECK (state IN ('running', 'answered', 'failed', 'retried')),
    unwatched       INTEGER NOT NULL DEFAULT 0,
    data_label      TEXT    NOT NULL CHECK (data_label IN ('public', 'internal', 'confidential', 'personal')),
    sources         TEXT    NOT NULL DEFAULT '[]',
    review_mode     INTEGER NOT NULL DEFAULT 0,
    model           TEXT,
    answer          TEXT,
    failure         TEXT,
    retry_of        INTEGER REFERENCES runs (id),
    -- The run that took this one's place when it was retried.
    retried_by      INTEGER REFERENCES runs (id),
    retried_at      TEXT,
    created_at      TEXT    NOT NULL,
    finished_at     TEXT,
    check_state     TEXT,
    check_reason    TEXT,
    -- The run's role or team shows only checked answers: the answer waits for its check.
    checked_only    INTEGER NOT NULL DEFAULT 0
);
INSERT INTO runs
    (id, thread_id, message_id, agent_id, for_person_id, kind, state, unwatched, data_label, sources,
     review_mode, model, answer, failure, retry_of, retried_by, retried_at, created_at, finished_at,
     check_state, check_reason, checked_only)
SELECT id, thread_id, message_id, agent_id, for_person_id, kind, state, unwatched, data_label, sources,
       review_mode, model, answer, failure, retry_of, retried_by, retried_at, created_at, finished_at,
       check_state, check_reason, checked_only
FROM runs_kept ORDER BY id;
DROP TABLE runs_kept;
CREATE INDEX runs_thread ON runs (thread_id, id);
-- Runs a stopped server left running, found without reading finished ones.
CREATE INDEX runs_running ON runs (created_at) WHERE state = 'running';
CREATE INDEX runs_created ON runs (created_at);
