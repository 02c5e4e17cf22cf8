-- Three kinds of structured fact, each with its own soft and hard limit (minutes), per connector.
-- What was one limit for every structured field becomes the state fields' limit; reference data
-- and amounts and dates start from the defaults the README explains.
ALTER TABLE connectors ADD COLUMN fact_limits TEXT NOT NULL DEFAULT '';
UPDATE connectors SET fact_limits =
    '{"reference":{"soft_mins":1440,"hard_mins":43200},"state":{"soft_mins":' || structured_soft_mins ||
    ',"hard_mins":' || structured_hard_mins || '},"moving":{"soft_mins":15,"hard_mins":240}}';
ALTER TABLE connectors DROP COLUMN structured_soft_mins;
ALTER TABLE connectors DROP COLUMN structured_hard_mins;
