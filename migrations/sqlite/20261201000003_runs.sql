-- Runs: a thread holds messages; a run is one agent working on one message, for one person or for
-- nobody. Its steps and the events clients follow carry ids only. JSON columns are JSON text.

-- A person's manager, set by an admin; who's who names them.
ALTER TABLE people ADD COLUMN manager_id INTEGER REFERENCES people (id);

CREATE TABLE threads (
    id          INTEGER PRIMARY KEY,
    agent_id    INTEGER NOT NULL REFERENCES agents (id),
    person_id   INTEGER REFERENCES people (id),
    title       TEXT    NOT NULL,
    created_at  TEXT    NOT NULL
);
-- A person's threads, newest first.
CREATE INDEX threads_person ON threads (person_id, id);

-- Exactly one author: a person or an agent.
CREATE TABLE messages (
    id              INTEGER PRIMARY KEY,
    thread_id       INTEGER NOT NULL REFERENCES threads (id),
    author_person_id INTEGER REFERENCES people (id),
    author_agent_id INTEGER REFERENCES agents (id),
    text            TEXT    NOT NULL,
    at              TEXT    NOT NULL,
    CHECK ((author_person_id IS NULL) <> (author_agent_id IS NULL))
);
CREATE INDEX messages_thread ON messages (thread_id, id);

CREATE TABLE runs (
    id              INTEGER PRIMARY KEY,
    thread_id       INTEGER NOT NULL REFERENCES threads (id),
    message_id      INTEGER NOT NULL REFERENCES messages (id),
    agent_id        INTEGER NOT NULL REFERENCES agents (id),
    for_person_id   INTEGER REFERENCES people (id),
    kind            TEXT    NOT NULL CHECK (kind IN ('ask', 'schedule', 'eval', 'consult')),
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
    finished_at     TEXT
);
CREATE INDEX runs_thread ON runs (thread_id, id);
-- Runs a stopped server left running, found without reading finished ones.
CREATE INDEX runs_running ON runs (created_at) WHERE state = 'running';

CREATE TABLE run_steps (
    run_id      INTEGER NOT NULL REFERENCES runs (id),
    n           INTEGER NOT NULL,
    kind        TEXT    NOT NULL,
    line        TEXT    NOT NULL,
    words       TEXT    NOT NULL,
    refs        TEXT    NOT NULL,
    detail      TEXT,
    at          TEXT    NOT NULL,
    PRIMARY KEY (run_id, n)
);

-- The id is the follow cursor: it only grows, and events are never deleted.
CREATE TABLE events (
    id          INTEGER PRIMARY KEY,
    name        TEXT    NOT NULL,
    run_id      INTEGER NOT NULL REFERENCES runs (id),
    thread_id   INTEGER NOT NULL REFERENCES threads (id),
    refs        TEXT    NOT NULL,
    at          TEXT    NOT NULL
);

-- Who's-who toolsets: their reference lists join the slice.
ALTER TABLE connectors ADD COLUMN whos_who INTEGER NOT NULL DEFAULT 0;

-- The kept entries of the latest fetch of each list: structured values only.
CREATE TABLE list_entries (
    id              INTEGER PRIMARY KEY,
    connector_id    INTEGER NOT NULL REFERENCES connectors (id),
    list            TEXT    NOT NULL,
    entry_id        TEXT,
    kept_values     TEXT    NOT NULL,
    names           TEXT    NOT NULL,
    fetched_at      TEXT    NOT NULL
);
CREATE INDEX list_entries_list ON list_entries (connector_id, list);

-- What each entry names (its names and its own id), lowercased, so that finding the entries naming
-- one person is an indexed lookup however many people and entries there are.
CREATE TABLE list_entry_keys (
    key         TEXT    NOT NULL,
    list_entry_id INTEGER NOT NULL REFERENCES list_entries (id) ON DELETE CASCADE,
    PRIMARY KEY (key, list_entry_id)
);
CREATE INDEX list_entry_keys_entry ON list_entry_keys (list_entry_id);

-- A list fetch claimed once across servers per connector and slot (a date, or a refetch's id).
CREATE TABLE list_fetch_claims (
    connector_id    INTEGER NOT NULL REFERENCES connectors (id),
    slot            TEXT    NOT NULL,
    claimed_at      TEXT    NOT NULL,
    PRIMARY KEY (connector_id, slot)
);

-- A team's current members by name, for who's who, read in bounded pages.
CREATE INDEX people_main_team ON people (main_team_id, name);
