/** An audit_log row as read back from SQLite. */
export interface AuditRow {
  id: string;
  chain: string;
  seq: number;
  at: string;
  action: string;
  target_type: string;
  target_id: string | null;
  actor_type: string;
  actor_id: string;
  correlation_id: string | null;
  details: string;
  prev_hash: string;
  hash: string;
}

/** The public shape of an audit entry (GET /v1/audit). */
export interface AuditEntry {
  id: string;
  sequence: number;
  at: string;
  action: string;
  targetType: string;
  targetId: string | null;
  actor: { type: string; id: string };
  correlationId: string | null;
  details: unknown;
  prevHash: string;
  hash: string;
}

export function toAuditEntry(row: AuditRow): AuditEntry {
  let details: unknown;
  try {
    details = JSON.parse(row.details);
  } catch {
    details = row.details;
  }
  return {
    id: row.id,
    sequence: row.seq,
    at: row.at,
    action: row.action,
    targetType: row.target_type,
    targetId: row.target_id,
    actor: { type: row.actor_type, id: row.actor_id },
    correlationId: row.correlation_id,
    details,
    prevHash: row.prev_hash,
    hash: row.hash,
  };
}
