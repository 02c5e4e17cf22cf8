-- Pages whose cost does not grow with the organisation: People, Teams and the person pickers read
-- bounded pages of people, searched by prefix, and each team's count of people is kept rather than
-- counted on every page.

-- People by name (by bytes, as every list here orders names) then id, for a page of People.
CREATE INDEX people_by_name ON people (name COLLATE "C", id);

-- A search by the start of a name, an email or a team's name, ignoring case in A to Z: the same
-- expressions the store compares, by bytes. `translate` folds A to Z only, as SQLite's `lower` does,
-- so both backends match the same names. Emails are kept lowercased.
CREATE INDEX people_by_folded_name ON people
    ((translate(name, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')) COLLATE "C");
CREATE INDEX people_by_email ON people (email COLLATE "C");
CREATE INDEX teams_by_folded_name ON teams
    ((translate(name, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')) COLLATE "C");

-- How many current people each team has as their main team; team 0 holds those with none. The
-- trigger keeps it in step wherever a person is added, moved, leaves or is removed, so no store
-- code can forget it, and a page reads a row a team instead of counting everyone.
CREATE TABLE team_sizes (
    team_id BIGINT PRIMARY KEY,
    people  BIGINT NOT NULL
);

INSERT INTO team_sizes (team_id, people)
SELECT coalesce(main_team_id, 0), COUNT(*) FROM people WHERE left_at IS NULL GROUP BY coalesce(main_team_id, 0);

CREATE FUNCTION team_sizes_person_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' THEN
        IF OLD.left_at IS NULL THEN
            UPDATE team_sizes SET people = people - 1 WHERE team_id = coalesce(OLD.main_team_id, 0);
        END IF;
    END IF;
    IF TG_OP <> 'DELETE' THEN
        IF NEW.left_at IS NULL THEN
            INSERT INTO team_sizes (team_id, people) VALUES (coalesce(NEW.main_team_id, 0), 1)
            ON CONFLICT (team_id) DO UPDATE SET people = team_sizes.people + 1;
        END IF;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER team_sizes_person_added AFTER INSERT ON people
    FOR EACH ROW EXECUTE FUNCTION team_sizes_person_changed();
-- Only a change of main team or of leaving touches the count, so a password or a manager changed
-- takes no lock on it.
CREATE TRIGGER team_sizes_person_changed AFTER UPDATE OF main_team_id, left_at ON people
    FOR EACH ROW
    WHEN (OLD.main_team_id IS DISTINCT FROM NEW.main_team_id OR OLD.left_at IS DISTINCT FROM NEW.left_at)
    EXECUTE FUNCTION team_sizes_person_changed();
CREATE TRIGGER team_sizes_person_removed AFTER DELETE ON people
    FOR EACH ROW EXECUTE FUNCTION team_sizes_person_changed();
