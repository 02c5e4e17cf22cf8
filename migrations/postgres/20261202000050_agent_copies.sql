-- A team copy names the agent it was copied from, so an agent has at most one copy per team.
ALTER TABLE agents ADD COLUMN copy_of_id BIGINT REFERENCES agents (id);
CREATE UNIQUE INDEX agents_one_copy_per_team ON agents (copy_of_id, team_copy_id) WHERE copy_of_id IS NOT NULL;
