import type { CallMeta } from "@/context";
import { canonicalJson } from "@/lib/canonical-json";
import { newId } from "@/lib/ids";
import type { Db } from "@/storage/db";
import { advanceHead, readHead } from "@/storage/row-cache";
import { type ChainedFields, entryHash, GENESIS_HASH } from "./chain";

type AuditInsertParams = [string, string, number, string, string, string, string | null, string, string, string | null, string, string, string];

export interface AuditInput {
  /** Tenant id, or SYSTEM_CHAIN. */
  chain: string;
  /** entity.verb, e.g. tenant.create, api_key.revoke, quota.set, screening.create. */
  action: string;
  targetType: string;
  targetId?: string | null;
  details?: Record<string, unknown>;
  at: Date;
  meta: CallMeta;
}

/**
 * Appends one entry to a chain. Must run inside the caller's write transaction (writeTx), so the
 * entry commits with the action it records or not at all, and SQLite's single writer orders the chain.
 */
export function appendAudit(db: Db, input: AuditInput): { id: string; hash: string } {
  if (!db.sqlite.inTransaction) throw new Error("appendAudit must run inside a write transaction");
  // The chain's head through the row cache: the entry this transaction (or the last) appended.
  const head = `audit:${input.chain}`;
  const last = readHead(db.sqlite, head, () =>
    db.sqlite.query<{ seq: number; hash: string }, [string]>("SELECT seq, hash FROM audit_log WHERE chain = ? ORDER BY seq DESC LIMIT 1").get(input.chain),
  );
  const entry: ChainedFields = {
    id: newId(),
    chain: input.chain,
    seq: (last?.seq ?? 0) + 1,
    at: input.at.toISOString(),
    action: input.action,
    targetType: input.targetType,
    targetId: input.targetId ?? null,
    actorType: input.meta.actor.type,
    actorId: input.meta.actor.id,
    correlationId: input.meta.correlationId ?? null,
    details: input.details ?? {},
  };
  const prevHash = last?.hash ?? GENESIS_HASH;
  const hash = entryHash(prevHash, entry);
  // query() caches the prepared statement: every screening appends an entry, so compiling it each time adds up.
  db.sqlite
    .query<unknown, AuditInsertParams>(
      `INSERT INTO audit_log (id, chain, seq, at, action, target_type, target_id, actor_type, actor_id, correlation_id, details, prev_hash, hash)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      entry.id,
      entry.chain,
      entry.seq,
      entry.at,
      entry.action,
      entry.targetType,
      entry.targetId,
      entry.actorType,
      entry.actorId,
      entry.correlationId,
      canonicalJson(entry.details),
      prevHash,
      hash,
    );
  advanceHead(db.sqlite, head, { seq: entry.seq, hash });
  return { id: entry.id, hash };
}
