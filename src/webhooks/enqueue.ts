import { newId } from "@/lib/ids";
import type { Db } from "@/storage/db";
import type { OutboxLease } from "./handoff";
import type { OutboxRow } from "./outbox-rows";
import type { WebhookEvent, WebhookPayload } from "./payload";

/** The scheduler loop name: `scheduler.wake(WEBHOOK_LOOP)` after a commit delivers without waiting for the next poll. */
export const WEBHOOK_LOOP = "webhooks";

export interface EnqueueWebhookInput {
  tenantId: string;
  event: WebhookEvent;
  payload: WebhookPayload;
  at: Date;
}

/**
 * Adds an event to the outbox. Must run inside the caller's write transaction (the screening's own),
 * so the event commits with the screening or not at all. A tenant without a webhookUrl gets nothing
 * queued. Returns the row as stored, or null when nothing was queued.
 *
 * With a `lease` (handoff.ts) the row is stored already claimed: 'delivering', its first attempt
 * reserved, exactly as claimDue would leave it. Without one it waits 'pending' for a claim.
 */
export function enqueueWebhook(db: Db, input: EnqueueWebhookInput, lease: OutboxLease | null = null): OutboxRow | null {
  if (!db.sqlite.inTransaction) throw new Error("enqueueWebhook must run inside the caller's write transaction");
  if (input.payload.event !== input.event) {
    throw new Error(`webhook payload says ${input.payload.event} but is queued as ${input.event}`);
  }
  const tenant = db.sqlite
    .query<{ webhook_url: string | null }, [string]>("SELECT webhook_url FROM tenants WHERE id = ?")
    .get(input.tenantId);
  if (!tenant) throw new Error(`enqueueWebhook: tenant ${input.tenantId} does not exist`);
  if (!tenant.webhook_url) return null;

  const at = input.at.toISOString();
  const row: OutboxRow = {
    id: newId(),
    tenant_id: input.tenantId,
    event: input.event,
    screening_id: input.payload.screeningId,
    // Serialised once, here: this exact string is what gets signed and sent on every attempt.
    payload: JSON.stringify(input.payload),
    status: lease ? "delivering" : "pending",
    series: 1,
    attempts: lease ? 1 : 0,
    next_attempt_at: at,
    lease_owner: lease?.owner ?? null,
    lease_expires_at: lease?.expiresAt.toISOString() ?? null,
    last_status_code: null,
    last_error: null,
    created_at: at,
    delivered_at: null,
    dead_at: null,
  };
  // query() caches the prepared statement (one insert per screening).
  db.sqlite
    .query<unknown, [string, string, string, string, string, string, number, string | null, string | null, string, string]>(
      `INSERT INTO webhook_outbox (id, tenant_id, event, screening_id, payload, status, series, attempts, lease_owner, lease_expires_at, next_attempt_at, created_at)
       VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?)`,
    )
    .run(row.id, row.tenant_id, row.event, row.screening_id, row.payload, row.status, row.attempts, row.lease_owner, row.lease_expires_at, at, at);
  return row;
}
