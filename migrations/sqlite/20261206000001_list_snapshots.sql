-- List snapshots: a list answer keeps its query, for whom, when, and which records it returned.
-- The same query read again closes the snapshot before it, never deletes it.
CREATE TABLE list_snapshots (
    id            INTEGER PRIMARY KEY,
    person_id     INTEGER NOT NULL REFERENCES people (id),
    connector_id  INTEGER NOT NULL REFERENCES connectors (id),
    tool          TEXT NOT NULL,
    -- The arguments as read, as compact JSON: the query's identity.
    arguments     TEXT NOT NULL,
    asked         TEXT NOT NULL,
    -- The record ids, a JSON array in the source's order.
    records       TEXT NOT NULL,
    taken_at      TEXT NOT NULL,
    closed_at     TEXT,
    closed_reason TEXT
);
CREATE INDEX list_snapshots_open ON list_snapshots (person_id, closed_at, id);
-- One open snapshot per person and query: a second read of it closes the first.
CREATE UNIQUE INDEX list_snapshots_one_open ON list_snapshots (person_id, connector_id, tool, arguments) WHERE closed_at IS NULL;
