-- Seed 003: a bot's own edits to its memory. A row's worth moves with strengthen and weaken and
-- orders core.md after times seen.
ALTER TABLE org_agent_memory ADD COLUMN worth INTEGER NOT NULL DEFAULT 0;

-- Every memory_self_edit request, applied, waiting or refused: the audit trail of what the bot
-- meant to do (reason) beside what changed (before, after). Rows are never deleted; undo and a
-- person's decision move the state. The profile's current text is the `after` of the newest
-- applied profile edit.
CREATE TABLE org_agent_self_edits (
    id          INTEGER PRIMARY KEY,
    agent       TEXT    NOT NULL,
    action      TEXT    NOT NULL,
    target      TEXT    NOT NULL,
    content     TEXT,
    reason      TEXT    NOT NULL,
    state       TEXT    NOT NULL CHECK (state IN ('applied', 'waiting', 'refused', 'declined', 'undone')),
    -- The requireApproval kind a waiting edit waits for.
    approval    TEXT,
    refusal     TEXT,
    -- The planned change as JSON, carried out when applied or approved.
    plan        TEXT,
    row_id      INTEGER REFERENCES org_agent_memory (id),
    new_row_id  INTEGER REFERENCES org_agent_memory (id),
    before_text TEXT,
    after_text  TEXT,
    -- The bot's latest episode when it asked: its session, which its next finished run ends.
    session_after INTEGER,
    grace_s     INTEGER NOT NULL,
    created_at  TEXT    NOT NULL,
    applied_at  TEXT,
    undo_until  TEXT,
    decided_at  TEXT,
    decided_by  TEXT,
    decided_why TEXT,
    undone_at   TEXT,
    undone_by   TEXT
);
CREATE INDEX org_agent_self_edits_agent ON org_agent_self_edits (agent, created_at);

-- What a reflection cycle found the bot lacked, flagged for acquisition on the agent page.
CREATE TABLE org_agent_knowledge_gaps (
    id          INTEGER PRIMARY KEY,
    agent       TEXT NOT NULL,
    text        TEXT NOT NULL,
    episode_id  INTEGER NOT NULL REFERENCES org_agent_episodes (id),
    created_at  TEXT NOT NULL
);
CREATE INDEX org_agent_knowledge_gaps_agent ON org_agent_knowledge_gaps (agent, id);
