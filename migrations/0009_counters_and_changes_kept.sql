-- Two tables that nothing rewrites, guarded like the others (a reviewer changed both with plain SQL):
-- a usage counter only grows (chargeScreens' upsert adds to it; the month's row is never removed), so
-- a counter set back to 0 cannot hand a tenant its quota again; and a committed list version's change
-- rows are kept with it, as its entities are. Change rows of a version not committed yet are orphans
-- that recordImport removes, so only those may be deleted.
-- Never edit a released migration: add a new file instead.

CREATE TRIGGER usage_counters_only_grow BEFORE UPDATE ON usage_counters
WHEN NEW.used < OLD.used OR NEW.tenant_id IS NOT OLD.tenant_id OR NEW.period IS NOT OLD.period
BEGIN SELECT RAISE(ABORT, 'usage counters only grow'); END;
CREATE TRIGGER usage_counters_kept BEFORE DELETE ON usage_counters
BEGIN SELECT RAISE(ABORT, 'usage counters are kept'); END;

CREATE TRIGGER list_changes_immutable BEFORE UPDATE ON list_changes
BEGIN SELECT RAISE(ABORT, 'list changes are immutable'); END;
CREATE TRIGGER list_changes_kept BEFORE DELETE ON list_changes
WHEN EXISTS (SELECT 1 FROM list_versions WHERE id = OLD.version_id)
BEGIN SELECT RAISE(ABORT, 'changes of a committed list version are kept'); END;
