-- Watchlist versions: every import of a source is a new, immutable version with its entities.
-- A snapshot pins one version per source; screenings record the snapshot (and so every version) they used.
-- Never edit a released migration: add a new file instead.

CREATE TABLE list_versions (
  id TEXT PRIMARY KEY,
  source TEXT NOT NULL CHECK (source IN ('OFAC', 'EU', 'UK', 'UN', 'WIKIDATA')),
  format TEXT NOT NULL,
  published_at TEXT,                      -- publication date found inside the file
  imported_at TEXT NOT NULL,
  imported_by TEXT NOT NULL,
  sha256 TEXT NOT NULL,                   -- over the source's files, in name order
  files TEXT NOT NULL,                    -- JSON [{name, bytes, sha256}]
  entity_count INTEGER NOT NULL,
  name_count INTEGER NOT NULL,
  previous_version_id TEXT,
  added INTEGER NOT NULL,
  removed INTEGER NOT NULL,
  changed INTEGER NOT NULL,
  unchanged INTEGER NOT NULL,
  warnings TEXT NOT NULL DEFAULT '[]',
  is_demo INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX list_versions_source ON list_versions (source, imported_at);

-- Entities are written in chunks before their version row exists (an import of 1M PEPs must not
-- hold the write lock for seconds); rows whose version never committed are orphans from a crash
-- and are the only ones that may be deleted.
CREATE TABLE list_entities (
  version_id TEXT NOT NULL,
  ordinal INTEGER NOT NULL,
  external_id TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  data TEXT NOT NULL,                     -- JSON WatchlistEntity
  PRIMARY KEY (version_id, ordinal)
) WITHOUT ROWID;

CREATE TABLE list_changes (
  version_id TEXT NOT NULL,
  external_id TEXT NOT NULL,
  change TEXT NOT NULL CHECK (change IN ('added', 'removed', 'changed')),
  PRIMARY KEY (version_id, external_id)
) WITHOUT ROWID;

CREATE TABLE list_snapshots (
  id TEXT PRIMARY KEY,
  created_at TEXT NOT NULL,
  versions TEXT NOT NULL,                 -- JSON {source: versionId}
  is_demo INTEGER NOT NULL DEFAULT 0
);

CREATE TRIGGER list_versions_immutable BEFORE UPDATE ON list_versions
BEGIN SELECT RAISE(ABORT, 'list versions are immutable'); END;
CREATE TRIGGER list_versions_kept BEFORE DELETE ON list_versions
BEGIN SELECT RAISE(ABORT, 'list versions are kept'); END;
CREATE TRIGGER list_entities_immutable BEFORE UPDATE ON list_entities
BEGIN SELECT RAISE(ABORT, 'list entities are immutable'); END;
CREATE TRIGGER list_entities_kept BEFORE DELETE ON list_entities
WHEN EXISTS (SELECT 1 FROM list_versions WHERE id = OLD.version_id)
BEGIN SELECT RAISE(ABORT, 'entities of a committed list version are kept'); END;
CREATE TRIGGER list_snapshots_immutable BEFORE UPDATE ON list_snapshots
BEGIN SELECT RAISE(ABORT, 'list snapshots are immutable'); END;
CREATE TRIGGER list_snapshots_kept BEFORE DELETE ON list_snapshots
BEGIN SELECT RAISE(ABORT, 'list snapshots are kept'); END;
