-- The Inbox also holds tasks an agent would hand on to a bot.
ALTER TABLE inbox_actions DROP CONSTRAINT inbox_actions_kind_check;
ALTER TABLE inbox_actions ADD CONSTRAINT inbox_actions_kind_check CHECK (kind IN ('write', 'send', 'task'));
