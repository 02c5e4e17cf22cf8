-- A field missing from the source's answer is unknown, never a change: the card keeps the value
-- an earlier read stored and lists the field here (a JSON array of field names) until a read
-- returns it again. Profile → Memory shows such a field as "not returned by <connector>".
ALTER TABLE cards ADD COLUMN not_returned TEXT NOT NULL DEFAULT '[]';
