import { hostname } from "node:os";
import type { AppContext } from "@/context";
import type { Loop } from "@/jobs/scheduler";
import { randomBase62 } from "@/lib/hash";
import { writeTx } from "@/storage/db";
import { groupCommit } from "@/storage/group-commit";
import { WEBHOOK_LOOP } from "./enqueue";
import type { OutboxRow } from "./outbox-rows";
import { claimDue, finishAttempt, reclaimExpired } from "./outbox-store";
import type { RetryPolicy } from "./schedule";
import { type FetchFn, type Receiver, sendDelivery } from "./send";
import type { LookupFn } from "./send-target";

export interface DispatcherOptions {
  retry: RetryPolicy;
  fetch: FetchFn;
  lookup: LookupFn;
  /** Poll interval when idle; a wake() after an enqueue skips the wait. */
  intervalMs: number;
  /** Rows claimed (and sent concurrently) per round. */
  batchSize: number;
  /** Must outlast a DNS lookup plus a POST plus the commit, or a live attempt could be reclaimed. */
  leaseMs: number;
  /** Lease owner id; unique per dispatcher so the compare-and-set can tell dispatchers apart. */
  owner?: string;
}

/**
 * Attempt records go through the group commit as background work: those finishing within 10 ms
 * share one transaction instead of paying for a COMMIT each (per delivery, that cost about as much
 * as the screening's own commit). A round therefore ends at most 10 ms after its last answer.
 */
const BOOKKEEPING = { maxDelayMs: 10 };

/** The outbox loop for the scheduler: reclaim expired leases, claim due rows, POST them, record each attempt. */
export function createWebhookDispatcher(ctx: AppContext, options: DispatcherOptions): Loop & { owner: string } {
  const owner = options.owner ?? `${hostname()}:${process.pid}:${randomBase62(8)}`;
  const sendDeps = {
    secrets: ctx.secrets,
    urlPolicy: { allowPrivate: ctx.config.webhooks.allowPrivateNetworks },
    timeoutMs: ctx.config.webhooks.timeoutMs,
    fetch: options.fetch,
    lookup: options.lookup,
    now: () => ctx.clock.now(),
  };

  /** Each claimed row's tenant receiver as stored now, read once per tenant per round. */
  function receiversOf(rows: readonly OutboxRow[]): Map<string, Receiver> {
    const receivers = new Map<string, Receiver>();
    const read = ctx.db.sqlite.query<Receiver, [string]>("SELECT webhook_url AS webhookUrl, webhook_secret_enc AS webhookSecretEnc FROM tenants WHERE id = ?");
    for (const row of rows) {
      if (!receivers.has(row.tenant_id)) receivers.set(row.tenant_id, read.get(row.tenant_id) ?? { webhookUrl: null, webhookSecretEnc: null });
    }
    return receivers;
  }

  async function deliver(row: OutboxRow, receiver: Receiver): Promise<void> {
    const attempt = await sendDelivery(row, receiver, sendDeps);
    const result = await groupCommit(ctx.db).run(
      () => finishAttempt(ctx.db, { row, owner, attempt, now: ctx.clock.now(), policy: options.retry }),
      BOOKKEEPING,
    );
    const fields = { deliveryId: row.id, tenantId: row.tenant_id, event: row.event, attempt: row.attempts, statusCode: attempt.statusCode };
    if (result === "lease_lost") {
      ctx.log.warn(fields, "webhook lease was reclaimed before this attempt finished; its outcome is not recorded");
    } else if (result === "dead") {
      ctx.log.warn({ ...fields, error: attempt.error }, "webhook delivery is dead after its last attempt");
    } else if (result === "retry") {
      ctx.log.info({ ...fields, error: attempt.error }, "webhook attempt failed; retry scheduled");
    } else {
      ctx.log.debug(fields, "webhook delivered");
    }
  }

  return {
    name: WEBHOOK_LOOP,
    intervalMs: options.intervalMs,
    owner,
    async tick(signal) {
      if (signal.aborted) return false;
      const now = ctx.clock.now();
      // The claim commits at once: a round claims everything due, and wakes that arrive while it
      // delivers make one more round (Scheduler.wake), so claims batch under load by themselves.
      const claimed = writeTx(ctx.db, () => {
        const reclaimed = reclaimExpired(ctx.db, now, options.retry);
        if (reclaimed > 0) ctx.log.warn({ reclaimed }, "reclaimed webhook deliveries whose lease expired");
        return claimDue(ctx.db, { owner, now, leaseMs: options.leaseMs, limit: options.batchSize });
      });
      // One failing row must not hold back the others; its lease expires and it is reclaimed.
      const receivers = receiversOf(claimed);
      const outcomes = await Promise.allSettled(claimed.map((row) => deliver(row, receivers.get(row.tenant_id)!)));
      for (const outcome of outcomes) {
        if (outcome.status === "rejected") ctx.log.error({ err: outcome.reason }, "webhook delivery failed unexpectedly");
      }
      return claimed.length === options.batchSize;
    },
  };
}
