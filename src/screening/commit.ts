import { appendAudit } from "@/audit/append";
import type { CallMeta } from "@/context";
import { writeTx } from "@/storage/db";
import { groupCommit } from "@/storage/group-commit";
import { chargeScreens } from "@/usage/quota";
import { enqueueWebhook } from "@/webhooks/enqueue";
import type { OutboxRow } from "@/webhooks/outbox-rows";
import { webhookPayloadFromOutcome } from "@/webhooks/payload";
import { findReplay, type IdempotencyClaim, rememberKey } from "./idempotency";
import { insertScreening } from "./store";
import type { ScreeningDeps, ScreenOutcome } from "./deps";
import type { ScreeningRecord } from "./types";
import { outcomeSummary } from "./view";

export interface CommitOptions {
  /** Charge one screen per record against the quota (monitoring re-screens are not charged). */
  charge: boolean;
  /** Single screens only: the key is checked again and recorded inside the transaction. */
  idempotency?: IdempotencyClaim | null;
}

/** `events`: the webhook events put in the outbox (none when the tenant has no webhook URL), for deps.outbox.committed. */
export type CommitResult =
  | { replayed: false; records: ScreeningRecord[]; events: OutboxRow[] }
  | { replayed: true; records: [ScreeningRecord]; events: [] };

/**
 * Stores finished screenings in ONE write transaction: per record the screening row, its case row,
 * an audit entry and the screening.completed outbox event, plus the quota charge for all of them.
 * The quota and the idempotency key are checked here, under the write lock, which makes them
 * authoritative: concurrent requests cannot pass the cap or both claim one key.
 */
export function commitScreenings(deps: ScreeningDeps, tenantId: string, records: ScreeningRecord[], meta: CallMeta, options: CommitOptions): CommitResult {
  const now = deps.clock.now();
  return writeTx(deps.db, (): CommitResult => {
    const claim = options.idempotency ?? null;
    if (claim) {
      const original = findReplay(deps.db, tenantId, claim, now);
      if (original) return { replayed: true, records: [original], events: [] };
    }
    if (options.charge && records.length > 0) chargeScreens(deps.db, tenantId, records.length, now);
    const lease = deps.outbox.lease(now);
    const events: OutboxRow[] = [];
    for (const record of records) {
      insertScreening(deps.db, tenantId, record, options.charge);
      appendAudit(deps.db, {
        chain: tenantId,
        action: "screening.create",
        targetType: "screening",
        targetId: record.id,
        at: now,
        meta,
        // No personal data: ids and the outcome only.
        details: { decision: record.decision, origin: record.origin, rescreenOf: record.rescreenOf, snapshotId: record.listVersions.snapshotId },
      });
      const event = enqueueWebhook(deps.db, { tenantId, event: "screening.completed", payload: completedPayload(record), at: now }, lease);
      if (event) events.push(event);
    }
    if (claim && records[0]) rememberKey(deps.db, tenantId, claim, records[0].id, now, deps.config.idempotencyTtlHours);
    return { replayed: false, records, events };
  });
}

/**
 * A single screen's commit (check, rescreen): commitScreenings in the connection's next group commit
 * (storage/group-commit.ts), where concurrent single screens share one write transaction, each under
 * its own savepoint. Resolves only after that transaction committed, then hands the event to the
 * dispatcher (a unit rolled back by its savepoint hands over nothing). A failure (quota, reused key)
 * rejects this call alone.
 */
export async function commitSingleScreen(
  deps: ScreeningDeps,
  tenantId: string,
  record: ScreeningRecord,
  meta: CallMeta,
  idempotency: IdempotencyClaim | null,
): Promise<ScreenOutcome> {
  const result = await groupCommit(deps.db).run(() => commitScreenings(deps, tenantId, [record], meta, { charge: true, idempotency }));
  deps.outbox.committed(result.events);
  return { record: result.records[0], replayed: result.replayed };
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
