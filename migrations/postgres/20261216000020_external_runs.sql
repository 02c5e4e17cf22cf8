-- Runs of kind 'external': an outside agent uses one company agent's memory and gate.
ALTER TABLE runs DROP CONSTRAINT runs_kind_check;
ALTER TABLE runs ADD CONSTRAINT runs_kind_check CHECK (kind IN ('ask', 'schedule', 'eval', 'consult', 'external'));
