import { hostname } from "node:os";
import type { AppContext } from "@/context";
import type { Loop } from "@/jobs/scheduler";
import { randomBase62 } from "@/lib/hash";
import { writeTx } from "@/storage/db";
import { groupCommit } from "@/storage/group-commit";
import { WEBHOOK_LOOP } from "./enqueue";
import type { AttemptRecord, ClaimedRow } from "./outbox-rows";
import { type AttemptResult, claimDue, finishAttempt, reclaimExpired } from "./outbox-store";
import type { RetryPolicy } from "./schedule";
import { type FetchFn, type PreparedReceiver, prepareReceiver, type Receiver, sendDelivery } from "./send";
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
 * as the screening's own commit). They also share one unit of it: the records answered until the
 * unit runs are written by that unit, so a delivery costs no SAVEPOINT, promise or closure of its
 * own. Those per-delivery objects lived through the 10 ms wait, long enough to survive young
 * collections; at 1,600 deliveries/s they were most of what reached the old generation, whose full
 * collections are the server's longest stalls (docs/benchmarks.md, fifteenth stop).
 *
 * A round does not wait for them. It ends when its POSTs are answered, so the next round can claim
 * while the records are still gathering; a row stays 'delivering' under its lease until its record
 * commits, so no round can claim it twice. When rounds waited, each took at least the 10 ms of its
 * records, and 20 rows per round capped delivery at 1,100-1,400 events/s: under a load of 1,800
 * screens/s the outbox fell further behind every second. settle() waits for the records, and the
 * scheduler's stop() calls it before the database closes.
 */
const BOOKKEEPING = { maxDelayMs: 10, recordsOnly: true };

/**
 * A round that follows a partial one (the outbox was drained) first waits this long, so the events
 * committed meanwhile are claimed together: a claim is a transaction of its own (about 0.3 ms), and
 * claiming each event alone at moderate load cost more than the events' own commits. A round after a
 * full one claims at once, so a backlog drains at the speed of the receiver.
 */
const GATHER_MS = 10;

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

  /**
   * Each claimed row's tenant receiver as stored now, read and prepared (secret unsealed, URL policy
   * checked on the resolved addresses) once per tenant per round.
   */
  function receiversOf(rows: readonly ClaimedRow[]): Map<string, Promise<PreparedReceiver>> {
    const receivers = new Map<string, Promise<PreparedReceiver>>();
    const read = ctx.db.sqlite.query<Receiver, [string]>("SELECT webhook_url AS webhookUrl, webhook_secret_enc AS webhookSecretEnc FROM tenants WHERE id = ?");
    for (const row of rows) {
      if (receivers.has(row.tenant_id)) continue;
      const stored = read.get(row.tenant_id) ?? { webhookUrl: null, webhookSecretEnc: null };
      receivers.set(row.tenant_id, prepareReceiver(stored, sendDeps));
    }
    return receivers;
  }

  /** Answered attempts whose records no unit has taken yet (see BOOKKEEPING). */
  let unrecorded: { row: ClaimedRow; attempt: AttemptRecord }[] = [];
  /** Whether a unit that will take `unrecorded` is already waiting in the group commit. */
  let unitQueued = false;
  /** Hands `unrecorded` to the unit that runs (or failed to run) for it; later records queue a new one. */
  function takeUnrecorded(): typeof unrecorded {
    const taken = unrecorded;
    unrecorded = [];
    unitQueued = false;
    return taken;
  }

  /** Units not committed yet, for settle(). */
  const recording = new Set<Promise<void>>();
  /** The first round, and one after a full round (a backlog), claims without gathering first. */
  let claimAtOnce = true;

  /**
   * Queues an answered attempt's record. The unit takes every record answered until it runs. If it
   * fails, its rows keep their leases and are reclaimed when those expire: those attempts are sent
   * again then (delivery is at least once), as when one delivery's record failed alone.
   */
  function record(row: ClaimedRow, attempt: AttemptRecord): void {
    unrecorded.push({ row, attempt });
    if (unitQueued) return;
    unitQueued = true;
    let taken: typeof unrecorded | null = null;
    const recorded = groupCommit(ctx.db)
      .run(() => {
        taken = takeUnrecorded();
        const now = ctx.clock.now();
        return taken.map(({ row, attempt }) => ({ row, attempt, result: finishAttempt(ctx.db, { row, owner, attempt, now, policy: options.retry }) }));
      }, BOOKKEEPING)
      .then(
        (outcomes) => {
          for (const { row, attempt, result } of outcomes) logOutcome(row, attempt, result);
        },
        (error) => {
          // A unit that never ran (its batch's BEGIN failed) drops what it would have taken.
          const lost = taken ?? takeUnrecorded();
          ctx.log.error({ err: error, deliveryIds: lost.map(({ row }) => row.id) }, "webhook attempts could not be recorded");
        },
      );
    recording.add(recorded);
    void recorded.finally(() => recording.delete(recorded));
  }

  /** POSTs one row; resolves when it is answered, leaving its attempt record to commit in the background. */
  async function deliver(row: ClaimedRow, receiver: Promise<PreparedReceiver>): Promise<void> {
    record(row, await sendDelivery(row, receiver, sendDeps));
  }

  function logOutcome(row: ClaimedRow, attempt: AttemptRecord, result: AttemptResult): void {
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
      if (!claimAtOnce) await new Promise((resolve) => setTimeout(resolve, GATHER_MS));
      if (signal.aborted) return false;
      const now = ctx.clock.now();
      // The claim commits at once: its rows must be 'delivering' under this lease before any POST
      // goes out. Wakes that arrive while the round delivers make one more round (Scheduler.wake).
      const claimed = writeTx(ctx.db, () => {
        const reclaimed = reclaimExpired(ctx.db, now, options.retry);
        if (reclaimed > 0) ctx.log.warn({ reclaimed }, "reclaimed webhook deliveries whose lease expired");
        return claimDue(ctx.db, { owner, now, leaseMs: options.leaseMs, limit: options.batchSize });
      }, { recordsOnly: true });
      // One failing row must not hold back the others; its lease expires and it is reclaimed.
      const receivers = receiversOf(claimed);
      const outcomes = await Promise.allSettled(claimed.map((row) => deliver(row, receivers.get(row.tenant_id)!)));
      for (const outcome of outcomes) {
        if (outcome.status === "rejected") ctx.log.error({ err: outcome.reason }, "webhook delivery failed unexpectedly");
      }
      claimAtOnce = claimed.length === options.batchSize;
      return claimAtOnce;
    },
    async settle() {
      while (recording.size > 0) await Promise.allSettled(recording);
    },
  };
}
