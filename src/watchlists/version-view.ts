import type { SourceList } from "./entity";
import { ageInDays } from "./published-at";
import type { LoadedLists } from "./runtime";
import type { ListVersion } from "./store/types";

export const DEMO_NOTICE =
  "DEMO DATA: the serving lists are a small set of FICTIONAL entities shipped with the appliance. No official list has been imported; results mean nothing for compliance. Import official files with `aml lists import` or POST /v1/lists/import.";

export interface SourceVersionView {
  source: SourceList;
  versionId: string;
  format: string;
  publishedAt: string | null;
  /** Whole days between the publication date and now; null when the file carries no date. */
  ageDays: number | null;
  importedAt: string;
  entityCount: number;
  nameCount: number;
  sha256: string;
  files: ListVersion["files"];
  previousVersionId: string | null;
  diff: ListVersion["diff"];
  isDemo: boolean;
}

export interface ListsVersionView {
  versionId: string;
  createdAt: string;
  loadedAt: string;
  isDemo: boolean;
  notice: string | null;
  sources: SourceVersionView[];
}

/** GET /v1/lists/version: the serving snapshot and, per source, where its data came from. */
export function listsVersionView<Index>(loaded: LoadedLists<Index>, now: Date): ListsVersionView {
  const isDemo = loaded.snapshot.isDemo;
  return {
    versionId: loaded.snapshot.id,
    createdAt: loaded.snapshot.createdAt,
    loadedAt: loaded.loadedAt,
    isDemo,
    notice: isDemo ? DEMO_NOTICE : null,
    sources: loaded.versions.map((v) => ({
      source: v.source,
      versionId: v.id,
      format: v.format,
      publishedAt: v.publishedAt,
      ageDays: ageInDays(v.publishedAt, now),
      importedAt: v.importedAt,
      entityCount: v.entityCount,
      nameCount: v.nameCount,
      sha256: v.sha256,
      files: v.files,
      previousVersionId: v.previousVersionId,
      diff: v.diff,
      isDemo: v.isDemo,
    })),
  };
}
