import { ServiceError } from "@/errors";
import { utcMonth } from "@/lib/clock";
import type { Db } from "@/storage/db";

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

function toUsage(state: { used: number; limit: number | null }): Usage {
  if (state.limit === null) return { used: state.used, limit: null, remaining: UNLIMITED_REMAINING, unlimited: true };
  return { used: state.used, limit: state.limit, remaining: Math.max(0, state.limit - state.used), unlimited: false };
}

/** Current UTC calendar month's usage. */
export function getUsage(db: Db, tenantId: string, at: Date): Usage {
  return toUsage(readState(db, tenantId, utcMonth(at)));
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
  const state = readState(db, tenantId, period);
  assertFits(state, count, period);
  // query() caches the prepared statement; run(sql, params) would compile it again on every screen.
  db.sqlite
    .query<unknown, [string, string, number]>(
      `INSERT INTO usage_counters (tenant_id, period, used) VALUES (?, ?, ?)
       ON CONFLICT (tenant_id, period) DO UPDATE SET used = used + excluded.used`,
    )
    .run(tenantId, period, count);
  return toUsage({ used: state.used + count, limit: state.limit });
}

/** Throws 429 when `count` more screens would pass the cap; checks only, charges nothing. */
export function assertQuotaFits(db: Db, tenantId: string, count: number, at: Date): Usage {
  const period = utcMonth(at);
  const state = readState(db, tenantId, period);
  assertFits(state, count, period);
  return toUsage(state);
}

function assertFits(state: { used: number; limit: number | null }, count: number, period: string): void {
  if (state.limit === null || state.used + count <= state.limit) return;
  const remaining = Math.max(0, state.limit - state.used);
  const asked = count === 1 ? "" : ` This request needs ${count} screens but only ${remaining} remain.`;
  throw new ServiceError(
    "QUOTA_EXCEEDED",
    `Monthly screening quota reached: used ${state.used} of limit ${state.limit} for ${period}.${asked} Reads and /v1/usage keep working; the counter resets at the start of the next UTC month.`,
    { extensions: { used: state.used, limit: state.limit, remaining, period } },
  );
}
