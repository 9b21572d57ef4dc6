import { appendAudit } from "@/audit/append";
import type { AppContext, CallMeta } from "@/context";
import { ServiceError } from "@/errors";
import { writeTx } from "@/storage/db";
import { getOutboxRowInTenant, toDelivery, type WebhookDelivery } from "./deliveries";

/**
 * Queues a delivered or dead delivery again as a new attempt series (same id, same signed body, fresh
 * attempt budget). A delivery still pending or in flight is refused: it is already queued.
 */
export function redeliverWebhook(ctx: AppContext, args: { tenantId: string; id: string }, meta: CallMeta): WebhookDelivery {
  return writeTx(ctx.db, () => {
    const row = getOutboxRowInTenant(ctx.db, args.tenantId, args.id);
    if (row.status !== "delivered" && row.status !== "dead") {
      throw new ServiceError("CONFLICT", `Webhook delivery ${row.id} is ${row.status}; only a delivered or dead delivery can be redelivered.`);
    }
    const now = ctx.clock.now();
    ctx.db.sqlite.run(
      `UPDATE webhook_outbox
          SET status = 'pending', series = series + 1, attempts = 0, next_attempt_at = ?,
              lease_owner = NULL, lease_expires_at = NULL, delivered_at = NULL, dead_at = NULL,
              last_status_code = NULL, last_error = NULL
        WHERE id = ? AND status = ?`,
      [now.toISOString(), row.id, row.status],
    );
    appendAudit(ctx.db, {
      chain: args.tenantId,
      action: "webhook.redeliver",
      targetType: "webhook_delivery",
      targetId: row.id,
      at: now,
      meta,
      details: { event: row.event, screeningId: row.screening_id, previousStatus: row.status, series: row.series + 1 },
    });
    return toDelivery(getOutboxRowInTenant(ctx.db, args.tenantId, args.id));
  });
}
