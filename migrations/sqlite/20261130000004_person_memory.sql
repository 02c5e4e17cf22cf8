-- Person memory: connectors, the shapes of what they return, cards (short copies of records) and
-- each person's use of them.

ALTER TABLE people ADD COLUMN time_zone TEXT;

CREATE TABLE connectors (
    id              INTEGER PRIMARY KEY,
    name            TEXT    NOT NULL UNIQUE,
    base_url        TEXT    NOT NULL,
    key_mode        TEXT    NOT NULL CHECK (key_mode IN ('company', 'acting_for', 'own_keys')),
    -- Never shown again after entry.
    company_key     TEXT,
    own_key_tools   TEXT    NOT NULL DEFAULT '[]',
    ticked          TEXT    NOT NULL DEFAULT '[]',
    label           TEXT    NOT NULL CHECK (label IN ('public', 'internal', 'confidential', 'personal')),
    admits_roles    TEXT    NOT NULL DEFAULT '[]',
    keep_cards      INTEGER NOT NULL DEFAULT 1,
    structured_soft_mins INTEGER NOT NULL,
    structured_hard_mins INTEGER NOT NULL,
    free_text_soft_mins  INTEGER NOT NULL,
    free_text_hard_mins  INTEGER NOT NULL,
    hourly_limit    INTEGER NOT NULL,
    killed          INTEGER NOT NULL DEFAULT 0,
    created_at      TEXT    NOT NULL,
    updated_at      TEXT    NOT NULL
);

CREATE TABLE person_keys (
    connector_id    INTEGER NOT NULL REFERENCES connectors (id),
    person_id       INTEGER NOT NULL REFERENCES people (id),
    secret          TEXT    NOT NULL,
    created_at      TEXT    NOT NULL,
    PRIMARY KEY (connector_id, person_id)
);

CREATE TABLE record_shapes (
    connector_id    INTEGER NOT NULL REFERENCES connectors (id),
    tool            TEXT    NOT NULL,
    kind            TEXT    NOT NULL,
    id_field        TEXT    NOT NULL,
    version_field   TEXT,
    fields          TEXT    NOT NULL,
    get_tool        TEXT    NOT NULL,
    -- A field and the values that make a record open work (an open deal, an escalated ticket).
    open_when       TEXT,
    confirmed       INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (connector_id, tool)
);

-- Every read of a source, for the hourly limit.
CREATE TABLE connector_calls (
    id              INTEGER PRIMARY KEY,
    connector_id    INTEGER NOT NULL REFERENCES connectors (id),
    purpose         TEXT    NOT NULL,
    at              TEXT    NOT NULL
);
CREATE INDEX connector_calls_at ON connector_calls (connector_id, at);

-- One card per record, source and key: never merged across connectors or key kinds.
CREATE TABLE cards (
    id              INTEGER PRIMARY KEY,
    connector_id    INTEGER NOT NULL REFERENCES connectors (id),
    tool            TEXT    NOT NULL,
    kind            TEXT    NOT NULL,
    record_id       TEXT    NOT NULL,
    version         TEXT,
    fields          TEXT    NOT NULL,
    read_with       TEXT    NOT NULL CHECK (read_with IN ('company', 'acting_for', 'own_key')),
    read_as         INTEGER REFERENCES people (id),
    label_when_read TEXT    NOT NULL,
    open_work       INTEGER NOT NULL DEFAULT 0,
    read_at         TEXT    NOT NULL
);
CREATE UNIQUE INDEX cards_identity ON cards (connector_id, kind, record_id, read_with, COALESCE(read_as, 0));

-- A person's use of a card: the hybrid summary (total weight, first use, the last few uses).
CREATE TABLE card_uses (
    person_id       INTEGER NOT NULL REFERENCES people (id),
    card_id         INTEGER NOT NULL REFERENCES cards (id) ON DELETE CASCADE,
    summary         TEXT    NOT NULL,
    pinned          INTEGER NOT NULL DEFAULT 0,
    last_use        TEXT    NOT NULL,
    PRIMARY KEY (person_id, card_id)
);

-- "Forget": not kept for that person again until this time, unless they pin it.
CREATE TABLE forgotten_records (
    person_id       INTEGER NOT NULL REFERENCES people (id),
    connector_id    INTEGER NOT NULL REFERENCES connectors (id),
    kind            TEXT    NOT NULL,
    record_id       TEXT    NOT NULL,
    until           TEXT    NOT NULL,
    PRIMARY KEY (person_id, connector_id, kind, record_id)
);

-- A role's "my work" queries: a ticked read tool with {me} for the person's email.
CREATE TABLE my_work_queries (
    id              INTEGER PRIMARY KEY,
    role_id         INTEGER NOT NULL REFERENCES roles (id),
    connector_id    INTEGER NOT NULL REFERENCES connectors (id),
    tool            TEXT    NOT NULL,
    arguments       TEXT    NOT NULL,
    label           TEXT    NOT NULL,
    created_at      TEXT    NOT NULL
);

-- Prepare my day, per person: off by default.
CREATE TABLE prepare_my_day (
    person_id       INTEGER PRIMARY KEY REFERENCES people (id),
    enabled         INTEGER NOT NULL DEFAULT 0,
    at_time         TEXT    NOT NULL DEFAULT '08:30',
    last_local_date TEXT
);

-- Daily jobs: the local date each last ran, so a restart does not run one twice.
CREATE TABLE job_runs (
    name            TEXT    PRIMARY KEY,
    last_local_date TEXT    NOT NULL
);

-- What a company agent may be given: the toolsets (connectors) it holds and the highest data label
-- its model is cleared for.
ALTER TABLE agents ADD COLUMN clearance TEXT NOT NULL DEFAULT 'internal'
    CHECK (clearance IN ('public', 'internal', 'confidential', 'personal'));

CREATE TABLE agent_toolsets (
    agent_id        INTEGER NOT NULL REFERENCES agents (id),
    connector_id    INTEGER NOT NULL REFERENCES connectors (id),
    PRIMARY KEY (agent_id, connector_id)
);
