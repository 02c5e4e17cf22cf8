-- A request made with a bot's own token reads under the `engram_bot` role, and the database itself
-- shows that role only the rows of the bot named in the transaction's `engram.agent` setting. The
-- role may read and never write: it has SELECT and nothing else. The application's own role owns the
-- tables, so the policies do not bind it (no FORCE ROW LEVEL SECURITY).

-- Roles belong to the whole cluster, while migrations run once per database, possibly several at
-- once: whoever loses the race to create the role (or to grant it) finds it done and goes on.
DO $$
BEGIN
    -- Looked for first, so that a user who may not create roles passes when an administrator made it.
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'engram_bot') THEN
        BEGIN
            CREATE ROLE engram_bot NOLOGIN;
        EXCEPTION
            WHEN duplicate_object OR unique_violation THEN NULL;
        END;
    END IF;
    -- The application switches to the role with SET ROLE, which needs membership; a superuser has it.
    IF NOT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user)
        AND NOT pg_has_role(current_user, 'engram_bot', 'MEMBER') THEN
        BEGIN
            GRANT engram_bot TO CURRENT_USER;
        EXCEPTION
            WHEN duplicate_object OR unique_violation THEN NULL;
        END;
    END IF;
    EXECUTE format('GRANT USAGE ON SCHEMA %I TO engram_bot', current_schema());
END
$$;

GRANT SELECT ON org_agent_episodes, org_agent_memory, org_agent_memory_evidence TO engram_bot;

ALTER TABLE org_agent_episodes ENABLE ROW LEVEL SECURITY;
ALTER TABLE org_agent_memory ENABLE ROW LEVEL SECURITY;
ALTER TABLE org_agent_memory_evidence ENABLE ROW LEVEL SECURITY;

-- `current_setting(…, true)` is NULL when the setting was never made, so an unset bot sees no rows
-- rather than an error.
CREATE POLICY own_episodes ON org_agent_episodes FOR SELECT TO engram_bot
    USING (agent = current_setting('engram.agent', true));
CREATE POLICY own_memory ON org_agent_memory FOR SELECT TO engram_bot
    USING (agent = current_setting('engram.agent', true));
-- Evidence has no bot of its own: it is visible when its memory row is, and that subquery is itself
-- under the memory policy.
CREATE POLICY own_evidence ON org_agent_memory_evidence FOR SELECT TO engram_bot
    USING (EXISTS (SELECT 1 FROM org_agent_memory m WHERE m.id = memory_id));
