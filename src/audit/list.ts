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

/** Up to `cap` entries for export, newest first; `truncated` when more matched the filter. */
export function exportAudit(
  db: Db,
  chain: string,
  filter: AuditFilter,
  cap: number,
): { items: AuditEntry[]; truncated: boolean } {
  const where = auditWhere(chain, filter);
  const rows = db.sqlite
    .query<AuditRow, (string | number)[]>(`SELECT * FROM audit_log WHERE ${where.sql} ORDER BY seq DESC LIMIT ?`)
    .all(...where.params, cap + 1);
  return { items: rows.slice(0, cap).map(toAuditEntry), truncated: rows.length > cap };
}
