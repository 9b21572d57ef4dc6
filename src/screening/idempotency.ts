import { ServiceError } from "@/errors";
import { canonicalJson } from "@/lib/canonical-json";
import { sha256Hex } from "@/lib/hash";
import type { Db } from "@/storage/db";
import { findScreening } from "./store";
import type { BulkRowError } from "./bulk";
import type { ScreeningRecord } from "./types";

/** A validated Idempotency-Key with the hash of the request it was sent with. */
export interface IdempotencyClaim {
  key: string;
  requestHash: string;
}

/** 1–255 printable ASCII characters (no spaces or control characters), as the header is echoed into logs. */
const KEY_RE = /^[\x21-\x7e]{1,255}$/;

export function parseIdempotencyKey(header: string | null | undefined): string | null {
  if (header === null || header === undefined) return null;
  if (!KEY_RE.test(header)) {
    throw new ServiceError("VALIDATION_FAILED", "The Idempotency-Key header must be 1–255 printable ASCII characters without spaces.", {
      fieldIssues: [{ field: "header.idempotency-key", message: "must be 1–255 printable ASCII characters without spaces" }],
    });
  }
  return header;
}

/**
 * The operation is part of the hash, so a key used for a check cannot replay as a rescreen. `request`
 * gives the request as the hash compares it; it is built only when a key was sent, so the screens
 * that send none (most of them) pay nothing for it.
 */
export function idempotencyClaim(key: string | null, operation: string, request: () => unknown): IdempotencyClaim | null {
  if (key === null) return null;
  return { key, requestHash: sha256Hex(`${operation}\n${canonicalJson(request())}`) };
}

/** The same key with another request (or another operation) is a client bug: 422, never a guess. */
function keyReused(): ServiceError {
  return new ServiceError(
    "IDEMPOTENCY_KEY_REUSED",
    "This Idempotency-Key was already used with a different request body; use a new key for a different request.",
  );
}

/**
 * Check, rescreen and bulk share one key space per tenant, kept in two tables (a bulk's key names
 * many screenings, or none): a key that is live in the other table was used by another operation.
 */
function liveInOtherTable(db: Db, table: "idempotency_keys" | "bulk_idempotency_keys", tenantId: string, key: string, now: Date): boolean {
  const row = db.sqlite.query<{ expires_at: string }, [string, string]>(`SELECT expires_at FROM ${table} WHERE tenant_id = ? AND key = ?`).get(tenantId, key);
  return row !== null && row.expires_at > now.toISOString();
}

/**
 * The screening an unexpired key already produced, or null. The same key with a different request is
 * a client bug, refused with 422 rather than silently screening again or replaying the wrong result.
 */
export function findReplay(db: Db, tenantId: string, claim: IdempotencyClaim, now: Date): ScreeningRecord | null {
  const row = db.sqlite
    .query<{ request_hash: string; screening_id: string; expires_at: string }, [string, string]>(
      "SELECT request_hash, screening_id, expires_at FROM idempotency_keys WHERE tenant_id = ? AND key = ?",
    )
    .get(tenantId, claim.key);
  if (!row || row.expires_at <= now.toISOString()) {
    if (liveInOtherTable(db, "bulk_idempotency_keys", tenantId, claim.key, now)) throw keyReused();
    return null;
  }
  if (row.request_hash !== claim.requestHash) throw keyReused();
  return findScreening(db, tenantId, row.screening_id);
}

/** Records the key inside the screening's transaction; an expired row for the same key is replaced. */
export function rememberKey(db: Db, tenantId: string, claim: IdempotencyClaim, screeningId: string, now: Date, ttlHours: number): void {
  const nowIso = now.toISOString();
  // query() caches both prepared statements; run(sql, params) would compile them on every keyed screen.
  db.sqlite.query<unknown, [string]>("DELETE FROM idempotency_keys WHERE expires_at <= ?").run(nowIso);
  db.sqlite
    .query<unknown, [string, string, string, string, string, string]>(
      "INSERT INTO idempotency_keys (tenant_id, key, request_hash, screening_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)",
    )
    .run(tenantId, claim.key, claim.requestHash, screeningId, nowIso, expiresAt(now, ttlHours));
}

/** What a bulk gave one row: the screening stored for it, or the row's error. One per row, in order. */
export type BulkRowOutcome = { screeningId: string } | { error: BulkRowError };

/** The row outcomes an unexpired bulk key recorded, or null; 422 for the key with another request. */
export function findBulkReplay(db: Db, tenantId: string, claim: IdempotencyClaim, now: Date): BulkRowOutcome[] | null {
  const row = db.sqlite
    .query<{ request_hash: string; row_outcomes: string; expires_at: string }, [string, string]>(
      "SELECT request_hash, row_outcomes, expires_at FROM bulk_idempotency_keys WHERE tenant_id = ? AND key = ?",
    )
    .get(tenantId, claim.key);
  if (!row || row.expires_at <= now.toISOString()) {
    if (liveInOtherTable(db, "idempotency_keys", tenantId, claim.key, now)) throw keyReused();
    return null;
  }
  if (row.request_hash !== claim.requestHash) throw keyReused();
  return JSON.parse(row.row_outcomes) as BulkRowOutcome[];
}

/** Records a bulk's key and its row outcomes inside the transaction that stores its screenings. */
export function rememberBulkKey(db: Db, tenantId: string, claim: IdempotencyClaim, outcomes: readonly BulkRowOutcome[], now: Date, ttlHours: number): void {
  const nowIso = now.toISOString();
  db.sqlite.query<unknown, [string]>("DELETE FROM bulk_idempotency_keys WHERE expires_at <= ?").run(nowIso);
  db.sqlite
    .query<unknown, [string, string, string, string, string, string]>(
      "INSERT INTO bulk_idempotency_keys (tenant_id, key, request_hash, row_outcomes, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)",
    )
    .run(tenantId, claim.key, claim.requestHash, JSON.stringify(outcomes), nowIso, expiresAt(now, ttlHours));
}

function expiresAt(now: Date, ttlHours: number): string {
  return new Date(now.getTime() + ttlHours * 3_600_000).toISOString();
}
