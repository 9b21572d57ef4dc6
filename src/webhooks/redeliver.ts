import { z } from "zod";
import { appendAudit } from "@/audit/append";
import type { AppContext, CallMeta } from "@/context";
import { ServiceError } from "@/errors";
import { offsetDateTime, parseInput } from "@/lib/validate";
import { type Db, writeTx } from "@/storage/db";
import type { PreparedWrite } from "@/storage/group-commit";
import { deliveryWhere, getOutboxRowInTenant, toDelivery, type WebhookDelivery } from "./deliveries";

/**
 * What a redelivery does to one row, by the status it was read in, in the caller's write
 * transaction; the single and the bulk redelivery both go through it. Returns the rows changed (0
 * when the row is no longer in that status).
 * - pending: due now, in the same series with the same attempt count. Never later than it was: a
 *   row already due keeps its place in the claim order.
 * - delivered or dead: queued again as a new attempt series, due now, with a fresh attempt budget.
 */
function redeliverRow(db: Db, row: { id: string; status: "pending" | "delivered" | "dead" }, at: string): number {
  if (row.status === "pending") {
    return db.sqlite
      .query<unknown, [string, string]>("UPDATE webhook_outbox SET next_attempt_at = min(next_attempt_at, ?1) WHERE id = ?2 AND status = 'pending'")
      .run(at, row.id).changes;
  }
  return db.sqlite
    .query<unknown, [string, string, string]>(
      `UPDATE webhook_outbox
          SET status = 'pending', series = series + 1, attempts = 0, next_attempt_at = ?1,
              lease_owner = NULL, lease_expires_at = NULL, delivered_at = NULL, dead_at = NULL,
              last_status_code = NULL, last_error = NULL
        WHERE id = ?2 AND status = ?3`,
    )
    .run(at, row.id, row.status).changes;
}

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
  return prepareRedeliverWebhook(ctx, args, meta)();
}

