-- A private agent: one person's own (the inbox assistant), which only they see and ask. Its
-- runs are read apart by the nightly job, so its lessons load only into its owner's private
-- agents' runs.
ALTER TABLE agents ADD COLUMN private BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE nightly_marks ADD COLUMN private_through BIGINT NOT NULL DEFAULT 0;
