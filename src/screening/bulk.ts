import { z } from "zod";
import type { CallMeta } from "@/context";
import type { FieldIssue } from "@/errors";
import { issueSummary, parseInput, zodIssues } from "@/lib/validate";
import { assertQuotaFits } from "@/usage/quota";
import { withAdmittedScreens } from "@/usage/rate-limit";
import { groupCommit } from "@/storage/group-commit";
import { commitScreenings } from "./commit";
import { requireLists, type ScreeningDeps } from "./deps";
import { type BulkRowOutcome, findBulkReplay, type IdempotencyClaim, idempotencyClaim, rememberBulkKey } from "./idempotency";
import { findScreening } from "./store";
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
  /** True when an Idempotency-Key replayed an earlier bulk: nothing was screened or charged now. */
  replayed: boolean;
}

export interface BulkArgs {
  tenantId: string;
  input: unknown;
  meta: CallMeta;
  idempotencyKey?: string | null;
}

/**
 * Synchronous bulk screen. The request as a whole is refused (400, nothing screened or charged) when
 * it is not a non-empty array of at most 1,000 rows, and with 429 when its valid rows do not fit in
 * the remaining quota, or the tenant is at its cap (even with no valid row). Otherwise rows are
 * isolated: an invalid row or one whose matching fails gets an error entry, and every screened row is
 * stored, charged and announced in one transaction. With an Idempotency-Key, that transaction also
 * records each row's outcome under the key, and the same key with the same rows later returns those
 * outcomes (the same screenings) without screening, charging or announcing anything, even at the cap.
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
  const request = { rows, subjects, sentNames };

  const now = deps.clock.now();
  // The rows as the key compares them: a valid row as validated (so "Russia" and "RU" are the same
  // row, as they are for check), an invalid one as sent, each tagged so the two forms never meet.
  const claim = idempotencyClaim(args.idempotencyKey ?? null, "bulk", () =>
    rows.map((row, index) => {
      const subject = subjects.get(index);
      return subject ? { valid: subject } : { sent: row };
    }),
  );
  const earlier = claim ? findBulkReplay(deps.db, args.tenantId, claim, now) : null;
  if (earlier) return replayedBulk(deps, args.tenantId, request, earlier);

  // "At the cap, screening calls return 429": a bulk with no valid row is one too, though it would
  // screen nothing. Below the cap such a request is a 200 of failed rows, charged nothing.
  assertQuotaFits(deps.db, args.tenantId, Math.max(1, subjects.size), now);
  const screened: ScreeningRecord[] = [];
  let replay: BulkRowOutcome[] | null = null;
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
      const committed = await commitBulk(deps, args, screened, results, claim);
      // A concurrent request with the same key committed first: this one stored nothing.
      if (committed.replayed) {
        giveBack(screened.length);
        replay = committed.outcomes;
      } else if (committed.queued > 0) deps.announce();
    });
  } else if (claim) {
    const committed = await commitBulk(deps, args, screened, results, claim);
    if (committed.replayed) replay = committed.outcomes;
  }
  if (replay) return replayedBulk(deps, args.tenantId, request, replay);
  return { rows: results, summary: summaryOf(results), subjects, sentNames, replayed: false };
}

type BulkCommit = { replayed: false; queued: number } | { replayed: true; outcomes: BulkRowOutcome[] };

/**
 * Stores the screened rows (commitScreenings) and, with a key, every row's outcome under it, in one
 * transaction; the key is looked up again inside it, so two concurrent requests with one key screen
 * (and charge) once. Through the group commit, whose unit is a savepoint of its own: it waits for a
 * write lock another process holds without stopping the server (storage/group-commit.ts).
 */
function commitBulk(deps: ScreeningDeps, args: BulkArgs, screened: ScreeningRecord[], results: readonly BulkRowSummary[], claim: IdempotencyClaim | null): Promise<BulkCommit> {
  return groupCommit(deps.db).run(
    (): BulkCommit => {
      const now = deps.clock.now();
      const first = claim ? findBulkReplay(deps.db, args.tenantId, claim, now) : null;
      if (first) return { replayed: true, outcomes: first };
      const queued = screened.length > 0 ? commitScreenings(deps, args.tenantId, screened, args.meta, { charge: true }).queued : 0;
      if (claim) rememberBulkKey(deps.db, args.tenantId, claim, results.map(rowOutcome), now, deps.config.idempotencyTtlHours);
      return { replayed: false, queued };
    },
    { recordsOnly: true, alone: true },
  );
}

function rowOutcome(row: BulkRowSummary): BulkRowOutcome {
  if (row.screeningId !== null) return { screeningId: row.screeningId };
  if (row.error !== null) return { error: row.error };
  throw new Error(`bulk row ${row.index} has neither a screening nor an error`);
}

/** The original bulk's rows, read back: each screened row from its stored (immutable) screening. */
function replayedBulk(
  deps: ScreeningDeps,
  tenantId: string,
  request: { rows: unknown[]; subjects: Map<number, ScreeningSubject>; sentNames: Map<number, string> },
  outcomes: readonly BulkRowOutcome[],
): BulkResult {
  if (outcomes.length !== request.rows.length) throw new Error(`bulk key recorded ${outcomes.length} rows for a request of ${request.rows.length}`);
  const rows = outcomes.map((outcome, index) => {
    if ("error" in outcome) return failedRow(index, request.rows[index], outcome.error);
    const record = findScreening(deps.db, tenantId, outcome.screeningId);
    if (!record) throw new Error(`bulk key names screening ${outcome.screeningId}, which is not stored`);
    return screenedRow(index, record);
  });
  return { rows, summary: summaryOf(rows), subjects: request.subjects, sentNames: request.sentNames, replayed: true };
}

function summaryOf(rows: readonly BulkRowSummary[]): BulkResult["summary"] {
  const screened = rows.filter((row) => row.status === "screened").length;
  return { total: rows.length, screened, failed: rows.length - screened };
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
