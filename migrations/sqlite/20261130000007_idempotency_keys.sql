-- A POST sent with an Idempotency-Key: the first answer is kept, so that a retry (after a lost
-- answer) gets it again instead of creating a second thing. `status` and `body` stay NULL while
-- the first request is still being answered. Keys are scoped to the caller and live 24 hours.
CREATE TABLE idempotency_keys (
    scope       TEXT    NOT NULL,
    key         TEXT    NOT NULL,
    route       TEXT    NOT NULL,
    body_hash   TEXT    NOT NULL,
    status      INTEGER,
    body        BLOB,
    created_at  TEXT    NOT NULL,
    PRIMARY KEY (scope, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
