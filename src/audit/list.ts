import type { Db } from "@/storage/db";
import { type AuditRow, toAuditEntry, type AuditEntry } from "./rows";

export interface AuditFilter {
  action?: string | undefined;
  targetType?: string | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
}

/** The one action written by every screening; the action index leaves it out (migration 0004). */
const HIGH_VOLUME_ACTION = "screening.create";

/** The WHERE clause of a chain filter; exported so a test can check which index SQLite reads for it. */
export function auditWhere(chain: string, filter: AuditFilter): { sql: string; params: string[] } {
  const parts = ["chain = ?"];
  const params = [chain];
  if (filter.action) {
    parts.push("action = ?");
    params.push(filter.action);
    // Redundant for the result, but the partial index audit_log_chain_action (migration 0004) is only
    // usable when the query repeats its WHERE literally; a bound parameter does not prove it.
    if (filter.action !== HIGH_VOLUME_ACTION) parts.push(`action <> '${HIGH_VOLUME_ACTION}'`);
  }
  if (filter.targetType) {
    parts.push("target_type = ?");
    params.push(filter.targetType);
  }
  if (filter.from) {
    parts.push("at >= ?");
    params.push(filter.from.toISOString());
  }
  if (filter.to) {
    parts.push("at <= ?");
    params.push(filter.to.toISOString());
  }
  return { sql: parts.join(" AND "), params };
}

/** One page of a chain, newest first, with the total count for the same filter. */
export function listAudit(
  db: Db,
  chain: string,
  filter: AuditFilter,
  page: { skip: number; take: number },
): { items: AuditEntry[]; total: number } {
  const where = auditWhere(chain, filter);
  const total =
    db.sqlite
      .query<{ n: number }, string[]>(`SELECT count(*) AS n FROM audit_log WHERE ${where.sql}`)
      .get(...where.params)?.n ?? 0;
  const rows = db.sqlite
    .query<AuditRow, (string | number)[]>(
      `SELECT * FROM audit_log WHERE ${where.sql} ORDER BY seq DESC LIMIT ? OFFSET ?`,
    )
    .all(...where.params, page.take, page.skip);
  return { items: rows.map(toAuditEntry), total };
}

/**
 * What an export of a chain's filtered entries holds, decided before its first byte is sent so that
 * its headers are true: up to `cap` entries, newest first, of those with seq up to `throughSeq` (the
 * chain's last entry when the export began). The chain only grows, so entries appended while the
 * export streams are not in it, and the ones it holds cannot change.
 */
export interface AuditExportPlan {
  rows: number;
  truncated: boolean;
  throughSeq: number;
}

export function planAuditExport(db: Db, chain: string, filter: AuditFilter, cap: number): AuditExportPlan {
  const throughSeq = db.sqlite.query<{ s: number | null }, [string]>("SELECT max(seq) AS s FROM audit_log WHERE chain = ?").get(chain)?.s ?? 0;
  const where = auditWhere(chain, filter);
  // Counted no further than cap + 1: all an export needs to know is whether it is cut.
  const matched =
    db.sqlite
      .query<{ n: number }, (string | number)[]>(`SELECT count(*) AS n FROM (SELECT 1 FROM audit_log WHERE ${where.sql} AND seq <= ? LIMIT ?)`)
      .get(...where.params, throughSeq, cap + 1)?.n ?? 0;
  return { rows: Math.min(matched, cap), truncated: matched > cap, throughSeq };
}

/**
 * The plan's entries, newest first, `pageSize` at a time: each page is read when the previous one
 * has been written out (keyset on seq, so a page costs the same wherever it falls).
 */
export function* auditExportPages(db: Db, chain: string, filter: AuditFilter, plan: AuditExportPlan, pageSize: number): Generator<AuditEntry[]> {
  const where = auditWhere(chain, filter);
  const page = db.sqlite.query<AuditRow, (string | number)[]>(`SELECT * FROM audit_log WHERE ${where.sql} AND seq < ? ORDER BY seq DESC LIMIT ?`);
  let left = plan.rows;
  let below = plan.throughSeq + 1;
  while (left > 0) {
    const rows = page.all(...where.params, below, Math.min(pageSize, left));
    const last = rows[rows.length - 1];
    if (!last) return;
    left -= rows.length;
    below = last.seq;
    yield rows.map(toAuditEntry);
  }
}
