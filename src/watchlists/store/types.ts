import type { SourceList, WatchlistEntity } from "../entity";

export interface ImportedFile {
  name: string;
  bytes: number;
  sha256: string;
}

/** One source's parsed content, ready to become a list version. */
export interface SourceImport {
  source: SourceList;
  format: string;
  publishedAt: string | null;
  files: ImportedFile[];
  entities: Iterable<WatchlistEntity> | AsyncIterable<WatchlistEntity>;
  warnings: string[];
  isDemo?: boolean;
}

export interface ListVersion {
  id: string;
  source: SourceList;
  format: string;
  publishedAt: string | null;
  importedAt: string;
  importedBy: string;
  sha256: string;
  files: ImportedFile[];
  entityCount: number;
  nameCount: number;
  previousVersionId: string | null;
  diff: { added: number; removed: number; changed: number; unchanged: number };
  warnings: string[];
  isDemo: boolean;
}

export interface ListSnapshot {
  id: string;
  createdAt: string;
  versions: Partial<Record<SourceList, string>>;
  isDemo: boolean;
}

export interface SourceImportResult {
  source: SourceList;
  status: "imported" | "unchanged";
  version: ListVersion;
}

export interface ImportReport {
  snapshot: ListSnapshot | null;
  results: SourceImportResult[];
  durationMs: number;
}

export type ImportProgress = (event: { source: SourceList; phase: "entities" | "diff" | "commit"; done: number }) => void;
