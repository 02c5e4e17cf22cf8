-- Operations: the measure of memory's tables (each table's rows, bytes on disk and rows written in
-- the last 30 days), taken once a day by a job and kept here, so the Operations page reads one row
-- rather than counting every row of memory, which costs what memory holds. Counts and table names
-- only, never what memory says. One row a day; the page reads the newest.
CREATE TABLE memory_measures (
    id          BIGSERIAL PRIMARY KEY,
    measured_at TIMESTAMPTZ NOT NULL,
    sizes       TEXT NOT NULL
);
