-- 0005's triggers refuse an insert that meets an existing key, but these are rowid tables: an
-- INSERT OR REPLACE that names the hidden rowid of a stored row meets it there instead, and its
-- conflict resolution deletes that row without firing DELETE triggers (recursive_triggers is off on
-- a sqlite3 shell). Two such statements rewrote a stored screening under its own id on a connection
-- with foreign keys off. Each trigger now also refuses an insert whose rowid is taken. An insert
-- that does not name the rowid has none yet (NEW.rowid is -1 here), so it pays one probe that finds
-- nothing.
-- Never edit a released migration: add a new file instead.

DROP TRIGGER screenings_no_replace;
CREATE TRIGGER screenings_no_replace BEFORE INSERT ON screenings
WHEN EXISTS (SELECT 1 FROM screenings WHERE id = NEW.id)
  OR EXISTS (SELECT 1 FROM screenings WHERE rowid = NEW.rowid)
BEGIN SELECT RAISE(ABORT, 'a screening is immutable once written'); END;

DROP TRIGGER audit_log_no_replace;
CREATE TRIGGER audit_log_no_replace BEFORE INSERT ON audit_log
WHEN EXISTS (SELECT 1 FROM audit_log WHERE id = NEW.id)
  OR EXISTS (SELECT 1 FROM audit_log WHERE chain = NEW.chain AND seq = NEW.seq)
  OR EXISTS (SELECT 1 FROM audit_log WHERE rowid = NEW.rowid)
BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;

DROP TRIGGER list_versions_no_replace;
CREATE TRIGGER list_versions_no_replace BEFORE INSERT ON list_versions
WHEN EXISTS (SELECT 1 FROM list_versions WHERE id = NEW.id)
  OR EXISTS (SELECT 1 FROM list_versions WHERE rowid = NEW.rowid)
BEGIN SELECT RAISE(ABORT, 'list versions are immutable'); END;

DROP TRIGGER list_snapshots_no_replace;
CREATE TRIGGER list_snapshots_no_replace BEFORE INSERT ON list_snapshots
WHEN EXISTS (SELECT 1 FROM list_snapshots WHERE id = NEW.id)
  OR EXISTS (SELECT 1 FROM list_snapshots WHERE rowid = NEW.rowid)
BEGIN SELECT RAISE(ABORT, 'list snapshots are immutable'); END;
