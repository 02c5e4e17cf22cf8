-- Each person's match terms: the terms of the cards they keep, beside their uses, so a run finds
-- the cards its question names with one probe per term of the question rather than one per card
-- the person keeps. Triggers keep it in step wherever a use or a term is added or removed,
-- foreign-key cascades included, so no store code can forget it. A use's person and card never
-- change once written (a save updates only its summary, pin and last use).
CREATE TABLE use_terms (
    person_id INTEGER NOT NULL,
    term      TEXT    NOT NULL,
    card_id   INTEGER NOT NULL,
    PRIMARY KEY (person_id, term, card_id)
) WITHOUT ROWID;

-- A card's users, found without reading every use: for the triggers below, and for the
-- foreign-key check when a card is deleted.
CREATE INDEX card_uses_by_card ON card_uses (card_id);

INSERT OR IGNORE INTO use_terms (person_id, term, card_id)
SELECT u.person_id, t.term, t.card_id FROM card_uses u JOIN card_terms t ON t.card_id = u.card_id;

CREATE TRIGGER use_terms_use_added AFTER INSERT ON card_uses BEGIN
    INSERT OR IGNORE INTO use_terms (person_id, term, card_id)
    SELECT NEW.person_id, term, card_id FROM card_terms WHERE card_id = NEW.card_id;
END;

-- By person and card, not by the card's terms: a cascade may have removed those first.
CREATE TRIGGER use_terms_use_removed AFTER DELETE ON card_uses BEGIN
    DELETE FROM use_terms WHERE person_id = OLD.person_id AND card_id = OLD.card_id;
END;

CREATE TRIGGER use_terms_term_added AFTER INSERT ON card_terms BEGIN
    INSERT OR IGNORE INTO use_terms (person_id, term, card_id)
    SELECT person_id, NEW.term, NEW.card_id FROM card_uses WHERE card_id = NEW.card_id;
END;

CREATE TRIGGER use_terms_term_removed AFTER DELETE ON card_terms BEGIN
    DELETE FROM use_terms WHERE card_id = OLD.card_id AND term = OLD.term
        AND person_id IN (SELECT person_id FROM card_uses WHERE card_id = OLD.card_id);
END;
