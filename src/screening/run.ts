import { newId } from "@/lib/ids";
import type { MatchIndex } from "@/matching/index";
import type { ResolvedOptions } from "@/matching/options-resolve";
import { screen } from "@/matching/screen";
import type { ScreenQuery } from "@/matching/types";
import type { AdverseMediaStatus } from "@/webhooks/payload";
import type { SourceList } from "@/watchlists/entity";
import type { LoadedLists } from "@/watchlists/runtime";
import type { ScreeningSubject } from "./subject";
import { selectedListVersions } from "./list-versions";
import type { ScreeningOrigin, ScreeningRecord } from "./types";

export interface ScreenRequest {
  subject: ScreeningSubject;
  options: ResolvedOptions;
  origin: ScreeningOrigin;
  rescreenOf: string | null;
  correlationId: string | null;
}

/**
 * No adverse-media provider exists yet: a requested check reports Unavailable (not looked at, never
 * to be read as clean), an unrequested one Skipped. "Ok" and "Stale" need a provider.
 */
export function adverseMediaStatus(options: ResolvedOptions): AdverseMediaStatus {
  return options.adverseMedia ? "Unavailable" : "Skipped";
}

/**
 * Matches one subject against a loaded snapshot and shapes the screening record. CPU only, no I/O:
 * it runs before the write transaction so the write lock is never held while matching.
 */
export function runScreening(lists: LoadedLists<MatchIndex>, request: ScreenRequest, now: Date): ScreeningRecord {
  const sourcePublishedAt: Partial<Record<SourceList, string | null>> = {};
  for (const version of lists.versions) sourcePublishedAt[version.source] = version.publishedAt;
  const { subject, options } = request;
  const query: ScreenQuery = {
    fullName: subject.fullName,
    aliases: subject.aliases,
    dateOfBirth: subject.dateOfBirth,
    nationality: subject.nationality,
  };
  const result = screen(lists.index, query, options, { sourcePublishedAt, now });
  const outcome = result.outcome;
  return {
    id: newId(),
    createdAt: now.toISOString(),
    correlationId: request.correlationId,
    userReference: subject.userReference,
    subject,
    options,
    listVersions: selectedListVersions(lists, options, now),
    isMatch: outcome.isMatch,
    score: outcome.score,
    decision: outcome.decision,
    riskScore: outcome.riskScore,
    riskBand: outcome.riskBand,
    classification: outcome.classification,
    pepTiers: [...outcome.pepTiers],
    sourceLists: [...outcome.sourceLists],
    matchCount: outcome.matchCount,
    matches: [...result.matches],
    suppressedMatches: [...result.suppressedMatches],
    adverseMediaStatus: adverseMediaStatus(options),
    rescreenOf: request.rescreenOf,
    origin: request.origin,
  };
}

