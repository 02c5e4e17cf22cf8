-- The agent's message that is a run's answer names that run, so a thread shows it under the run
-- that gave it (and a retried run's earlier answer stays in the thread as what was said).
ALTER TABLE messages ADD COLUMN answer_of_run INTEGER REFERENCES runs (id);
