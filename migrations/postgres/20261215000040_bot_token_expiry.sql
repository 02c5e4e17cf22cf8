-- A bot's own token expires, and says why it stopped working when it was revoked.
--
-- Tokens made before this had no end. They get 90 days from now (the default lifetime) rather than
-- 90 days from when they were made, so no dispatcher that works today stops at the upgrade without
-- warning, yet none keeps working for ever.
ALTER TABLE agent_tokens ADD COLUMN expires_at TIMESTAMPTZ;
UPDATE agent_tokens SET expires_at = now() + INTERVAL '90 days';
ALTER TABLE agent_tokens ALTER COLUMN expires_at SET NOT NULL;

-- 'revoked' (by its owner or lead), 'owner_changed' (refused once the roster named another owner);
-- NULL for tokens revoked before this, or when the person who made them left.
ALTER TABLE agent_tokens ADD COLUMN revoked_why TEXT;
ALTER TABLE agent_tokens ADD COLUMN revoked_by BIGINT REFERENCES people (id);

CREATE INDEX agent_tokens_agent ON agent_tokens (agent, id);
