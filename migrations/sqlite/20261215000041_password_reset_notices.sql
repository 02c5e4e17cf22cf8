-- An admin's reset of someone's password, kept until that person has read, once, who reset it and
-- when: a reset they did not ask for is how they learn their account was touched.
CREATE TABLE password_reset_notices (
    id          INTEGER PRIMARY KEY,
    person_id   INTEGER NOT NULL REFERENCES people (id),
    reset_by    INTEGER NOT NULL REFERENCES people (id),
    reset_at    TEXT    NOT NULL,
    shown_at    TEXT
);
-- Every signed-in page asks whether one waits; almost always none does.
CREATE INDEX password_reset_notices_waiting ON password_reset_notices (person_id) WHERE shown_at IS NULL;
