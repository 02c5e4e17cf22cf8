-- Partner knowledge: company-wide knowledge about work with partners, reviewed by an admin as a
-- company lesson is, which loads only into agents whose memory scopes list "partner". Kept as a
-- company lesson with this mark, as on SQLite, whose scope check cannot be changed in place.
ALTER TABLE lessons ADD COLUMN partner BOOLEAN NOT NULL DEFAULT FALSE CHECK (NOT partner OR scope = 'company');
