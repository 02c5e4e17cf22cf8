-- Pages whose cost does not grow with the organisation: People, Teams and the person pickers read
-- bounded pages of people, searched by prefix, and each team's count of people is kept rather than
-- counted on every page.

-- People by name then id, for a page of People (the rowid is the id, so the index holds the order).
CREATE INDEX people_by_name ON people (name);

-- A search by the start of a name or a team's name, ignoring case in A to Z: the same expression
-- the store compares (`lower` folds A to Z only). Emails are kept lowercased, and their unique
-- index serves a search by the start of one.
CREATE INDEX people_by_folded_name ON people (lower(name));
CREATE INDEX teams_by_folded_name ON teams (lower(name));

-- How many current people each team has as their main team; team 0 holds those with none. The
-- triggers keep it in step wherever a person is added, moved, leaves or is removed, so no store
-- code can forget it, and a page reads a row a team instead of counting everyone.
CREATE TABLE team_sizes (
    team_id INTEGER PRIMARY KEY,
    people  INTEGER NOT NULL
);

INSERT INTO team_sizes (team_id, people)
SELECT coalesce(main_team_id, 0), COUNT(*) FROM people WHERE left_at IS NULL GROUP BY coalesce(main_team_id, 0);

CREATE TRIGGER team_sizes_person_added AFTER INSERT ON people WHEN NEW.left_at IS NULL BEGIN
    INSERT INTO team_sizes (team_id, people) VALUES (coalesce(NEW.main_team_id, 0), 1)
    ON CONFLICT (team_id) DO UPDATE SET people = people + 1;
END;

CREATE TRIGGER team_sizes_person_went AFTER UPDATE OF main_team_id, left_at ON people
WHEN OLD.left_at IS NULL
    AND (NEW.left_at IS NOT NULL OR coalesce(NEW.main_team_id, 0) <> coalesce(OLD.main_team_id, 0)) BEGIN
    UPDATE team_sizes SET people = people - 1 WHERE team_id = coalesce(OLD.main_team_id, 0);
END;

CREATE TRIGGER team_sizes_person_came AFTER UPDATE OF main_team_id, left_at ON people
WHEN NEW.left_at IS NULL
    AND (OLD.left_at IS NOT NULL OR coalesce(NEW.main_team_id, 0) <> coalesce(OLD.main_team_id, 0)) BEGIN
    INSERT INTO team_sizes (team_id, people) VALUES (coalesce(NEW.main_team_id, 0), 1)
    ON CONFLICT (team_id) DO UPDATE SET people = people + 1;
END;

CREATE TRIGGER team_sizes_person_removed AFTER DELETE ON people WHEN OLD.left_at IS NULL BEGIN
    UPDATE team_sizes SET people = people - 1 WHERE team_id = coalesce(OLD.main_team_id, 0);
END;
