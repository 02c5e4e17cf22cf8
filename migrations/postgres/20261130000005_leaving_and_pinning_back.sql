-- A person who leaves keeps their row (history names them) but can no longer sign in.
ALTER TABLE people ADD COLUMN left_at TIMESTAMPTZ;

-- A forgotten record remembers the tool that read it, so the person can pin it back within the
-- 30 days; pinning it back closes the row with a reason instead of deleting it.
ALTER TABLE forgotten_records ADD COLUMN tool TEXT NOT NULL DEFAULT '';
ALTER TABLE forgotten_records ADD COLUMN forgotten_at TIMESTAMPTZ;
ALTER TABLE forgotten_records ADD COLUMN lifted_at TIMESTAMPTZ;
ALTER TABLE forgotten_records ADD COLUMN lifted_reason TEXT;
