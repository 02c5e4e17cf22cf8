-- The nightly job: how far it has read each person's runs, the spend ledger of memory's model
-- calls, the daily budget an admin set, and the nights the budget ran out.
CREATE TABLE nightly_marks (
    person_id        INTEGER PRIMARY KEY REFERENCES people (id),
    -- The last run the job read of each kind of their work: a kind whose call failed is read
    -- again the next night while the other kind's lessons are not written twice.
    personal_through INTEGER NOT NULL DEFAULT 0,
    shared_through   INTEGER NOT NULL DEFAULT 0,
    -- Set when the budget ran out before their turn: they are read first the next night.
    left_out_on      TEXT
);

CREATE TABLE memory_spend (
    id          INTEGER PRIMARY KEY,
    local_date  TEXT    NOT NULL,
    purpose     TEXT    NOT NULL,
    model       TEXT    NOT NULL,
    millicents  INTEGER NOT NULL CHECK (millicents >= 0),
    at          TEXT    NOT NULL
);
CREATE INDEX memory_spend_day ON memory_spend (local_date);

CREATE TABLE memory_settings (
    id                  INTEGER PRIMARY KEY CHECK (id = 1),
    daily_budget_cents  INTEGER NOT NULL CHECK (daily_budget_cents >= 0)
);

CREATE TABLE budget_stops (
    local_date   TEXT    PRIMARY KEY,
    budget_cents INTEGER NOT NULL,
    left_out     INTEGER NOT NULL,
    at           TEXT    NOT NULL
);
