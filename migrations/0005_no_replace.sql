-- Immutable rows cannot be replaced either. The UPDATE and DELETE triggers of 0000, 0001 and 0003
-- do not see INSERT OR REPLACE (or REPLACE INTO): its conflict resolution deletes the old row without
-- firing DELETE triggers unless PRAGMA recursive_triggers is on, and that pragma is per connection,
-- so a sqlite3 shell would not have it. An insert that would meet an existing key is refused here,
-- before conflict resolution runs, whatever the connection's settings.
-- Never edit a released migration: add a new file instead.

-- A screening is the audit record of a decision: its id is its only key.
CREATE TRIGGER screenings_no_replace BEFORE INSERT ON screenings
WHEN EXISTS (SELECT 1 FROM screenings WHERE id = NEW.id)
BEGIN SELECT RAISE(ABORT, 'a screening is immutable once written'); END;

-- The audit chain has two keys, the id and the (chain, seq) position; a replace on either would
-- rewrite history (verify would catch it through the hashes, but it should never get that far).
CREATE TRIGGER audit_log_no_replace BEFORE INSERT ON audit_log
WHEN EXISTS (SELECT 1 FROM audit_log WHERE id = NEW.id)
  OR EXISTS (SELECT 1 FROM audit_log WHERE chain = NEW.chain AND seq = NEW.seq)
BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;

CREATE TRIGGER list_versions_no_replace BEFORE INSERT ON list_versions
WHEN EXISTS (SELECT 1 FROM list_versions WHERE id = NEW.id)
BEGIN SELECT RAISE(ABORT, 'list versions are immutable'); END;

CREATE TRIGGER list_snapshots_no_replace BEFORE INSERT ON list_snapshots
WHEN EXISTS (SELECT 1 FROM list_snapshots WHERE id = NEW.id)
BEGIN SELECT RAISE(ABORT, 'list snapshots are immutable'); END;

-- An import writes its entities before its version row (record.ts), so no entity may be added to a
-- version that is already committed; that also covers replacing one. One primary-key probe of the
-- small list_versions table per row: about 1 µs, about 1 s on a million-row import.
CREATE TRIGGER list_entities_no_replace BEFORE INSERT ON list_entities
WHEN EXISTS (SELECT 1 FROM list_versions WHERE id = NEW.version_id)
BEGIN SELECT RAISE(ABORT, 'entities of a committed list version are immutable'); END;
