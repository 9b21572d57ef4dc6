import type { ResolvedOptions } from "@/matching/options-resolve";
import type { Classification, Decision, RiskBand } from "@/matching/outcome";
import type { Match } from "@/matching/types";
import type { AdverseMediaStatus } from "@/webhooks/payload";
import type { PepTier, SourceList } from "@/watchlists/entity";
import type { ScreeningSubject } from "./subject";

export const SCREENING_ORIGINS = ["check", "bulk", "batch", "rescreen", "monitoring"] as const;
export type ScreeningOrigin = (typeof SCREENING_ORIGINS)[number];

export interface ListVersionRef {
  source: SourceList;
  versionId: string;
  publishedAt: string | null;
  /** The version is the FICTIONAL demo list (`aml serve --demo`), not official data. */
  isDemo: boolean;
}

/** The watchlist data a screening read: the snapshot and each source's immutable version. */
export interface ScreeningListVersions {
  snapshotId: string;
  /** The versions of the lists the screen selected (options.lists) that the snapshot held. */
  sources: ListVersionRef[];
  /**
   * Lists the screen selected that the snapshot did not hold, so were NOT checked: a Clear says
   * nothing about them. Derived on read from options.lists and sources, so records stored before
   * this field existed show it too.
   */
  notLoaded: SourceList[];
  /**
   * Selected lists older than options.maxDataAgeDays at the screen's time (publication date before
   * createdAt minus the limit), undated, or not loaded: a Clear rests on old data for them. [] without
   * a limit. Each match from such a list is flagged staleSource too. Derived on read from the
   * sources' dates, the options and createdAt, like notLoaded.
   */
  stale: SourceList[];
  /**
   * True when any source read is the FICTIONAL demo list: the decision says nothing about real
   * sanctions or PEP data. Derived from sources, so it can never disagree with them.
   */
  isDemo: boolean;
}

/** A finished screening: immutable once stored (the database refuses UPDATE and DELETE). */
export interface ScreeningRecord {
  id: string;
  createdAt: string;
  /** Correlation id of the request that created the screening (also on its webhook). */
  correlationId: string | null;
  userReference: string | null;
  subject: ScreeningSubject;
  /** Resolved options: the tenant's profile, the request's overrides and the tenant's enabled lists. */
  options: ResolvedOptions;
  listVersions: ScreeningListVersions;
  isMatch: boolean;
  score: number;
  decision: Decision;
  riskScore: number;
  riskBand: RiskBand;
  classification: Classification | null;
  pepTiers: PepTier[];
  sourceLists: SourceList[];
  matchCount: number;
  matches: Match[];
  suppressedMatches: Match[];
  adverseMediaStatus: AdverseMediaStatus;
  rescreenOf: string | null;
  origin: ScreeningOrigin;
}
