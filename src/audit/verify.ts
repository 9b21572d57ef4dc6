import type { Db } from "@/storage/db";
import { entryHash, GENESIS_HASH } from "./chain";
import type { AuditRow } from "./rows";

export interface AuditVerification {
  intact: boolean;
  entriesChecked: number;
  /** Id of the first entry whose hash, link or sequence does not hold; null when intact. */
  firstBrokenEntryId: string | null;
  /** Why that entry is broken: hash_mismatch, link_mismatch, sequence_gap or unreadable_details. */
  reason: string | null;
  lastHash: string | null;
}

/**
 * Walks a chain in sequence order and recomputes every hash. Reads in one snapshot (a read transaction).
 * `chain` is the chain's key in audit_log: a tenant's id, or SYSTEM_CHAIN for appliance-wide events.
 * Both kinds are stored, linked and hashed alike (the key itself is part of every entry's hash), so
 * one walk verifies either.
 */
export function verifyAuditChain(db: Db, chain: string): AuditVerification {
  return db.sqlite.transaction(() => {
    const rows = db.sqlite
      .query<AuditRow, [string]>("SELECT * FROM audit_log WHERE chain = ? ORDER BY seq ASC")
      .iterate(chain);
    let expectedPrev = GENESIS_HASH;
    let expectedSeq = 1;
    let checked = 0;
    for (const row of rows) {
      checked++;
      const broken = (reason: string): AuditVerification => ({
        intact: false,
        entriesChecked: checked,
        firstBrokenEntryId: row.id,
        reason,
        lastHash: null,
      });
      if (row.seq !== expectedSeq) return broken("sequence_gap");
      if (row.prev_hash !== expectedPrev) return broken("link_mismatch");
      let details: unknown;
      try {
        details = JSON.parse(row.details);
      } catch {
        return broken("unreadable_details");
      }
      const recomputed = entryHash(row.prev_hash, {
        id: row.id,
        chain: row.chain,
        seq: row.seq,
        at: row.at,
        action: row.action,
        targetType: row.target_type,
        targetId: row.target_id,
        actorType: row.actor_type,
        actorId: row.actor_id,
        correlationId: row.correlation_id,
        details,
      });
      if (recomputed !== row.hash) return broken("hash_mismatch");
      expectedPrev = row.hash;
      expectedSeq++;
    }
    return {
      intact: true,
      entriesChecked: checked,
      firstBrokenEntryId: null,
      reason: null,
      lastHash: checked > 0 ? expectedPrev : null,
    };
  })();
}

/**
 * Every chain key that has at least one entry, in key order. Hops through the (chain, seq) index one
 * chain at a time, so it reads a few index pages per chain rather than every entry.
 */
export function auditChainKeys(db: Db): string[] {
  return db.sqlite
    .query<{ chain: string }, []>(
      `WITH RECURSIVE keys(chain) AS (
         SELECT min(chain) FROM audit_log
         UNION ALL
         SELECT (SELECT min(chain) FROM audit_log WHERE chain > keys.chain) FROM keys WHERE keys.chain IS NOT NULL
       )
       SELECT chain FROM keys WHERE chain IS NOT NULL`,
    )
    .all()
    .map((r) => r.chain);
}
