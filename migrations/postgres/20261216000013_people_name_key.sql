-- The folded name indexed with the name beside it, as on SQLite (see its migration of the same
-- name), so both backends hold the same indexes. PostgreSQL reads a search as a bitmap of the
-- three index ranges and a top-50 sort of their rows; the wider index serves it as before.
DROP INDEX people_by_folded_name;
CREATE INDEX people_by_name_key ON people
    ((translate(name, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')) COLLATE "C", name COLLATE "C");
