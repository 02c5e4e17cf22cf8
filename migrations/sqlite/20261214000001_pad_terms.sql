-- A run reads the cards that may pad its block (pinned, or open work) only when its question names
-- few cards, and then finds them without reading every card the person keeps: the pinned ones by
-- this index, the open-work ones by a term of their own (the engine's `OPEN_WORK_TERM`, " open
-- work", which no question has, as question terms hold no spaces), which the triggers of
-- `use_terms` copy to each person keeping the card.
CREATE INDEX card_uses_pinned ON card_uses (person_id) WHERE pinned;

-- Only for cards that already have their match terms: a card with none gets every term, this one
-- included, from the store at its next start (the `card_terms` task), which finds it by having none.
INSERT OR IGNORE INTO card_terms (card_id, term)
SELECT c.id, ' open work' FROM cards c
WHERE c.open_work AND EXISTS (SELECT 1 FROM card_terms t WHERE t.card_id = c.id);
