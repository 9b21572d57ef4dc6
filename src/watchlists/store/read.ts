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

/** Entities read per statement by versionEntities. */
const ENTITY_PAGE = 1_000;

/**
 * Streams a version's entities in their import order, a page at a time, each page read by a
 * statement run to its end. The reader (a snapshot load) yields to the event loop between entities,
 * and the server commits on this same connection meanwhile: one statement left open across those
 * yields would pin the connection to its read snapshot, and the first BEGIN IMMEDIATE after another
 * process's commit would fail with SQLITE_BUSY_SNAPSHOT, which busy_timeout does not retry. A
 * version never changes once written, so pages read in different snapshots still make one whole.
 */
export function* versionEntities(db: Db, versionId: string): Generator<WatchlistEntity> {
  const page = db.sqlite.query<{ ordinal: number; data: string }, [string, number, number]>(
    "SELECT ordinal, data FROM list_entities WHERE version_id = ? AND ordinal > ? ORDER BY ordinal LIMIT ?",
  );
  let after = -1;
  for (;;) {
    const rows = page.all(versionId, after, ENTITY_PAGE);
    for (const row of rows) yield JSON.parse(row.data) as WatchlistEntity;
    const last = rows.at(-1);
    if (!last || rows.length < ENTITY_PAGE) return;
    after = last.ordinal;
  }
}
