-- What a question finds a lesson by, kept when the lesson is written: its terms (split, folded
-- and stemmed) and its words, as the engine makes them (`LessonTerms::to_stored`). A run then
-- ranks the lessons it reads without stemming each. Lessons kept before have none, and a run
-- makes theirs when it reads them.
ALTER TABLE lessons ADD COLUMN match_terms TEXT;
