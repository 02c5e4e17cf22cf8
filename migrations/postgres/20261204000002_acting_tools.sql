-- A connector's tools that act, ticked by an admin apart from its read tools: a run's call of one
-- waits in the person's Inbox, and nothing that reads (drafting shapes, queries) ever calls it.
ALTER TABLE connectors ADD COLUMN acting_tools TEXT NOT NULL DEFAULT '[]';
-- Which record a tool that acts changes ([{tool, kind, id_argument}]), so the change reads it first.
ALTER TABLE connectors ADD COLUMN write_targets TEXT NOT NULL DEFAULT '[]';
