-- Cards are now matched by the terms people write: words split where people join them, folded and
-- stemmed, ids and emails whole (the engine's `terms`), so "Hebbal-Biotech", "hebbal biotech" and
-- "Hebbal's lead" name the same record. A question's terms are made that way, so every card's kept
-- terms must be too: they are cleared here (TRUNCATE fires no row triggers), and the store writes
-- each card's terms again at its next start (the `card_terms` task, which finds the cards that have
-- none), the open-work term included.
TRUNCATE use_terms, card_terms;
INSERT INTO store_tasks (name) VALUES ('card_terms') ON CONFLICT DO NOTHING;
