-- Cards are now matched by the terms people write: words split where people join them, folded and
-- stemmed, ids and emails whole (the engine's `terms`), so "Hebbal-Biotech", "hebbal biotech" and
-- "Hebbal's lead" name the same record. A question's terms are made that way, so every card's kept
-- terms must be too: they are cleared here, and the store writes each card's terms again at its next
-- start (the `card_terms` task, which finds the cards that have none), the open-work term included.
-- The trigger that removes a term's copies is set aside while both tables are emptied at once.
DROP TRIGGER use_terms_term_removed;
DELETE FROM use_terms;
DELETE FROM card_terms;
CREATE TRIGGER use_terms_term_removed AFTER DELETE ON card_terms BEGIN
    DELETE FROM use_terms WHERE card_id = OLD.card_id AND term = OLD.term
        AND person_id IN (SELECT person_id FROM card_uses WHERE card_id = OLD.card_id);
END;
INSERT OR IGNORE INTO store_tasks (name) VALUES ('card_terms');
