import { appendAudit } from "@/audit/append";
import type { AppContext, CallMeta } from "@/context";
import { writeTx } from "@/storage/db";
import { groupCommit } from "@/storage/group-commit";
import { chargeScreens } from "@/usage/quota";
import { withAdmittedScreens } from "@/usage/rate-limit";
import { enqueueWebhook } from "@/webhooks/enqueue";
import { webhookPayloadFromOutcome } from "@/webhooks/payload";
import { findReplay, type IdempotencyClaim, rememberKey } from "./idempotency";
import { runScreening, type ScreenRequest } from "./run";
import { insertScreening } from "./store";
import { requireLists, type ScreeningDeps, type ScreenOutcome } from "./deps";
import type { ScreeningRecord } from "./types";
import { outcomeSummary } from "./view";

export interface CommitOptions {
  /** Charge one screen per record against the quota (monitoring re-screens are not charged). */
  charge: boolean;
  /** Single screens only: the key is checked again and recorded inside the transaction. */
  idempotency?: IdempotencyClaim | null;
}

/** `queued`: webhook events put in the outbox (0 when the tenant has no webhook URL). */
export type CommitResult =
  | { replayed: false; records: ScreeningRecord[]; queued: number }
  | { replayed: true; records: [ScreeningRecord]; queued: 0 };

/**
 * Stores finished screenings in ONE write transaction: per record the screening row, its case row,
 * an audit entry and the screening.completed outbox event, plus the quota charge for all of them.
 * The quota and the idempotency key are checked here, under the write lock, which makes them
 * authoritative: concurrent requests cannot pass the cap or both claim one key.
 */
export function commitScreenings(ctx: AppContext, tenantId: string, records: ScreeningRecord[], meta: CallMeta, options: CommitOptions): CommitResult {
  const now = ctx.clock.now();
  return writeTx(ctx.db, (): CommitResult => {
    const claim = options.idempotency ?? null;
    if (claim) {
      const original = findReplay(ctx.db, tenantId, claim, now);
      if (original) return { replayed: true, records: [original], queued: 0 };
    }
    // Charged to the month of the screenings' createdAt (one instant for a request's records), which
    // the pre-check used too, not to the month of this commit: a bulk that starts before midnight at
    // a month's end and commits after it belongs to the month its records are dated in.
    if (options.charge && records[0]) chargeScreens(ctx.db, tenantId, records.length, new Date(records[0].createdAt));
    let queued = 0;
    for (const record of records) {
      insertScreening(ctx.db, tenantId, record, options.charge);
      appendAudit(ctx.db, {
        chain: tenantId,
        action: "screening.create",
        targetType: "screening",
        targetId: record.id,
        at: now,
        meta,
        // No personal data: ids and the outcome only.
        details: { decision: record.decision, origin: record.origin, rescreenOf: record.rescreenOf, snapshotId: record.listVersions.snapshotId },
      });
      if (enqueueWebhook(ctx.db, { tenantId, event: "screening.completed", payload: completedPayload(record), at: now })) queued++;
    }
    if (claim && records[0]) rememberKey(ctx.db, tenantId, claim, records[0].id, now, ctx.config.idempotencyTtlHours);
    return { replayed: false, records, queued };
  }, { recordsOnly: true });
}

/**
 * A single screen's commit (check, rescreen): commitScreenings in the connection's next group commit
 * (storage/group-commit.ts), where concurrent single screens share one write transaction, each under
 * its own savepoint. Resolves only after that transaction committed, then wakes the dispatcher if an
 * event was queued (waking it for nothing costs a claim transaction). A failure (quota, reused key)
 * rejects this call alone.
 */
async function commitSingleScreen(
  deps: ScreeningDeps,
  tenantId: string,
  record: ScreeningRecord,
  meta: CallMeta,
  idempotency: IdempotencyClaim | null,
): Promise<ScreenOutcome> {
  const result = await groupCommit(deps.db).run(() => commitScreenings(deps, tenantId, [record], meta, { charge: true, idempotency }), { recordsOnly: true });
  if (result.queued > 0) deps.announce();
  return { record: result.records[0], replayed: result.replayed };
}

/**
 * A single screen (check, rescreen) once its caller has validated it and checked the quota: against
 * the serving lists (503 without them), admitted by the rate limit, matched, and committed, with the
 * call's correlation id. When a concurrent request with the same Idempotency-Key committed first,
 * this one returns that screening and stored nothing, so its token goes back.
 */
export function screenOne(
  deps: ScreeningDeps,
  args: { tenantId: string; meta: CallMeta; claim: IdempotencyClaim | null; now: Date },
  screen: Omit<ScreenRequest, "correlationId">,
): Promise<ScreenOutcome> {
  const lists = requireLists(deps);
  const request: ScreenRequest = { ...screen, correlationId: args.meta.correlationId ?? null };
  return withAdmittedScreens(deps, args.tenantId, 1, async (giveBack) => {
    const record = runScreening(lists, request, args.now);
    const outcome = await commitSingleScreen(deps, args.tenantId, record, args.meta, args.claim);
    if (outcome.replayed) giveBack(1);
    return outcome;
  });
}

function completedPayload(record: ScreeningRecord) {
  return webhookPayloadFromOutcome("screening.completed", {
    screeningId: record.id,
    userReference: record.userReference,
    createdAt: record.createdAt,
    correlationId: record.correlationId,
    ...outcomeSummary(record),
  });
}
