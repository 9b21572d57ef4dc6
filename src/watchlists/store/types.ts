import type { ListPart } from "../editions";
import type { CutShortFile } from "../errors";
import type { SourceList, WatchlistEntity } from "../entity";

export interface ImportedFile {
  name: string;
  bytes: number;
  sha256: string;
}

/** An entity as list_entities stores it: its JSON, the SHA-256 of that JSON, and its name count. */
export interface EntityRow {
  externalId: string;
  contentHash: string;
  data: string;
  nameCount: number;
}

/** One source's parsed content, ready to become a list version. */
export interface SourceImport {
  source: SourceList;
  format: string;
  publishedAt: string | null;
  files: ImportedFile[];
  /** recordImport empties an array of entities once it has written them, so the collector may have them. */
  entities: Iterable<WatchlistEntity> | AsyncIterable<WatchlistEntity>;
  /**
   * When set, the entities as rows, already serialised and hashed where they were parsed (a PEP
   * stream's worker thread), in batches; `entities` is then empty and not read.
   */
  rowBatches?: AsyncIterable<readonly EntityRow[]>;
  warnings: string[];
  isDemo?: boolean;
  /** The lists it was read from (OFAC: SDN and non-SDN), kept so that the next import can tell one missing. */
  lists?: ListPart[];
  /** Main tables its own companion files show to be cut short: refused unless mass removal is allowed. */
  cutShort?: CutShortFile[];
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
  /** Files given more than once (identical content): each was read once. */
  duplicateFiles: DuplicateFile[];
}

/** What recordImport reports; importListFiles adds the files it did not read twice. */
export type RecordedImport = Omit<ImportReport, "duplicateFiles">;

/** A file whose content is identical to an earlier file of the same import, so it was not read again. */
export interface DuplicateFile {
  /** Its path (the CLI) or upload name. */
  file: string;
  /** The earlier file with the same content, which was read. */
  sameAs: string;
}

export type ImportProgress = (event: { source: SourceList; phase: "entities" | "diff" | "commit"; done: number }) => void;
