-- Setting up an organisation from an empty database: invite links, sessions that end on a password
-- change, and an agent's description.

-- Bumped when a person's password changes or an admin resets it: a session signed in under an
-- older generation is over.
ALTER TABLE people ADD COLUMN session_generation INTEGER NOT NULL DEFAULT 0;

ALTER TABLE agents ADD COLUMN description TEXT NOT NULL DEFAULT '';

-- One-time links with which a person sets their password. Only a hash of the link's secret is
-- kept. A link is closed when used, or when a newer one for the same person replaces it.
CREATE TABLE invites (
    id           INTEGER PRIMARY KEY,
    person_id    INTEGER NOT NULL REFERENCES people (id),
    secret_hash  TEXT    NOT NULL UNIQUE,
    made_by      INTEGER REFERENCES people (id),
    created_at   TEXT    NOT NULL,
    expires_at   TEXT    NOT NULL,
    used_at      TEXT,
    replaced_at  TEXT
);
CREATE INDEX invites_person ON invites (person_id);
