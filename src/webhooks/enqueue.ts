import { newId } from "@/lib/ids";
import type { Db } from "@/storage/db";
import { cachedSetting } from "@/storage/row-cache";
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
 * queued; returns the delivery id, or null when nothing was queued.
 */
export function enqueueWebhook(db: Db, input: EnqueueWebhookInput): { id: string } | null {
  if (!db.sqlite.inTransaction) throw new Error("enqueueWebhook must run inside the caller's write transaction");
  if (input.payload.event !== input.event) {
    throw new Error(`webhook payload says ${input.payload.event} but is queued as ${input.event}`);
  }
  const tenant = cachedSetting(db.sqlite, `tenant-webhook-url:${input.tenantId}`, () =>
    db.sqlite.query<{ webhook_url: string | null }, [string]>("SELECT webhook_url FROM tenants WHERE id = ?").get(input.tenantId),
  );
  if (!tenant) throw new Error(`enqueueWebhook: tenant ${input.tenantId} does not exist`);
  if (!tenant.webhook_url) return null;

  const id = newId();
  const at = input.at.toISOString();
  // Serialised once, here: this exact string is what gets signed and sent on every attempt.
  const payload = JSON.stringify(input.payload);
  // query() caches the prepared statement (one insert per screening).
  db.sqlite
    .query<unknown, [string, string, string, string, string, string, string]>(
      `INSERT INTO webhook_outbox (id, tenant_id, event, screening_id, payload, status, next_attempt_at, created_at)
       VALUES (?, ?, ?, ?, ?, 'pending', ?, ?)`,
    )
    .run(id, input.tenantId, input.event, input.payload.screeningId, payload, at, at);
  return { id };
}
