-- Agent tokens: what an organisation's own outside agent holds to use one company agent's memory
-- and gate while acting for nobody, as a schedule does. Only a token's hash is kept; its secret is
-- shown once. Revoked, never deleted.
CREATE TABLE agent_run_tokens (
    id           INTEGER PRIMARY KEY,
    agent_id     INTEGER NOT NULL REFERENCES agents (id),
    name         TEXT    NOT NULL,
    secret_hash  TEXT    NOT NULL UNIQUE,
    made_by      INTEGER REFERENCES people (id),
    made_at      TEXT    NOT NULL,
    last_used_at TEXT,
    revoked_at   TEXT,
    revoked_by   INTEGER REFERENCES people (id)
);
-- An agent's tokens, newest first, and its live ones counted: one range each.
CREATE INDEX agent_run_tokens_agent ON agent_run_tokens (agent_id, id);

-- Which token started which external run: only that token takes the run further.
CREATE TABLE agent_token_runs (
    run_id   INTEGER PRIMARY KEY REFERENCES runs (id),
    token_id INTEGER NOT NULL REFERENCES agent_run_tokens (id)
);
