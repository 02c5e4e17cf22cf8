-- Each person's match terms: the terms of the cards they keep, beside their uses, so a run finds
-- the cards its question names with one probe per term of the question rather than one per card
-- the person keeps. Triggers keep it in step wherever a use or a term is added or removed,
-- foreign-key cascades included, so no store code can forget it. A use's person and card never
-- change once written (a save updates only its summary, pin and last use).
CREATE TABLE use_terms (
    person_id BIGINT NOT NULL,
    term      TEXT   NOT NULL,
    card_id   BIGINT NOT NULL,
    PRIMARY KEY (person_id, term, card_id)
);

-- A card's users, found without reading every use: for the triggers below, and for the
-- foreign-key check when a card is deleted.
CREATE INDEX card_uses_by_card ON card_uses (card_id);

INSERT INTO use_terms (person_id, term, card_id)
SELECT u.person_id, t.term, t.card_id FROM card_uses u JOIN card_terms t ON t.card_id = u.card_id
ON CONFLICT DO NOTHING;

-- Each trigger first takes the key-share lock on the card that a use's foreign key takes. A
-- rewrite of the card's terms holds the card `FOR UPDATE` (`upsert_in`), so a use added or
-- removed at the same time waits for it, and then reads the terms it wrote; and the rewrite,
-- waiting in turn, sees the use. Without it, a use could keep terms its card no longer has.
CREATE FUNCTION use_terms_use_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        PERFORM 1 FROM cards WHERE id = OLD.card_id FOR KEY SHARE;
        -- By person and card, not by the card's terms: a cascade may have removed those first.
        DELETE FROM use_terms WHERE person_id = OLD.person_id AND card_id = OLD.card_id;
    ELSE
        PERFORM 1 FROM cards WHERE id = NEW.card_id FOR KEY SHARE;
        INSERT INTO use_terms (person_id, term, card_id)
        SELECT NEW.person_id, t.term, t.card_id FROM card_terms t WHERE t.card_id = NEW.card_id
        ON CONFLICT DO NOTHING;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER use_terms_use_added AFTER INSERT ON card_uses
    FOR EACH ROW EXECUTE FUNCTION use_terms_use_changed();
CREATE TRIGGER use_terms_use_removed AFTER DELETE ON card_uses
    FOR EACH ROW EXECUTE FUNCTION use_terms_use_changed();

CREATE FUNCTION use_terms_term_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        DELETE FROM use_terms WHERE card_id = OLD.card_id AND term = OLD.term
            AND person_id IN (SELECT person_id FROM card_uses WHERE card_id = OLD.card_id);
    ELSE
        INSERT INTO use_terms (person_id, term, card_id)
        SELECT person_id, NEW.term, NEW.card_id FROM card_uses WHERE card_id = NEW.card_id
        ON CONFLICT DO NOTHING;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER use_terms_term_added AFTER INSERT ON card_terms
    FOR EACH ROW EXECUTE FUNCTION use_terms_term_changed();
CREATE TRIGGER use_terms_term_removed AFTER DELETE ON card_terms
    FOR EACH ROW EXECUTE FUNCTION use_terms_term_changed();
