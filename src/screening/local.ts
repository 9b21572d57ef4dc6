import type { Db } from "@/storage/db";
import { zodIssues } from "@/lib/validate";
import { startIndex, type MatchIndex } from "@/matching/index";
import type { RiskProfileOverrides } from "@/matching/options";
import { type ResolvedOptions, resolveOptions } from "@/matching/options-resolve";
import type { Logger } from "@/lib/logger";
import { type LoadedLists, NO_LIST_IMPORTED, WatchlistRuntime } from "@/watchlists/runtime";
import { ServiceError } from "@/errors";
import { findTenantRow } from "@/tenants/internal";
import { optionsForTenant } from "./options";
import { runScreening } from "./run";
import { normaliseSubject, type ScreeningSubject, Subject } from "./subject";
import type { SubjectFileRow } from "./subject-file";
import { outcomeSummary } from "./view";

/**
 * Screening on the appliance itself, without the server: `aml screen`. It reads the data folder's
 * current snapshot and stores nothing — no screening, case, audit entry, usage or webhook.
 */
export async function loadCurrentLists(db: Db, log: Logger): Promise<LoadedLists<MatchIndex>> {
  const runtime = new WatchlistRuntime(db, startIndex, log);
  await runtime.refresh();
  const loaded = runtime.current();
  if (!loaded) throw new ServiceError("NOT_READY", runtime.notServingReason() ?? NO_LIST_IMPORTED);
  return loaded;
}

/**
 * The options a local screen uses: the documented defaults, or the tenant's profile. `suspended` says
 * the tenant is suspended: its profile still applies (an operator may check what it would have got),
 * but the API refuses its screens, so the caller says so.
 */
export function localOptions(db: Db, tenantRef: string | null, overrides: RiskProfileOverrides): { options: ResolvedOptions; suspended: boolean } {
  if (tenantRef === null) return { options: resolveOptions({}, overrides), suspended: false };
  const tenant = findTenantRow(db, tenantRef);
  if (!tenant) throw new ServiceError("NOT_FOUND", `Tenant ${tenantRef} not found`);
  return { options: optionsForTenant(db, tenant.id, overrides), suspended: tenant.status === "suspended" };
}

export type LocalResult =
  | {
      line: number;
      subject: ScreeningSubject;
      decision: string;
      isMatch: boolean;
      score: number;
      riskScore: number;
      riskBand: string;
      classification: string | null;
      matchCount: number;
      sourceLists: string[];
      pepTiers: string[];
      adverseMediaStatus: string;
      /** Selected lists the snapshot did not hold: not checked, so a Clear says nothing about them. */
      listsNotLoaded: string[];
      /** Selected lists older than maxDataAgeDays, undated or not loaded: a Clear rests on old data for them. */
      listsStale: string[];
      matches: Array<{ source: string; externalId: string; matchedName: string; score: number }>;
    }
  | { line: number; error: { detail: string; errors: Array<{ field: string; message: string }> } };

export function screenLocally(lists: LoadedLists<MatchIndex>, row: SubjectFileRow, options: ResolvedOptions, now: Date): LocalResult {
  if (row.input instanceof Error) return { line: row.line, error: { detail: row.input.message, errors: [] } };
  const parsed = Subject.safeParse(row.input);
  if (!parsed.success) return { line: row.line, error: { detail: "The subject is invalid.", errors: zodIssues(parsed.error) } };
  const subject = normaliseSubject(parsed.data);
  const r = runScreening(lists, { subject, options, origin: "check", rescreenOf: null, correlationId: null }, now);
  return {
    line: row.line,
    subject,
    ...outcomeSummary(r),
    listsNotLoaded: r.listVersions.notLoaded,
    listsStale: r.listVersions.stale,
    matches: r.matches.map((m) => ({ source: m.source, externalId: m.externalId, matchedName: m.matchedName, score: m.score })),
  };
}
