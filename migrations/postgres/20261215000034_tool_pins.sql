-- A connector's tool metadata is data: the name, description and parameter schema of each ticked
-- tool as an admin approved it. A run offers the model this copy only. When the live listing says
-- something else of the tool (another description or parameters, or no such tool), that is noted
-- here for admins to see and re-approve; the pinned copy stays until they do.
--
-- Existing ticked tools are not pinned here: a migration cannot read a source's listing, so each is
-- pinned from the first listing Engram reads after the upgrade (the copy closest to what the admin
-- ticked), audited as pinned by no one.
CREATE TABLE tool_pins (
    connector_id     BIGINT  NOT NULL REFERENCES connectors (id),
    tool             TEXT    NOT NULL,
    description      TEXT    NOT NULL,
    -- The parameter schema as JSON text.
    parameters       TEXT    NOT NULL,
    pinned_at        TIMESTAMPTZ NOT NULL,
    -- What the listing last said that differs, and when that was first seen; all NULL (and
    -- gone false) while it agrees.
    listed_description TEXT,
    listed_parameters  TEXT,
    listed_gone      BOOLEAN NOT NULL DEFAULT FALSE,
    listed_at        TIMESTAMPTZ,
    PRIMARY KEY (connector_id, tool)
);
