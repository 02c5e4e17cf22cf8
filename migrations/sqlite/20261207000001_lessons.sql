-- Lessons: knowledge entries with evidence, a scope and a data label. Nothing but the person's own
-- Forget deletes one; every other end is a state with a date.
CREATE TABLE lessons (
    id              INTEGER PRIMARY KEY,
    person_id       INTEGER NOT NULL REFERENCES people (id),
    scope           TEXT NOT NULL CHECK (scope IN ('personal', 'team', 'company', 'agent')),
    team_id         INTEGER REFERENCES teams (id),
    agent_id        INTEGER REFERENCES agents (id),
    text            TEXT NOT NULL,
    evidence        TEXT NOT NULL,
    label           TEXT NOT NULL,
    checked_at      TEXT,
    source_version  TEXT,
    valid_from      TEXT NOT NULL,
    valid_to        TEXT,
    claim_record    TEXT,
    claim_field     TEXT,
    claim_value     TEXT,
    state           TEXT NOT NULL,
    state_at        TEXT NOT NULL,
    state_reason    TEXT,
    confirmed       INTEGER NOT NULL,
    supersedes      INTEGER REFERENCES lessons (id),
    written_by      TEXT NOT NULL,
    created_at      TEXT NOT NULL,
    CHECK ((scope = 'team') = (team_id IS NOT NULL)),
    CHECK ((scope = 'agent') = (agent_id IS NOT NULL))
);
CREATE INDEX lessons_person ON lessons (person_id, id);
CREATE INDEX lessons_shared ON lessons (scope, team_id) WHERE scope IN ('team', 'company') AND state = 'accepted';

-- A person's private notes were what their asks loaded before lessons: each becomes a personal
-- lesson in their own words, which they accepted by writing it.
INSERT INTO lessons (person_id, scope, text, evidence, label, valid_from, state, state_at, confirmed, written_by,
                     created_at)
SELECT person_id, 'personal', text, '[]', 'internal', created_at, 'accepted', created_at, 1, 'person', created_at
FROM private_notes ORDER BY id;
DROP TABLE private_notes;
