-- Connector keys (connectors.company_key, person_keys.secret) are sealed with the secret key. This
-- row holds a known value sealed with the same key: start-up opens it before serving, so a wrong
-- key stops the start at once rather than failing a source's read later. No row: nothing has been
-- sealed yet, and the first start with a key seals every key kept in plain text until then.
CREATE TABLE secret_key_check (
    id          INTEGER PRIMARY KEY CHECK (id = 1),
    sealed      TEXT    NOT NULL,
    sealed_at   TEXT    NOT NULL
);
