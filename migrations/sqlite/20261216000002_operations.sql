-- Operations: what memory costs. What each run cost, written once when it ends, and the indexes
-- that let the Operations page count a day's runs, reads and cards by ranges instead of reading
-- whole tables.

-- A run's cost: the tokens of the block it was given (0 for an empty memory, which gives none),
-- and its model calls with the tokens they sent and received and what they cost at the agent
-- model's price. Counts only, never what was said. Dated at the run's start, so it falls on the
-- day the run was asked, as the run does.
CREATE TABLE run_costs (
    run_id           INTEGER PRIMARY KEY REFERENCES runs (id),
    at               TEXT    NOT NULL,
    block_tokens     INTEGER NOT NULL CHECK (block_tokens >= 0),
    model_calls      INTEGER NOT NULL CHECK (model_calls >= 0),
    model_tokens     INTEGER NOT NULL CHECK (model_tokens >= 0),
    model_millicents INTEGER NOT NULL CHECK (model_millicents >= 0)
);
-- A day's costs are one range of this index, which also holds the block's size, so a day's
-- percentiles are read from the index alone.
CREATE INDEX run_costs_at ON run_costs (at, block_tokens);

-- The runs a day began, and how many of them were checked: one range.
CREATE INDEX runs_created ON runs (created_at);

-- The reads a day's checks made (purpose 'check'): one range.
CREATE INDEX connector_calls_purpose ON connector_calls (purpose, at);

-- A connector's oldest card, found at once, and how many are older than its hard limit.
CREATE INDEX cards_read_at ON cards (connector_id, read_at);
