-- An agent's memory_scopes: which lessons its runs may load. No row, or an empty list, means no
-- limit; company knowledge always loads.
CREATE TABLE agent_memory_scopes (
    agent_id INTEGER PRIMARY KEY REFERENCES agents (id),
    -- Comma-separated: personal, team.
    scopes   TEXT    NOT NULL
);
