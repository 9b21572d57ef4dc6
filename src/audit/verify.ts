import { canonicalJson } from "@/lib/canonical-json";
import { runPaced, runSteps } from "@/lib/steps";
import type { Db } from "@/storage/db";
import { entryHash, GENESIS_HASH } from "./chain";
import type { AuditRow } from "./rows";

/**
 * A point of a chain recorded by an earlier verification: its entriesChecked (the last sequence, as a
 * chain starts at 1 with no gaps) and its lastHash. The chain itself proves nothing was changed or
 * removed before its last entry; only a point kept outside aml.db shows that entries were not cut
 * from its end, or that the whole chain was not rebuilt.
 */
export interface ChainAnchor {
  sequence: number;
  hash: string;
}

/** A SHA-256 as every chain hash is written: 64 lower-case hex digits. */
export const SHA256_HEX = /^[0-9a-f]{64}$/;

export const BREAK_REASONS = ["hash_mismatch", "link_mismatch", "sequence_gap", "unreadable_details", "truncated", "anchor_mismatch"] as const;
export type BreakReason = (typeof BREAK_REASONS)[number];

export interface AuditVerification {
  intact: boolean;
  entriesChecked: number;
  /** Id of the first entry whose hash, link or sequence does not hold, or that differs from the anchor; null when intact or truncated. */
  firstBrokenEntryId: string | null;
  /**
   * Why: hash_mismatch, link_mismatch, sequence_gap or unreadable_details (the chain does not hold);
   * truncated (it has fewer entries than the anchor's sequence); anchor_mismatch (the entry at the
   * anchor's sequence has another hash: rewritten from there, or another chain).
   */
  reason: BreakReason | null;
  lastHash: string | null;
  /** The point checked against, as given; null when none was. */
  anchor: ChainAnchor | null;
}

/**
 * Walks a chain in sequence order and recomputes every hash, in one snapshot (a read transaction):
 * the CLI's verification. `chain` is the chain's key in audit_log: a tenant's id, or SYSTEM_CHAIN for
 * appliance-wide events. Both kinds are stored, linked and hashed alike (the key itself is part of
 * every entry's hash), so one walk verifies either. With an anchor, the chain must also still reach
 * the anchor's sequence with the anchor's hash there.
 */
export function verifyAuditChain(db: Db, chain: string, anchor: ChainAnchor | null = null): AuditVerification {
  return db.sqlite.transaction(() => runSteps(verificationSteps(db, chain, anchor)))();
}

/**
 * The same walk in the serving process, a page of entries at a time with requests let in between:
 * at about 8 µs an entry, a chain of 77,000 entries held the one request thread for 0.7 s (audit
 * probe), and any key with Screening.Read could ask for it again and again. No read transaction
 * spans the pauses; the walk ends at the last entry there was when it began, and entries are
 * immutable (triggers), so it checks what one snapshot would.
 */
export function verifyAuditChainPaced(db: Db, chain: string, anchor: ChainAnchor | null = null): Promise<AuditVerification> {
  return runPaced(verificationSteps(db, chain, anchor), VERIFY_SLICE_MS);
}

/** Entries read at a time, and the time the walk may hold the thread before it lets requests in. */
const VERIFY_PAGE_ROWS = 500;
const VERIFY_SLICE_MS = 4;

function* verificationSteps(db: Db, chain: string, anchor: ChainAnchor | null): Generator<void, AuditVerification> {
  const last = db.sqlite.query<{ seq: number | string | null }, [string]>("SELECT max(seq) AS seq FROM audit_log WHERE chain = ?").get(chain)?.seq ?? null;
  // Ordered by (chain, seq), unique: each page starts after the last entry of the one before. The
  // first has no lower bound: a tampered sequence may be anything (0, -2^63, text), and must be read.
  const first = db.sqlite.query<AuditRow, [string, number | string, number]>("SELECT * FROM audit_log WHERE chain = ? AND seq <= ? ORDER BY seq ASC LIMIT ?");
  const next = db.sqlite.query<AuditRow, [string, number | string, number | string, number]>(
    "SELECT * FROM audit_log WHERE chain = ? AND seq > ? AND seq <= ? ORDER BY seq ASC LIMIT ?",
  );
  let expectedPrev = GENESIS_HASH;
  let expectedSeq = 1;
  let checked = 0;
  const broken = (reason: BreakReason, entryId: string | null): AuditVerification => ({
    intact: false,
    entriesChecked: checked,
    firstBrokenEntryId: entryId,
    reason,
    lastHash: null,
    anchor,
  });
  let after: number | string | null = null;
  while (last !== null) {
    const rows: AuditRow[] = after === null ? first.all(chain, last, VERIFY_PAGE_ROWS) : next.all(chain, after, last, VERIFY_PAGE_ROWS);
    for (const row of rows) {
      checked++;
      if (row.seq !== expectedSeq) return broken("sequence_gap", row.id);
      if (row.prev_hash !== expectedPrev) return broken("link_mismatch", row.id);
      let details: unknown;
      try {
        details = JSON.parse(row.details);
      } catch {
        return broken("unreadable_details", row.id);
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
      // The hash covers the details as appendAudit stored them, in canonical form. Stored bytes that
      // parse to the same value but are not that form (spacing, a key given twice, which JSON.parse
      // reads as its last value and SQLite's json_extract as its first) would show a reader of the
      // database something the hash never covered.
      if (recomputed !== row.hash || canonicalJson(details) !== row.details) return broken("hash_mismatch", row.id);
      // The anchor's entry must be the one recorded: a chain rebuilt from scratch links and hashes
      // fine, but not to the same hashes.
      if (anchor !== null && row.seq === anchor.sequence && row.hash !== anchor.hash) return broken("anchor_mismatch", row.id);
      expectedPrev = row.hash;
      expectedSeq++;
    }
    if (rows.length < VERIFY_PAGE_ROWS) break;
    after = rows[rows.length - 1]!.seq;
    yield;
  }
  if (anchor !== null && checked < anchor.sequence) return broken("truncated", null);
  return {
    intact: true,
    entriesChecked: checked,
    firstBrokenEntryId: null,
    reason: null,
    lastHash: checked > 0 ? expectedPrev : null,
    anchor,
  };
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
