-- Erasing a third party (seed 001): the audit row of an erasure keeps a keyed hash of the value,
-- never the value. The key is the company's own: 32 random bytes made at the first erasure, sealed
-- with the secret key as connector keys are, and re-sealed with them when the key is rotated, so
-- one value hashes alike for as long as the database lives.
CREATE TABLE erasure_key (
    id          INTEGER PRIMARY KEY CHECK (id = 1),
    sealed      TEXT    NOT NULL,
    created_at  TEXT    NOT NULL
);
