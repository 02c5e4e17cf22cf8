-- A team's count of people is kept a statement at a time when people are added or removed, not a
-- row at a time. An import adds thousands of people in one INSERT, and in one transaction: a
-- trigger for each row updated the team's count once a person, and every update left a dead
-- version of the row that nothing could reclaim before the import committed. 100,000 imported
-- people left `team_sizes` at 540 pages (4.4 MB) for its 44 rows, and every page that reads the
-- counts (People, Teams, a team, Roles) read all 540 (0.2 to 0.6 ms a page, where the demo's took
-- 0.01 ms). Now an INSERT or DELETE of any number of people updates each team's count once, from
-- the statement's own rows. A change of main team or leaving stays a row at a time: PostgreSQL
-- gives no transition table to a trigger on some columns only, and those change a person at a
-- time. SQLite rewrites a row in place, so its triggers stay as they are.

DROP TRIGGER team_sizes_person_added ON people;
DROP TRIGGER team_sizes_person_removed ON people;

CREATE FUNCTION team_sizes_people_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- Teams in order, so two statements adding people to the same teams lock them alike.
    INSERT INTO team_sizes (team_id, people)
    SELECT coalesce(main_team_id, 0), COUNT(*) FROM added WHERE left_at IS NULL
    GROUP BY coalesce(main_team_id, 0) ORDER BY 1
    ON CONFLICT (team_id) DO UPDATE SET people = team_sizes.people + excluded.people;
    RETURN NULL;
END
$$;

CREATE FUNCTION team_sizes_people_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE team_sizes s SET people = s.people - gone.people
    FROM (SELECT coalesce(main_team_id, 0) AS team_id, COUNT(*) AS people FROM removed
          WHERE left_at IS NULL GROUP BY coalesce(main_team_id, 0)) AS gone
    WHERE s.team_id = gone.team_id;
    RETURN NULL;
END
$$;

CREATE TRIGGER team_sizes_people_added AFTER INSERT ON people
    REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION team_sizes_people_added();
CREATE TRIGGER team_sizes_people_removed AFTER DELETE ON people
    REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION team_sizes_people_removed();

-- A database that has imported people already holds the dead versions: counted again into a new
-- file (TRUNCATE gives the table one), which also mends any count that drifted.
TRUNCATE team_sizes;
INSERT INTO team_sizes (team_id, people)
SELECT coalesce(main_team_id, 0), COUNT(*) FROM people WHERE left_at IS NULL GROUP BY coalesce(main_team_id, 0);
