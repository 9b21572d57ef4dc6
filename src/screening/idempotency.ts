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
  // Words for non-finite numbers: a row sent with 1e999 (Infinity once parsed) is not the one sent with null.
  return { key, requestHash: sha256Hex(`${operation}\n${canonicalJson(request(), { nonFiniteAsWords: true })}`) };
}

/** The same key with another request (or another operation) is a client bug: 422, never a guess. */
function keyReused(): ServiceError {
  return new ServiceError(
    "IDEMPOTENCY_KEY_REUSED",
    "This Idempotency-Key was already used with a different request body; use a new key for a different request.",
  );
}

/**
 * The two tables of one key space per tenant: check and rescreen keep the screening's id, a bulk its
 * rows' outcomes (one key names many screenings, or none). A key live in one table refuses the other
 * operation with 422.
 */
interface KeyTable {
  readonly name: "idempotency_keys" | "bulk_idempotency_keys";
  /** The column with what a replay returns. */
  readonly value: "screening_id" | "row_outcomes";
  readonly other: KeyTable["name"];
}
const SINGLE_KEYS: KeyTable = { name: "idempotency_keys", value: "screening_id", other: "bulk_idempotency_keys" };
const BULK_KEYS: KeyTable = { name: "bulk_idempotency_keys", value: "row_outcomes", other: "idempotency_keys" };

/** SQLite's own clock, in the form of Date.toISOString(): the clock migration 0014's guard reads. */
const DB_NOW = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')";

/**
 * What an unexpired key stored in `table`, or null. The same key with a different request, or live
 * in the other table, is a client bug, refused with 422 rather than silently screening again or
 * replaying the wrong result. query() caches each statement by its text, built from constants.
 */
function storedFor(db: Db, table: KeyTable, tenantId: string, claim: IdempotencyClaim, now: Date): string | null {
  const nowIso = now.toISOString();
  // Live until expired by both this clock and the database's, which alone lets a key's row go (0014):
  // a key that one of them still holds live is replayed, never inserted again.
  const live = (row: { expires_at: string; db_now: string }) => row.expires_at > nowIso || row.expires_at > row.db_now;
  const row = db.sqlite
    .query<{ request_hash: string; value: string; expires_at: string; db_now: string }, [string, string]>(
      `SELECT request_hash, ${table.value} AS value, expires_at, ${DB_NOW} AS db_now FROM ${table.name} WHERE tenant_id = ? AND key = ?`,
    )
    .get(tenantId, claim.key);
  if (!row || !live(row)) {
    const other = db.sqlite
      .query<{ expires_at: string; db_now: string }, [string, string]>(`SELECT expires_at, ${DB_NOW} AS db_now FROM ${table.other} WHERE tenant_id = ? AND key = ?`)
      .get(tenantId, claim.key);
    if (other && live(other)) throw keyReused();
    return null;
  }
  if (row.request_hash !== claim.requestHash) throw keyReused();
  return row.value;
}

/** Records a key inside the transaction that stores what it names; expired rows of the table are swept first. */
function remember(db: Db, table: KeyTable, tenantId: string, claim: IdempotencyClaim, value: string, now: Date, ttlHours: number): void {
  const nowIso = now.toISOString();
  const expiresAt = new Date(now.getTime() + ttlHours * 3_600_000).toISOString();
  // The database keeps a key until it has expired by its own clock (0014): a sweep never asks for more.
  db.sqlite.query<unknown, [string]>(`DELETE FROM ${table.name} WHERE expires_at <= ? AND expires_at <= ${DB_NOW}`).run(nowIso);
  db.sqlite
    .query<unknown, [string, string, string, string, string, string]>(
      `INSERT INTO ${table.name} (tenant_id, key, request_hash, ${table.value}, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)`,
    )
    .run(tenantId, claim.key, claim.requestHash, value, nowIso, expiresAt);
}

/** The screening an unexpired check or rescreen key already produced, or null. */
export function findReplay(db: Db, tenantId: string, claim: IdempotencyClaim, now: Date): ScreeningRecord | null {
  const screeningId = storedFor(db, SINGLE_KEYS, tenantId, claim, now);
  return screeningId === null ? null : findScreening(db, tenantId, screeningId);
}

/** Records a check's or rescreen's key with its screening, inside the screening's transaction. */
export function rememberKey(db: Db, tenantId: string, claim: IdempotencyClaim, screeningId: string, now: Date, ttlHours: number): void {
  remember(db, SINGLE_KEYS, tenantId, claim, screeningId, now, ttlHours);
}

/** What a bulk gave one row: the screening stored for it, or the row's error. One per row, in order. */
export type BulkRowOutcome = { screeningId: string } | { error: BulkRowError };

/** The row outcomes an unexpired bulk key recorded, or null. */
export function findBulkReplay(db: Db, tenantId: string, claim: IdempotencyClaim, now: Date): BulkRowOutcome[] | null {
  const outcomes = storedFor(db, BULK_KEYS, tenantId, claim, now);
  return outcomes === null ? null : (JSON.parse(outcomes) as BulkRowOutcome[]);
}

/** Records a bulk's key and its row outcomes inside the transaction that stores its screenings. */
export function rememberBulkKey(db: Db, tenantId: string, claim: IdempotencyClaim, outcomes: readonly BulkRowOutcome[], now: Date, ttlHours: number): void {
  remember(db, BULK_KEYS, tenantId, claim, JSON.stringify(outcomes), now, ttlHours);
}
