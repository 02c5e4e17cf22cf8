-- The bots' backlog, their finished wakes, and what they have learned from them.

-- A backlog task (seed 000 calls it a card). `improve` tasks carry a bot's proposed change to itself.
CREATE TABLE tasks (
    id              INTEGER PRIMARY KEY,
    kind            TEXT    NOT NULL CHECK (kind IN ('work', 'improve')),
    title           TEXT    NOT NULL,
    body            TEXT    NOT NULL DEFAULT '',
    status          TEXT    NOT NULL,
    author          TEXT    NOT NULL,
    assignee        TEXT,
    owner_id        INTEGER REFERENCES people (id),
    -- For improve tasks: the agent it would change, the file, the diff, why, and the text it was made against.
    agent           TEXT,
    target_path     TEXT,
    diff            TEXT,
    rationale       TEXT,
    evidence        TEXT,
    base_text       TEXT,
    memory_id       INTEGER,
    closed_reason   TEXT,
    closed_by       INTEGER REFERENCES people (id),
    created_at      TEXT    NOT NULL,
    updated_at      TEXT    NOT NULL
);
CREATE INDEX tasks_agent ON tasks (agent, kind);

CREATE TABLE task_status_log (
    id          INTEGER PRIMARY KEY,
    task_id     INTEGER NOT NULL REFERENCES tasks (id),
    status      TEXT    NOT NULL,
    note        TEXT    NOT NULL DEFAULT '',
    by_who      TEXT    NOT NULL,
    at          TEXT    NOT NULL
);
CREATE INDEX task_status_log_task ON task_status_log (task_id, at);

CREATE TABLE wakeups (
    id          INTEGER PRIMARY KEY,
    agent       TEXT    NOT NULL,
    task_id     INTEGER REFERENCES tasks (id),
    reason      TEXT    NOT NULL,
    state       TEXT    NOT NULL CHECK (state IN ('open', 'closed')),
    run         TEXT,
    opened_at   TEXT    NOT NULL,
    closed_at   TEXT
);
CREATE INDEX wakeups_agent ON wakeups (agent, state);

-- One row per finished wake. A run is recorded once.
CREATE TABLE org_agent_episodes (
    id          INTEGER PRIMARY KEY,
    agent       TEXT    NOT NULL,
    run         TEXT    NOT NULL,
    trigger     TEXT    NOT NULL,
    task_id     INTEGER REFERENCES tasks (id),
    outcome     TEXT    NOT NULL CHECK (outcome IN ('done', 'blocked', 'request_changes', 'no_report', 'error')),
    corrected   INTEGER NOT NULL DEFAULT 0,
    turns       INTEGER,
    cost_usd    REAL,
    duration_s  REAL,
    summary     TEXT    NOT NULL,
    log_path    TEXT,
    transcript_path TEXT,
    created_at  TEXT    NOT NULL,
    UNIQUE (agent, run)
);
CREATE INDEX org_agent_episodes_agent ON org_agent_episodes (agent, created_at);

-- First-person claims. Rows are closed (superseded or retired), never deleted.
CREATE TABLE org_agent_memory (
    id              INTEGER PRIMARY KEY,
    agent           TEXT    NOT NULL,
    kind            TEXT    NOT NULL CHECK (kind IN ('lesson', 'anti_pattern', 'preference', 'friction')),
    text            TEXT    NOT NULL,
    times_seen      INTEGER NOT NULL,
    first_seen      TEXT    NOT NULL,
    last_seen       TEXT    NOT NULL,
    state           TEXT    NOT NULL CHECK (state IN ('active', 'closed')),
    closed_at       TEXT,
    closed_reason   TEXT,
    closed_by       TEXT,
    superseded_by   INTEGER REFERENCES org_agent_memory (id),
    promoted_to_proposal INTEGER NOT NULL DEFAULT 0,
    proposal_task_id INTEGER REFERENCES tasks (id),
    created_at      TEXT    NOT NULL
);
CREATE INDEX org_agent_memory_agent ON org_agent_memory (agent, state);

CREATE TABLE org_agent_memory_evidence (
    memory_id   INTEGER NOT NULL REFERENCES org_agent_memory (id),
    episode_id  INTEGER NOT NULL REFERENCES org_agent_episodes (id),
    PRIMARY KEY (memory_id, episode_id)
);

-- Each reflect model call, for the daily cap across every bot.
CREATE TABLE reflect_calls (
    id      INTEGER PRIMARY KEY,
    agent   TEXT    NOT NULL,
    purpose TEXT    NOT NULL,
    at      TEXT    NOT NULL
);
CREATE INDEX reflect_calls_at ON reflect_calls (at);

-- A bot's own API token: it reads only that bot's rows and writes neither memory table.
CREATE TABLE agent_tokens (
    id              INTEGER PRIMARY KEY,
    agent           TEXT    NOT NULL,
    created_by      INTEGER NOT NULL REFERENCES people (id),
    name            TEXT    NOT NULL,
    secret_hash     TEXT    NOT NULL UNIQUE,
    created_at      TEXT    NOT NULL,
    last_used_at    TEXT,
    revoked_at      TEXT
);
