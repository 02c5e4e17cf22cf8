-- A private agent: one person's own (the inbox assistant), which only they see and ask. Its
-- runs are read apart by the nightly job, so its lessons load only into its owner's private
-- agents' runs.
ALTER TABLE agents ADD COLUMN private BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE nightly_marks ADD COLUMN private_through BIGINT NOT NULL DEFAULT 0;
-- No private agent ran before now: the job has read their private work as far as it read the
-- rest, so reading does not start again from their first run.
UPDATE nightly_marks SET private_through = GREATEST(personal_through, shared_through);
