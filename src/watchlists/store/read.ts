import type { Db } from "@/storage/db";
import type { WatchlistEntity } from "../entity";
import { type SnapshotRow, toSnapshot, toVersion, type VersionRow } from "./rows";
import type { ListSnapshot, ListVersion } from "./types";

export function latestSnapshot(db: Db): ListSnapshot | null {
  const row = db.sqlite.query<SnapshotRow, []>("SELECT * FROM list_snapshots ORDER BY id DESC LIMIT 1").get();
  return row ? toSnapshot(row) : null;
}

export function latestSnapshotId(db: Db): string | null {
  return db.sqlite.query<{ id: string }, []>("SELECT id FROM list_snapshots ORDER BY id DESC LIMIT 1").get()?.id ?? null;
}

export function getSnapshot(db: Db, id: string): ListSnapshot | null {
  const row = db.sqlite.query<SnapshotRow, [string]>("SELECT * FROM list_snapshots WHERE id = ?").get(id);
  return row ? toSnapshot(row) : null;
}

export function getVersion(db: Db, id: string): ListVersion | null {
  const row = db.sqlite.query<VersionRow, [string]>("SELECT * FROM list_versions WHERE id = ?").get(id);
  return row ? toVersion(row) : null;
}

export function snapshotVersions(db: Db, snapshot: ListSnapshot): ListVersion[] {
  return Object.values(snapshot.versions)
    .map((id) => getVersion(db, id))
    .filter((v): v is ListVersion => v !== null)
    .sort((a, b) => a.source.localeCompare(b.source));
}

/** Every version ever imported, newest first (for `aml lists status` and the version history). */
export function listVersions(db: Db, limit = 100): ListVersion[] {
  return db.sqlite
    .query<VersionRow, [number]>("SELECT * FROM list_versions ORDER BY id DESC LIMIT ?")
    .all(limit)
    .map(toVersion);
}

/** Streams a version's entities in their import order. */
export function* versionEntities(db: Db, versionId: string): Generator<WatchlistEntity> {
  const rows = db.sqlite
    .query<{ data: string }, [string]>("SELECT data FROM list_entities WHERE version_id = ? ORDER BY ordinal")
    .iterate(versionId);
  for (const row of rows) yield JSON.parse(row.data) as WatchlistEntity;
}
