-- A search of People reads each of its three ways (by name, by email, by team) from an index in
-- that way's order, stopping after the first 250, and takes the name from the same index, so that
-- only the page's 50 rows are read. By name, `people_by_name_key (lower(name), name)` and by team
-- `people_main_team (main_team_id, name)` already hold the name, and every SQLite index holds the
-- id (the rowid); by email, the unique index held only the email.
CREATE INDEX people_by_email ON people (email, name);
