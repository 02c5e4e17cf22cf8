-- A team's current members in the page's order (see SQLite's migration of the same name): the
-- members who left are not in it, so a page never steps over them, and both backends hold the same
-- indexes.
CREATE INDEX people_current_by_team ON people (main_team_id, name COLLATE "C", id) WHERE left_at IS NULL;
