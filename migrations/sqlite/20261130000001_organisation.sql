-- The organisation, its people and their department roles. Timestamps are UTC, RFC 3339 text.

CREATE TABLE company (
    id          INTEGER PRIMARY KEY CHECK (id = 1),
    name        TEXT    NOT NULL,
    time_zone   TEXT    NOT NULL,
    created_at  TEXT    NOT NULL
);

CREATE TABLE roles (
    id                  INTEGER PRIMARY KEY,
    slug                TEXT    NOT NULL UNIQUE,
    name                TEXT    NOT NULL,
    company_core_limit  INTEGER NOT NULL DEFAULT 2000 CHECK (company_core_limit BETWEEN 2000 AND 6000),
    created_at          TEXT    NOT NULL
);
CREATE UNIQUE INDEX roles_name_unique ON roles (lower(name));

CREATE TABLE teams (
    id          INTEGER PRIMARY KEY,
    name        TEXT    NOT NULL UNIQUE,
    role_id     INTEGER REFERENCES roles (id),
    lead_id     INTEGER REFERENCES people (id),
    created_at  TEXT    NOT NULL
);

CREATE TABLE people (
    id              INTEGER PRIMARY KEY,
    name            TEXT    NOT NULL,
    email           TEXT    NOT NULL UNIQUE,
    password_hash   TEXT    NOT NULL,
    is_admin        INTEGER NOT NULL DEFAULT 0,
    main_team_id    INTEGER REFERENCES teams (id),
    role_override_id INTEGER REFERENCES roles (id),
    created_at      TEXT    NOT NULL
);

CREATE TABLE agents (
    id          INTEGER PRIMARY KEY,
    name        TEXT    NOT NULL UNIQUE,
    template    TEXT    NOT NULL,
    role_id     INTEGER REFERENCES roles (id),
    owner_id    INTEGER NOT NULL REFERENCES people (id),
    team_copy_id INTEGER REFERENCES teams (id),
    created_at  TEXT    NOT NULL
);

-- Every change that is not itself a version lands here.
CREATE TABLE audit_log (
    id          INTEGER PRIMARY KEY,
    at          TEXT    NOT NULL,
    actor_id    INTEGER REFERENCES people (id),
    action      TEXT    NOT NULL,
    subject     TEXT    NOT NULL,
    detail      TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX audit_log_at ON audit_log (at);

CREATE TABLE api_tokens (
    id              INTEGER PRIMARY KEY,
    person_id       INTEGER NOT NULL REFERENCES people (id),
    name            TEXT    NOT NULL,
    secret_hash     TEXT    NOT NULL UNIQUE,
    created_at      TEXT    NOT NULL,
    last_used_at    TEXT,
    revoked_at      TEXT
);
CREATE INDEX api_tokens_person ON api_tokens (person_id);
