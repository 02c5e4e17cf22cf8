-- What a lesson means, where an embedding model is configured: one row per lesson, made after the
-- lesson is kept (never on a run's path). `model` names the model (`openai/<model>`,
-- `ollama/<model>`): a run compares only vectors of the configured model, so a model changed
-- never mixes two spaces, and the lesson is embedded again. `vector` holds the unit-length vector
-- as little-endian 4-byte floats (6 KiB for 1,536 numbers, against some 20 KiB as JSON, and read
-- without parsing); it is empty while the row is only a claim (`claimed_at`) by the server
-- embedding it. The row goes with its lesson when the lesson is forgotten.
CREATE TABLE lesson_embeddings (
    lesson_id BIGINT PRIMARY KEY REFERENCES lessons(id) ON DELETE CASCADE,
    model TEXT NOT NULL,
    vector BYTEA,
    claimed_at TIMESTAMPTZ NOT NULL,
    made_at TIMESTAMPTZ
);
