-- How numbers, amounts and dates read to people (a locale name such as en-IN). A company made
-- before it was asked for reads in United States English until an admin says otherwise.
ALTER TABLE company ADD COLUMN locale TEXT NOT NULL DEFAULT 'en-US';