/** redeliverWebhook with the delivery found now (404), and the write returned for the group commit; its status is read under the lock. */
export function prepareRedeliverWebhook(ctx: AppContext, args: { tenantId: string; id: string }, meta: CallMeta): PreparedWrite<WebhookDelivery> {
  getOutboxRowInTenant(ctx.db, args.tenantId, args.id);
  return () => writeTx(ctx.db, () => {
    const row = getOutboxRowInTenant(ctx.db, args.tenantId, args.id);
    if (row.status === "delivering") {
      // Also the state a delivery is left in when the appliance stopped mid-attempt, until its lease
      // expires: the detail says when that is, not only that an attempt runs.
      throw new ServiceError(
        "CONFLICT",
        `Webhook delivery ${row.id} is being attempted (attempt ${row.attempts} of series ${row.series}), under a lease until ${row.lease_expires_at}; redeliver it after its outcome, if it is still needed. If the appliance stopped during that attempt, the delivery returns to the queue by itself once the lease has expired.`,
      );
    }
    const now = ctx.clock.now();
    const at = now.toISOString();
    redeliverRow(ctx.db, { id: row.id, status: row.status }, at);
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

/** Deliveries redelivered by one bulk call at most; `more` in the answer says whether others match. */
export const BULK_REDELIVERY_CAP = 10_000;

/** The statuses a bulk redelivery selects: delivering is in flight, and a delivered one needs no recovery. */
export const BULK_REDELIVERY_STATUSES = ["dead", "pending"] as const;
export type BulkRedeliveryStatus = (typeof BULK_REDELIVERY_STATUSES)[number];

/** A bound of the range: a date-time with an offset (Z or ±hh:mm), a real calendar date (no 30 February); null is the same as absent. */
const Instant = offsetDateTime().nullish();

/** POST /v1/webhooks/deliveries/redeliver body. */
export const BulkRedeliverInput = z
  .object({
    status: z
      .enum(BULK_REDELIVERY_STATUSES, { error: (issue) => (issue.input === undefined ? "is required: dead or pending" : "must be one of dead, pending") })
      .describe(
        "dead: every dead delivery starts a new attempt series. pending: every delivery waiting for a retry becomes due now (those already due are left as they are)",
      ),
    createdFrom: Instant.describe("Only deliveries created at or after this instant (inclusive); ISO 8601 with an offset. Absent or null: no lower bound"),
    createdTo: Instant.describe("Only deliveries created before this instant (exclusive); ISO 8601 with an offset. Absent or null: no upper bound"),
  })
  .strict()
  .refine((input) => !input.createdFrom || !input.createdTo || Date.parse(input.createdFrom) < Date.parse(input.createdTo), {
    path: ["createdTo"],
    message: "must be later than createdFrom",
  })
  .describe("Which deliveries to redeliver: a status (required) and an optional range of createdAt");

/** What a bulk redelivery did, with the filter it applied (instants in UTC, as createdAt is shown). */
export interface BulkRedelivery {
  redelivered: number;
  /** Deliveries matching the same filter remain beyond the cap: call again, from nextCreatedFrom. */
  more: boolean;
  /** With more: the createdAt of the first delivery not taken, the createdFrom of the next call; else null. */
  nextCreatedFrom: string | null;
  status: BulkRedeliveryStatus;
  createdFrom: string | null;
  createdTo: string | null;
}

const utc = (value: string | null | undefined): string | null => (value ? new Date(value).toISOString() : null);

/**
 * The rows one call takes, and where the next call starts (null: nothing left), from the first
 * `cap` + 1 rows matching, in (createdAt, id) order. The next call starts at an instant (createdFrom),
 * so no instant is split between two calls: a bulk's deliveries share one createdAt, and a pending
 * delivery hurried by one call may fail again and wait again before the next, which would then take
 * it again (spending its attempts) instead of the ones it had not reached. So a call stops before the
 * first instant it cannot take whole. Only when that instant is the first (more than `cap`
 * deliveries share it) does it take the instant whole, past the cap (`instantWhole`).
 */
function pageOf<Row extends { created_at: string }>(
  rows: readonly Row[],
  cap: number,
  instantWhole: (instant: string) => { whole: Row[]; after: string | null },
): { taken: Row[]; nextCreatedFrom: string | null } {
  if (rows.length <= cap) return { taken: [...rows], nextCreatedFrom: null };
  const boundary = (rows[cap] as Row).created_at;
  const split = rows.findIndex((row) => row.created_at === boundary);
  if (split > 0) return { taken: rows.slice(0, split), nextCreatedFrom: boundary };
  const { whole, after } = instantWhole(boundary);
  return { taken: whole, nextCreatedFrom: after };
}

/**
 * Redelivers, in ONE write transaction, up to `cap` of a tenant's deliveries in a status and a
 * createdAt range, oldest first (createdAt, then id), never splitting one createdAt between calls (pageOf), each exactly as redeliverWebhook would: dead
 * ones start a new attempt series, pending ones waiting for a retry become due now. Pending ones
 * already due are not selected (there is nothing to hurry). With more than `cap` matching, the
 * answer's nextCreatedFrom is where the next call starts. Delivering and delivered rows are never
 * touched. One audit entry (webhook.redeliver_bulk) per call, also when nothing matched. The body is
 * validated here (400 before anything is read or written).
 */
export function redeliverWebhooks(ctx: AppContext, args: { tenantId: string; input: unknown; cap?: number }, meta: CallMeta): BulkRedelivery {
  return prepareRedeliverWebhooks(ctx, args, meta)();
}

/** redeliverWebhooks with its body checked now, and the write returned for the group commit. */
export function prepareRedeliverWebhooks(
  ctx: AppContext,
  args: { tenantId: string; input: unknown; cap?: number },
  meta: CallMeta,
): PreparedWrite<BulkRedelivery> {
  const input = parseInput(BulkRedeliverInput, args.input, "Bulk redeliver request");
  const cap = args.cap ?? BULK_REDELIVERY_CAP;
  if (!Number.isInteger(cap) || cap < 1) throw new Error(`bulk redelivery cap must be a positive integer, not ${cap}`);
  const filter = { status: input.status, createdFrom: utc(input.createdFrom), createdTo: utc(input.createdTo) };
  return () => writeTx(ctx.db, () => {
    const now = ctx.clock.now();
    const at = now.toISOString();
    // The status as a literal (deliveryWhere): for dead, SQLite reads the partial index
    // webhook_outbox_dead (tenant_id, created_at, id) in this very order.
    const where = deliveryWhere(args.tenantId, { status: filter.status });
    const parts = [where.sql];
    const params: (string | number)[] = [...where.params];
    if (filter.createdFrom) {
      parts.push("created_at >= ?");
      params.push(filter.createdFrom);
    }
    if (filter.createdTo) {
      parts.push("created_at < ?");
      params.push(filter.createdTo);
    }
    if (filter.status === "pending") {
      // Waiting for a retry, not already due: the range of webhook_outbox_claim (next_attempt_at, on
      // pending rows only) after now, so the statement reads the waiting rows of every tenant and
      // none of the tenant's delivered history; without it, the planner walks the tenant's every
      // delivery in createdAt order (webhook_outbox_tenant) under the write lock.
      parts.push("next_attempt_at > ?");
      params.push(at);
    }
    const index = filter.status === "pending" ? " INDEXED BY webhook_outbox_claim" : "";
    const select = (where: string, extra: (string | number)[], limit: number) =>
      ctx.db.sqlite
        .query<{ id: string; created_at: string }, (string | number)[]>(
          `SELECT id, created_at FROM webhook_outbox${index} WHERE ${[...parts, where].join(" AND ")} ORDER BY created_at, id LIMIT ?`,
        )
        .all(...params, ...extra, limit);
    const page = pageOf(select("1", [], cap + 1), cap, (instant) => ({
      whole: select("created_at = ?", [instant], -1),
      after: select("created_at > ?", [instant], 1)[0]?.created_at ?? null,
    }));
    const { nextCreatedFrom } = page;
    const more = nextCreatedFrom !== null;
    const ids = page.taken.map((r) => r.id);
    let redelivered = 0;
    for (const id of ids) redelivered += redeliverRow(ctx.db, { id, status: filter.status }, at);
    // Read and written under the same write lock: every row selected is still in its status.
    if (redelivered !== ids.length) throw new Error(`bulk redelivery changed ${redelivered} of ${ids.length} selected deliveries`);
    appendAudit(ctx.db, {
      chain: args.tenantId,
      action: "webhook.redeliver_bulk",
      targetType: "tenant",
      targetId: args.tenantId,
      at: now,
      meta,
      details: { ...filter, count: redelivered, firstId: ids[0] ?? null, lastId: ids.at(-1) ?? null, more, nextCreatedFrom },
    });
    return { redelivered, more, nextCreatedFrom, ...filter };
  });
}
