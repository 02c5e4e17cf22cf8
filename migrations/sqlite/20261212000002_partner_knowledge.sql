-- Partner knowledge: company-wide knowledge about work with partners, reviewed by an admin as a
-- company lesson is, which loads only into agents whose memory scopes list "partner". Kept as a
-- company lesson with this mark, so the scope's check stays as it is.
ALTER TABLE lessons ADD COLUMN partner INTEGER NOT NULL DEFAULT 0 CHECK (partner = 0 OR scope = 'company');
