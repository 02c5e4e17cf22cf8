-- Role cores. A core is the ordered list of its versions; nothing here is updated or deleted.
-- scope_key is `company:role:<slug>` or `team:<id>`.

CREATE TABLE core_versions (
    id              INTEGER PRIMARY KEY,
    scope_key       TEXT    NOT NULL,
    version         INTEGER NOT NULL CHECK (version >= 1),
    body            TEXT    NOT NULL,
    tokens          INTEGER NOT NULL,
    author_id       INTEGER NOT NULL REFERENCES people (id),
    note            TEXT    NOT NULL DEFAULT '',
    restored_from   INTEGER,
    saved_at        TEXT    NOT NULL,
    UNIQUE (scope_key, version)
);

CREATE TABLE core_suggestions (
    id              INTEGER PRIMARY KEY,
    scope_key       TEXT    NOT NULL,
    line            TEXT    NOT NULL,
    why             TEXT    NOT NULL,
    rests_on        TEXT    NOT NULL,
    source          TEXT    NOT NULL,
    based_on        INTEGER NOT NULL,
    state           TEXT    NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'accepted', 'dismissed')),
    created_at      TEXT    NOT NULL,
    decided_by      INTEGER REFERENCES people (id),
    decided_at      TEXT,
    result_version  INTEGER
);
CREATE INDEX core_suggestions_scope ON core_suggestions (scope_key, state);
