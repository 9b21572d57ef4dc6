import { z } from "zod";
import type { CallMeta } from "@/context";
import type { FieldIssue } from "@/errors";
import { issueSummary, parseInput, zodIssues } from "@/lib/validate";
import { assertQuotaFits } from "@/usage/quota";
import { withAdmittedScreens } from "@/usage/rate-limit";
import { commitScreenings } from "./commit";
import { requireLists, type ScreeningDeps } from "./deps";
import { optionsForTenant } from "./options";
import { runScreening } from "./run";
import { hasControlCharacter } from "@/lib/control-characters";
import { MAX_BULK_ROWS, MAX_USER_REFERENCE_LENGTH, normaliseSubject, type ScreeningSubject, Subject } from "./subject";
import type { SourceList } from "@/watchlists/entity";
import type { ScreeningRecord } from "./types";
import { outcomeSummary } from "./view";

/**
 * Matching time between two yields to the event loop, so single screens keep flowing during a bulk.
 * A time budget, not a row count: rows cost 0.1 ms or, with long names and 20 aliases, 100 times
 * that, and 25 such rows held every other tenant's requests for over a second.
 */
const YIELD_AFTER_MS = 4;

const BulkBody = z
  .array(z.unknown())
  .min(1, "must hold at least one subject")
  .max(MAX_BULK_ROWS, `must hold at most ${MAX_BULK_ROWS} subjects`);

export interface BulkRowError {
  code: "VALIDATION_FAILED" | "INTERNAL";
  detail: string;
  errors: FieldIssue[];
}

export interface BulkRowSummary {
  index: number;
  status: "screened" | "failed";
  screeningId: string | null;
  userReference: string | null;
  decision: ScreeningRecord["decision"] | null;
  isMatch: boolean | null;
  score: number | null;
  riskScore: number | null;
  riskBand: ScreeningRecord["riskBand"] | null;
  classification: ScreeningRecord["classification"];
  pepTiers: ScreeningRecord["pepTiers"];
  sourceLists: ScreeningRecord["sourceLists"];
  matchCount: number | null;
  adverseMediaStatus: ScreeningRecord["adverseMediaStatus"] | null;
  /** Selected lists the snapshot did not hold, so not checked; null for a failed row. */
  listsNotLoaded: SourceList[] | null;
  /** Selected lists older than maxDataAgeDays, undated or not loaded; null for a failed row. */
  listsStale: SourceList[] | null;
  error: BulkRowError | null;
}

export interface BulkResult {
  rows: BulkRowSummary[];
  summary: { total: number; screened: number; failed: number };
  /** The validated subjects by row index (for the CSV rendering); absent for rows that failed validation. */
  subjects: Map<number, ScreeningSubject>;
  /** For rows that failed validation, the fullName as sent when it was a string (for the CSV rendering). */
  sentNames: Map<number, string>;
}

export interface BulkArgs {
  tenantId: string;
  input: unknown;
  meta: CallMeta;
}

/**
 * Synchronous bulk screen. The request as a whole is refused (400, nothing screened or charged) when
 * it is not a non-empty array of at most 1,000 rows, and with 429 when its valid rows do not fit in
 * the remaining quota, or the tenant is at its cap (even with no valid row). Otherwise rows are
 * isolated: an invalid row or one whose matching fails gets an error entry, and every screened row is
 * stored, charged and announced in one transaction.
 */
export async function bulkScreen(deps: ScreeningDeps, args: BulkArgs): Promise<BulkResult> {
  const rows = parseInput(BulkBody, args.input, "Bulk request");
  const results: BulkRowSummary[] = new Array(rows.length);
  const subjects = new Map<number, ScreeningSubject>();
  const sentNames = new Map<number, string>();
  rows.forEach((row, index) => {
    const parsed = Subject.safeParse(row);
    if (parsed.success) {
      subjects.set(index, normaliseSubject(parsed.data));
      return;
    }
    const errors = zodIssues(parsed.error);
    results[index] = failedRow(index, row, { code: "VALIDATION_FAILED", detail: `The subject is invalid: ${issueSummary(errors, "row")}.`, errors });
    const sent = sentName(row);
    if (sent !== null) sentNames.set(index, sent);
  });

  const now = deps.clock.now();
  // "At the cap, screening calls return 429": a bulk with no valid row is one too, though it would
  // screen nothing. Below the cap such a request is a 200 of failed rows, charged nothing.
  assertQuotaFits(deps.db, args.tenantId, Math.max(1, subjects.size), now);
  const screened: ScreeningRecord[] = [];
  if (subjects.size > 0) {
    const options = optionsForTenant(deps.db, args.tenantId);
    // One snapshot for the whole request, even if a new one is swapped in while it runs.
    const lists = requireLists(deps);
    await withAdmittedScreens(deps, args.tenantId, subjects.size, async (giveBack) => {
      let sliceStart = performance.now();
      for (const [index, subject] of subjects) {
        try {
          const record = runScreening(lists, { subject, options, origin: "bulk", rescreenOf: null, correlationId: args.meta.correlationId ?? null }, now);
          screened.push(record);
          results[index] = screenedRow(index, record);
        } catch (error) {
          deps.log.error({ err: error, row: index, correlationId: args.meta.correlationId }, "bulk row failed to screen");
          results[index] = failedRow(index, rows[index], { code: "INTERNAL", detail: "The subject could not be screened.", errors: [] });
        }
        if (performance.now() - sliceStart >= YIELD_AFTER_MS) {
          await new Promise((resolve) => setImmediate(resolve));
          sliceStart = performance.now();
        }
      }
      giveBack(subjects.size - screened.length);
      const committed = commitScreenings(deps, args.tenantId, screened, args.meta, { charge: true });
      if (committed.queued > 0) deps.announce();
    });
  }
  return { rows: results, summary: { total: rows.length, screened: screened.length, failed: rows.length - screened.length }, subjects, sentNames };
}

function screenedRow(index: number, r: ScreeningRecord): BulkRowSummary {
  return {
    index,
    status: "screened",
    screeningId: r.id,
    userReference: r.userReference,
    ...outcomeSummary(r),
    listsNotLoaded: r.listVersions.notLoaded,
    listsStale: r.listVersions.stale,
    error: null,
  };
}

/** A row that was not screened: its error, and the userReference it was sent with (echoReference). */
export function failedRow(index: number, row: unknown, error: BulkRowError): BulkRowSummary {
  return {
    index,
    status: "failed",
    screeningId: null,
    userReference: echoReference(row),
    decision: null,
    isMatch: null,
    score: null,
    riskScore: null,
    riskBand: null,
    classification: null,
    pepTiers: [],
    sourceLists: [],
    matchCount: null,
    adverseMediaStatus: null,
    listsNotLoaded: null,
    listsStale: null,
    error,
  };
}

function sentName(row: unknown): string | null {
  if (row === null || typeof row !== "object" || !("fullName" in row)) return null;
  const name = (row as { fullName: unknown }).fullName;
  return typeof name === "string" ? name : null;
}

/** A failed row keeps the caller's reference when it is a valid one, so the caller can find the row. */
function echoReference(row: unknown): string | null {
  if (row === null || typeof row !== "object" || !("userReference" in row)) return null;
  const ref = (row as { userReference: unknown }).userReference;
  if (typeof ref !== "string") return null;
  const text = ref.trim();
  return text.length > 0 && text.length <= MAX_USER_REFERENCE_LENGTH && !hasControlCharacter(text) ? text : null;
}
