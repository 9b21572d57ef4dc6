import { ServiceError } from "@/errors";
import { secondsUntilNextUtcMonth, startOfNextUtcMonth, utcMonth } from "@/lib/clock";
import { oncePer } from "@/lib/once-per";
import type { Db } from "@/storage/db";
import { advanceHead, readHead } from "@/storage/row-cache";

export interface Usage {
  used: number;
  limit: number | null;
  /** With no limit this is 2^53-1 (the largest exact JSON integer), so `remaining >= n` checks still pass. */
  remaining: number;
  unlimited: boolean;
}

export const UNLIMITED_REMAINING = Number.MAX_SAFE_INTEGER;

function readState(db: Db, tenantId: string, period: string): { used: number; limit: number | null } {
  const row = db.sqlite
    .query<{ limit: number | null; used: number | null }, [string, string]>(
      `SELECT t.monthly_quota AS "limit", u.used AS used
         FROM tenants t LEFT JOIN usage_counters u ON u.tenant_id = t.id AND u.period = ?
        WHERE t.id = ?`,
    )
    .get(period, tenantId);
  if (!row) throw new ServiceError("NOT_FOUND", `Tenant ${tenantId} not found`);
  return { used: row.used ?? 0, limit: row.limit };
}

/**
 * Per connection, the tenants whose last quota read or charge left room for another screen, with the
 * period it was for. The single-screen pre-check trusts this instead of reading: the pre-check is
 * advisory (chargeScreens in the commit decides), so a stale "room" costs one matching that the
 * commit then refuses with 429. Only room is remembered, never its absence, so a quota raised by the
 * CLI in another process applies to the very next request.
 */
const roomLeft = oncePer((_db: Db) => new Map<string, string>());

function remember(db: Db, tenantId: string, period: string, usage: Usage): Usage {
  const tenants = roomLeft(db);
  if (usage.remaining >= 1) tenants.set(tenantId, period);
  else tenants.delete(tenantId);
  return usage;
}

function toUsage(state: { used: number; limit: number | null }): Usage {
  if (state.limit === null) return { used: state.used, limit: null, remaining: UNLIMITED_REMAINING, unlimited: true };
  return { used: state.used, limit: state.limit, remaining: Math.max(0, state.limit - state.used), unlimited: false };
}

/** Current UTC calendar month's usage. */
export function getUsage(db: Db, tenantId: string, at: Date): Usage {
  return toUsage(readState(db, tenantId, utcMonth(at)));
}

/** What GET /v1/usage answers: the usage, and which month it counts and when that month's counter resets. */
export interface UsageReport extends Usage {
  /** "YYYY-MM", the UTC calendar month counted; the same `period` a 429 names. */
  period: string;
  /** ISO 8601 instant (UTC) when the counter starts again from 0. */
  resetsAt: string;
}

export function usageReport(db: Db, tenantId: string, at: Date): UsageReport {
  return { ...getUsage(db, tenantId, at), period: utcMonth(at), resetsAt: startOfNextUtcMonth(at).toISOString() };
}

/**
 * Checks the quota and charges `count` screens, all or nothing. Must run inside the write
 * transaction that stores the screenings: SQLite's single writer (BEGIN IMMEDIATE) makes the
 * read-compare-increment atomic across requests and processes, so no request passes the cap.
 */
export function chargeScreens(db: Db, tenantId: string, count: number, at: Date): Usage {
  if (!db.sqlite.inTransaction) throw new Error("chargeScreens must run inside a write transaction");
  if (!Number.isInteger(count) || count < 1) throw new Error(`charge count must be a positive integer, got ${count}`);
  const period = utcMonth(at);
  // Through the row cache: under the write lock, the last charge's result is what a read would return.
  const head = `usage:${tenantId}:${period}`;
  const state = readHead(db.sqlite, head, () => readState(db, tenantId, period));
  remember(db, tenantId, period, toUsage(state));
  assertFits(state, count, at);
  // Added to the month's row, inserted only for the month's first charge: the database refuses any
  // insert of a month already counted (0014), which an upsert would be. query() caches the prepared
  // statement; run(sql, params) would compile it again on every screen.
  const added = db.sqlite
    .query<unknown, [number, string, string]>("UPDATE usage_counters SET used = used + ? WHERE tenant_id = ? AND period = ?")
    .run(count, tenantId, period);
  if (added.changes === 0) {
    db.sqlite.query<unknown, [string, string, number]>("INSERT INTO usage_counters (tenant_id, period, used) VALUES (?, ?, ?)").run(tenantId, period, count);
  }
  const charged = { used: state.used + count, limit: state.limit };
  advanceHead(db.sqlite, head, charged);
  return remember(db, tenantId, period, toUsage(charged));
}

