import { notFound } from "@/errors";
import { storedId } from "@/lib/ids";
import type { Db } from "@/storage/db";
import { type AttemptRow, DELIVERY_STATUSES, type DeliveryStatus, type OutboxRow } from "./outbox-rows";
import type { WebhookEvent, WebhookPayload } from "./payload";

/** A delivery as the API shows it: state and last outcome, never the secret or the tenant's URL. */
export interface WebhookDelivery {
  id: string;
  event: WebhookEvent;
  screeningId: string;
  status: DeliveryStatus;
  /** Attempts made in the current series (a redelivery starts a new series at 0). */
  attemptCount: number;
  /** 1 for the original series, plus one per manual redelivery. */
  series: number;
  lastStatusCode: number | null;
  lastError: string | null;
  nextAttemptAt: string | null;
  createdAt: string;
  deliveredAt: string | null;
  deadAt: string | null;
}

export interface WebhookAttempt {
  series: number;
  attempt: number;
  startedAt: string;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
  url: string | null;
}

export interface WebhookDeliveryDetail extends WebhookDelivery {
  /** The signed body, parsed; the exact bytes sent are the stored raw JSON. */
  payload: WebhookPayload;
  attempts: WebhookAttempt[];
}

export interface DeliveryFilter {
  status?: DeliveryStatus | undefined;
  event?: WebhookEvent | undefined;
  /** Only the deliveries of this screening's events (the outbox row's screening_id). */
  screeningId?: string | undefined;
}

export function toDelivery(row: OutboxRow): WebhookDelivery {
  return {
    id: row.id,
    event: row.event,
    screeningId: row.screening_id,
    status: row.status,
    attemptCount: row.attempts,
    series: row.series,
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
    nextAttemptAt: row.status === "pending" ? row.next_attempt_at : null,
    createdAt: row.created_at,
    deliveredAt: row.delivered_at,
    deadAt: row.dead_at,
  };
}

/**
 * The WHERE of a tenant's deliveries under a filter. The status goes in as a literal (checked against
 * DELIVERY_STATUSES, never the caller's text): SQLite uses a partial index (webhook_outbox_dead) only
 * when the query states its condition, which a bound parameter does not.
 */
export function deliveryWhere(tenantId: string, filter: DeliveryFilter): { sql: string; params: string[] } {
  const parts = ["tenant_id = ?"];
  const params: string[] = [tenantId];
  if (filter.status) {
    if (!DELIVERY_STATUSES.includes(filter.status)) throw new Error(`unknown delivery status ${JSON.stringify(filter.status)}`);
    parts.push(`status = '${filter.status}'`);
  }
  if (filter.event) {
    parts.push("event = ?");
    params.push(filter.event);
  }
  if (filter.screeningId !== undefined) {
    // The unary + keeps the planner off (tenant_id, created_at): without table statistics it prefers
    // that index for the page's ORDER BY and would read every delivery of the tenant, where
    // webhook_outbox_screening finds the screening's one or two rows.
    parts[0] = "+tenant_id = ?";
    parts.push("screening_id = ?");
    params.push(storedId(filter.screeningId));
  }
  return { sql: parts.join(" AND "), params };
}

/** One page of a tenant's deliveries, newest first, with the total for the same filter. */
export function listDeliveries(
  db: Db,
  tenantId: string,
  filter: DeliveryFilter,
  page: { skip: number; take: number },
): { items: WebhookDelivery[]; total: number } {
  const { sql: where, params } = deliveryWhere(tenantId, filter);
  const total = db.sqlite.query<{ n: number }, string[]>(`SELECT count(*) AS n FROM webhook_outbox WHERE ${where}`).get(...params)?.n ?? 0;
  const rows = db.sqlite
    .query<OutboxRow, (string | number)[]>(`SELECT * FROM webhook_outbox WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`)
    .all(...params, page.take, page.skip);
  return { items: rows.map(toDelivery), total };
}

/**
 * Fetch-or-throw within the tenant: another tenant's id is indistinguishable from a missing one (404).
 * The id is matched case-insensitively (storedId); the read and the redelivery by id go through here.
 */
export function getOutboxRowInTenant(db: Db, tenantId: string, id: string): OutboxRow {
  const row = db.sqlite.query<OutboxRow, [string, string]>("SELECT * FROM webhook_outbox WHERE id = ? AND tenant_id = ?").get(storedId(id), tenantId);
  if (!row) throw notFound(`Webhook delivery ${id}`);
  return row;
}

export function getDelivery(db: Db, tenantId: string, id: string): WebhookDeliveryDetail {
  const row = getOutboxRowInTenant(db, tenantId, id);
  const attempts = db.sqlite
    .query<AttemptRow, [string]>("SELECT * FROM webhook_attempts WHERE outbox_id = ? ORDER BY series, attempt, started_at")
    .all(row.id)
    .map((a) => ({
      series: a.series,
      attempt: a.attempt,
      startedAt: a.started_at,
      durationMs: a.duration_ms,
      statusCode: a.status_code,
      error: a.error,
      url: a.url,
    }));
  return { ...toDelivery(row), payload: JSON.parse(row.payload) as WebhookPayload, attempts };
}
