import { appendAudit } from "@/audit/append";
import type { AppContext, CallMeta } from "@/context";
import { ServiceError } from "@/errors";
import { writeTx } from "@/storage/db";
import { getOutboxRowInTenant, toDelivery, type WebhookDelivery } from "./deliveries";

/**
 * Sends a delivery again as soon as the dispatcher can:
 * - delivered or dead: queued again as a new attempt series (same id, same signed body, fresh
 *   attempt budget);
 * - pending (waiting for a retry): due now, in the same series, so a tenant that fixed its receiver
 *   need not wait out a backoff of up to 12 h; the attempt count is unchanged, and the next attempt
 *   counts towards the limit like any other;
 * - delivering: refused, an attempt is in flight; its outcome decides what happens next.
 */
export function redeliverWebhook(ctx: AppContext, args: { tenantId: string; id: string }, meta: CallMeta): WebhookDelivery {
  return writeTx(ctx.db, () => {
    const row = getOutboxRowInTenant(ctx.db, args.tenantId, args.id);
    if (row.status === "delivering") {
      throw new ServiceError(
        "CONFLICT",
        `Webhook delivery ${row.id} is being attempted right now (attempt ${row.attempts} of series ${row.series}); redeliver it again once that attempt has finished, if it is still needed.`,
      );
    }
    const now = ctx.clock.now();
    const at = now.toISOString();
    const sql =
      row.status === "pending"
        ? // Never later than it was: a row already due keeps its place in the claim order.
          "UPDATE webhook_outbox SET next_attempt_at = min(next_attempt_at, ?1) WHERE id = ?2 AND status = ?3"
        : `UPDATE webhook_outbox
              SET status = 'pending', series = series + 1, attempts = 0, next_attempt_at = ?1,
                  lease_owner = NULL, lease_expires_at = NULL, delivered_at = NULL, dead_at = NULL,
                  last_status_code = NULL, last_error = NULL
            WHERE id = ?2 AND status = ?3`;
    ctx.db.sqlite.run(sql, [at, row.id, row.status]);
    const series = row.status === "pending" ? row.series : row.series + 1;
    appendAudit(ctx.db, {
      chain: args.tenantId,
      action: "webhook.redeliver",
      targetType: "webhook_delivery",
      targetId: row.id,
      at: now,
      meta,
      details: {
        event: row.event,
        screeningId: row.screening_id,
        previousStatus: row.status,
        series,
        ...(row.status === "pending" ? { previousNextAttemptAt: row.next_attempt_at } : {}),
      },
    });
    return toDelivery(getOutboxRowInTenant(ctx.db, args.tenantId, args.id));
  });
}
