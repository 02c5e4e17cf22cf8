-- Schedules and triggers: a company agent's standing instruction that runs unasked, and a URL with
-- its own secret that starts the same kind of run. Both act for nobody (runs of kind 'schedule').

-- One schedule an agent: daily or on weekdays at a time in the company's zone, or every so many
-- minutes. next_due_at is claimed once across servers by moving it on in one UPDATE.
CREATE TABLE agent_schedules (
    agent_id    INTEGER PRIMARY KEY REFERENCES agents (id),
    instruction TEXT    NOT NULL,
    kind        TEXT    NOT NULL CHECK (kind IN ('daily', 'weekdays', 'every')),
    -- 'HH:MM' for daily and weekdays, '<minutes>m' for every.
    at_value    TEXT    NOT NULL,
    next_due_at TEXT    NOT NULL,
    set_by      INTEGER REFERENCES people (id),
    set_at      TEXT    NOT NULL
);
-- The tick reads the due ones: one range.
CREATE INDEX agent_schedules_due ON agent_schedules (next_due_at);

-- One trigger an agent: only the hash of its secret, which is shown once.
CREATE TABLE agent_triggers (
    agent_id    INTEGER PRIMARY KEY REFERENCES agents (id),
    secret_hash TEXT    NOT NULL UNIQUE,
    made_by     INTEGER REFERENCES people (id),
    made_at     TEXT    NOT NULL
);

-- Each time a trigger fired, for its hourly limit; rows older than an hour are removed as it fires.
CREATE TABLE trigger_fires (
    id       INTEGER PRIMARY KEY,
    agent_id INTEGER NOT NULL REFERENCES agents (id),
    at       TEXT    NOT NULL
);
CREATE INDEX trigger_fires_agent_at ON trigger_fires (agent_id, at);

-- Agents their owner (or an admin) paused: neither their schedule nor their trigger fires.
CREATE TABLE paused_agents (
    agent_id  INTEGER PRIMARY KEY REFERENCES agents (id),
    paused_by INTEGER REFERENCES people (id),
    paused_at TEXT    NOT NULL
);