/** Throws 429 when `count` more screens would pass the cap; checks only, charges nothing. */
export function assertQuotaFits(db: Db, tenantId: string, count: number, at: Date): Usage {
  const period = utcMonth(at);
  const state = readState(db, tenantId, period);
  const usage = remember(db, tenantId, period, toUsage(state));
  assertFits(state, count, at);
  return usage;
}

/**
 * The pre-check of one screen (check, rescreen): throws 429 when the tenant is at its cap, so such a
 * call does no matching. Reads only when the last read or charge on this connection did not leave
 * room this month (see roomLeft): on a busy appliance that read cost about 40 µs per request.
 */
export function precheckOneScreen(db: Db, tenantId: string, at: Date): void {
  if (roomLeft(db).get(tenantId) === utcMonth(at)) return;
  assertQuotaFits(db, tenantId, 1, at);
}

/**
 * 429 when `count` more screens would pass the cap. One screen at the cap is "quota reached"; a bulk
 * that does not fit says so, with what it needs, since "reached" is false when some quota is left.
 * Retry-After (seconds until the counter resets, by the same clock as the period) is sent only when
 * the same request fits after the reset: one asking for more than the whole limit never will. With a
 * limit of 0 no request ever fits, so the detail says so instead of suggesting a split or a wait.
 */
function assertFits(state: { used: number; limit: number | null }, count: number, at: Date): void {
  if (state.limit === null || state.used + count <= state.limit) return;
  const { used, limit } = state;
  const period = utcMonth(at);
  const remaining = Math.max(0, limit - used);
  const counts = `used ${used} of limit ${limit} for ${period}`;
  const reads = "Reads and /v1/usage keep working.";
  let detail: string;
  if (limit === 0) {
    // Neither waiting for the reset nor splitting helps: only an operator raising the quota does.
    const zero = `monthly screening quota is 0: no screen is allowed until an operator raises it (${counts})`;
    detail =
      count === 1
        ? `This tenant's ${zero}. ${reads}`
        : `This request needs ${count} screens (one per valid row), but this tenant's ${zero}. Nothing was screened. ${reads}`;
  } else if (count === 1) {
    detail = `Monthly screening quota reached: ${counts}. ${reads} The counter resets at the start of the next UTC month.`;
  } else if (count <= limit) {
    const now = remaining > 0 ? `send at most ${rows(remaining)} now, or ` : "";
    detail = `This request does not fit in the remaining monthly quota: it needs ${count} screens but only ${remaining} ${remaining === 1 ? "remains" : "remain"} (${counts}; one screen per valid row). Nothing was screened: ${now}retry after the counter resets at the start of the next UTC month. ${reads}`;
  } else {
    detail = `This request does not fit in the monthly quota: it needs ${count} screens, more than the whole limit (${counts}; one screen per valid row). Nothing was screened: split it into requests of at most ${rows(limit)} (${remaining} ${remaining === 1 ? "remains" : "remain"} this month). ${reads}`;
  }
  throw new ServiceError("QUOTA_EXCEEDED", detail, {
    extensions: { used, limit, remaining, period },
    ...(count <= limit ? { headers: { "retry-after": String(secondsUntilNextUtcMonth(at)) } } : {}),
  });
}

const rows = (n: number): string => (n === 1 ? "1 valid row" : `${n} valid rows`);
