-- Seed 004: each applied memory audit of a bot's MEMORY.md and USER.md (or of a Hermes memories
-- folder, subject `dir:<path>`). The texts before are the version Undo restores; rows are never
-- deleted, and an undo is recorded on the audit.
CREATE TABLE org_memory_audits (
    id             INTEGER PRIMARY KEY,
    subject        TEXT    NOT NULL,
    trigger_name   TEXT    NOT NULL,
    by_whom        TEXT    NOT NULL,
    at             TEXT    NOT NULL,
    memory_before  TEXT    NOT NULL,
    user_before    TEXT    NOT NULL,
    memory_after   TEXT    NOT NULL,
    user_after     TEXT    NOT NULL,
    memory_percent INTEGER NOT NULL,
    user_percent   INTEGER NOT NULL,
    -- JSON: the entries it could not place, with the reason for each.
    unresolved     TEXT    NOT NULL,
    summary        TEXT    NOT NULL,
    undone_at      TEXT,
    undone_by      TEXT
);
CREATE INDEX org_memory_audits_subject ON org_memory_audits (subject, id);

-- An audit row per action: what it was (JSON) and what became of it.
CREATE TABLE org_memory_audit_actions (
    id       INTEGER PRIMARY KEY,
    audit_id INTEGER NOT NULL REFERENCES org_memory_audits (id),
    seq      INTEGER NOT NULL,
    action   TEXT    NOT NULL,
    outcome  TEXT    NOT NULL
);
CREATE INDEX org_memory_audit_actions_audit ON org_memory_audit_actions (audit_id, seq);

-- When an audit first read each entry: a temporary state is deleted only 14 days after.
CREATE TABLE org_memory_audit_entries (
    subject    TEXT NOT NULL,
    entry      TEXT NOT NULL,
    first_seen TEXT NOT NULL,
    PRIMARY KEY (subject, entry)
);
