-- What Draft from what exists reads besides company knowledge: each agent's playbook and each
-- connector's notes for agents, both written by admins. Each save is a new row; the newest is
-- current, and the earlier ones stay as the history.
CREATE TABLE agent_playbooks (
    id         INTEGER PRIMARY KEY,
    agent_id   INTEGER NOT NULL REFERENCES agents (id),
    text       TEXT    NOT NULL,
    saved_by   INTEGER REFERENCES people (id),
    saved_at   TEXT    NOT NULL
);
CREATE INDEX agent_playbooks_agent ON agent_playbooks (agent_id, id);

CREATE TABLE connector_notes (
    id           INTEGER PRIMARY KEY,
    connector_id INTEGER NOT NULL REFERENCES connectors (id),
    text         TEXT    NOT NULL,
    saved_by     INTEGER REFERENCES people (id),
    saved_at     TEXT    NOT NULL
);
CREATE INDEX connector_notes_connector ON connector_notes (connector_id, id);
