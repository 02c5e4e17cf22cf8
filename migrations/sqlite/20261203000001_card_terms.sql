-- The terms a question may name a card by (the engine's `match_terms`: its record id and its
-- structured values), so that a run reads the fields of only the cards sharing a term with its
-- question instead of every card the person keeps.
CREATE TABLE card_terms (
    card_id INTEGER NOT NULL REFERENCES cards (id) ON DELETE CASCADE,
    term    TEXT    NOT NULL,
    PRIMARY KEY (card_id, term)
) WITHOUT ROWID;

-- Work the store does once, in Rust, at the next start: the terms of the cards kept before now.
CREATE TABLE store_tasks (
    name TEXT PRIMARY KEY
);
INSERT INTO store_tasks (name) VALUES ('card_terms');
