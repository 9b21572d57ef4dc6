-- The lists a version was read from (OFAC publishes two: the SDN list and the consolidated non-SDN
-- list, both one source), as JSON [{files, records, sampleIds}]. The next import checks that each is
-- still there: the non-SDN list is about 2.4% of OFAC's records, too few for the mass-removal guard,
-- and an import of the SDN files alone would otherwise drop it and screen its parties as Clear.
-- NULL for versions imported before this, and for PEP data.
-- Never edit a released migration: add a new file instead.

ALTER TABLE list_versions ADD COLUMN lists TEXT;
