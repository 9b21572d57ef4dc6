import { publishedAtUtc } from "../published-at";
import type { SourceList } from "../entity";
import type { ListSnapshot, ListVersion } from "./types";

export interface VersionRow {
  id: string;
  source: string;
  format: string;
  published_at: string | null;
  imported_at: string;
  imported_by: string;
  sha256: string;
  files: string;
  entity_count: number;
  name_count: number;
  previous_version_id: string | null;
  added: number;
  removed: number;
  changed: number;
  unchanged: number;
  warnings: string;
  is_demo: number;
  /** JSON ListPart[]: the lists the version was read from; null before 0013 and for PEP data. */
  lists: string | null;
}

export interface SnapshotRow {
  id: string;
  created_at: string;
  versions: string;
  is_demo: number;
}

export function toVersion(row: VersionRow): ListVersion {
  return {
    id: row.id,
    source: row.source as SourceList,
    format: row.format,
    // Versions imported before normalisation kept the publisher's form; new ones are stored normalised.
    publishedAt: publishedAtUtc(row.published_at),
    importedAt: row.imported_at,
    importedBy: row.imported_by,
    sha256: row.sha256,
    files: JSON.parse(row.files) as ListVersion["files"],
    entityCount: row.entity_count,
    nameCount: row.name_count,
    previousVersionId: row.previous_version_id,
    diff: { added: row.added, removed: row.removed, changed: row.changed, unchanged: row.unchanged },
    warnings: JSON.parse(row.warnings) as string[],
    isDemo: row.is_demo === 1,
  };
}

export function toSnapshot(row: SnapshotRow): ListSnapshot {
  return {
    id: row.id,
    createdAt: row.created_at,
    versions: JSON.parse(row.versions) as ListSnapshot["versions"],
    isDemo: row.is_demo === 1,
  };
}
