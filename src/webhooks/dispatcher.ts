import { hostname } from "node:os";
import type { AppContext } from "@/context";
import type { Loop } from "@/jobs/scheduler";
import { randomBase62 } from "@/lib/hash";
import { writeTx } from "@/storage/db";
import { groupCommit } from "@/storage/group-commit";
import { WEBHOOK_LOOP } from "./enqueue";
import type { AttemptRecord, OutboxRow } from "./outbox-rows";
import type { OutboxHandoff } from "./handoff";
import { type AttemptResult, claimDue, finishAttempt, reclaimExpired, releaseLease } from "./outbox-store";
import type { RetryPolicy } from "./schedule";
import { type FetchFn, type Receiver, sendDelivery } from "./send";
import type { LookupFn } from "./send-target";

export interface DispatcherOptions {
  retry: RetryPolicy;
  fetch: FetchFn;
  lookup: LookupFn;
  /** Interval between claims from the table (retries that fell due, events queued elsewhere); also the idle poll. */
  intervalMs: number;
  /** Rows claimed (and sent concurrently) per round; as many again may come from the handoff queue. */
  batchSize: number;
  /** Must outlast a DNS lookup plus a POST plus the commit, or a live attempt could be reclaimed. */
  leaseMs: number;
  /** Lease owner id; unique per dispatcher so the compare-and-set can tell dispatchers apart. */
  owner?: string;
  /** Runs the next round now (the scheduler's wake); without it the caller drives tick(). */
  wake?: () => void;
}

export interface WebhookDispatcher extends Loop {
  owner: string;
  /** For the commits in this process that queue events (handoff.ts). */
  handoff: OutboxHandoff;
  /** Claims from the table in the next round, run now: e.g. after a redelivery made a row pending. */
  claimSoon(): void;
}

/**
 * Attempt records go through the group commit as background work: those finishing within 10 ms
 * share one transaction instead of paying for a COMMIT each (per delivery, that cost about as much
 * as the screening's own commit).
 *
 * A round does not wait for them. It ends when its POSTs are answered, so the next round can start
 * while the records are still gathering; a row stays 'delivering' under its lease until its record
 * commits, so no round can claim it twice. When rounds waited, each took at least the 10 ms of its
 * records, and 20 rows per round capped delivery at 1,100-1,400 events/s: under a load of 1,800
 * screens/s the outbox fell further behind every second. settle() waits for the records, and the
 * scheduler's stop() calls it before the database closes.
 */
const BOOKKEEPING = { maxDelayMs: 10 };

/**
 * Leased events held in memory at most (about 1 MB of payloads). Past it, commits queue events
 * 'pending' and the dispatcher claims them from the table, so a receiver that cannot keep up costs
 * rows in SQLite, not memory.
 */
const HANDOFF_CAP = 2_000;

/**
 * The outbox loop for the scheduler. Each round sends the events handed over by this process's
 * commits (already leased to it), and, every intervalMs or when asked, also reclaims expired leases
 * and claims due rows from the table. Each attempt's outcome is recorded in the background.
 */
export function createWebhookDispatcher(ctx: AppContext, options: DispatcherOptions): WebhookDispatcher {
  const owner = options.owner ?? `${hostname()}:${process.pid}:${randomBase62(8)}`;
  const wake = options.wake ?? (() => undefined);
  const sendDeps = {
    secrets: ctx.secrets,
    urlPolicy: { allowPrivate: ctx.config.webhooks.allowPrivateNetworks },
    timeoutMs: ctx.config.webhooks.timeoutMs,
    fetch: options.fetch,
    lookup: options.lookup,
    now: () => ctx.clock.now(),
  };

  /** Each row's tenant receiver as stored now, read once per tenant per round. */
  function receiversOf(rows: readonly OutboxRow[]): Map<string, Receiver> {
    const receivers = new Map<string, Receiver>();
    const read = ctx.db.sqlite.query<Receiver, [string]>("SELECT webhook_url AS webhookUrl, webhook_secret_enc AS webhookSecretEnc FROM tenants WHERE id = ?");
    for (const row of rows) {
      if (!receivers.has(row.tenant_id)) receivers.set(row.tenant_id, read.get(row.tenant_id) ?? { webhookUrl: null, webhookSecretEnc: null });
    }
    return receivers;
  }

  /** Events handed over by this process's commits, leased to this dispatcher, oldest first. */
  const handed: OutboxRow[] = [];
  /** Background commits not finished yet: attempt records and released leases (see BOOKKEEPING). */
  const recording = new Set<Promise<void>>();
  /** Claim from the table in the next round: the first round, after a full claim (a backlog), or when asked. */
  let claimWanted = true;
  let nextClaimAt = 0;
  let stopped = false;

  function track(work: Promise<void>): void {
    recording.add(work);
    void work.finally(() => recording.delete(work));
  }

  /**
   * Up to a batch of handed events to send now. One that waited in the queue until less than half
   * its lease is left is given back instead (a receiver slower than the load): a claim gives a full
   * lease, and an attempt must not start on a lease that might expire before its record commits.
   */
  function takeHanded(now: Date): OutboxRow[] {
    const batch = handed.splice(0, options.batchSize);
    const sendBefore = now.getTime() + options.leaseMs / 2;
    const fresh: OutboxRow[] = [];
    const stale: OutboxRow[] = [];
    for (const row of batch) (Date.parse(row.lease_expires_at ?? "") >= sendBefore ? fresh : stale).push(row);
    if (stale.length > 0) release(stale);
    return fresh;
  }

  /** Gives leases back (releaseLease) in a background commit; the rows are then claimed from the table. */
  function release(rows: readonly OutboxRow[]): void {
    track(
      groupCommit(ctx.db)
        .run(() => {
          const now = ctx.clock.now();
          for (const row of rows) releaseLease(ctx.db, row, owner, now);
        }, BOOKKEEPING)
        .then(
          () => {
            if (!stopped) claimSoon();
          },
          // The leases expire and the rows are reclaimed then, with an interrupted attempt logged.
          (error) => ctx.log.error({ err: error, deliveries: rows.length }, "webhook leases could not be given back"),
        ),
    );
  }

  function claimSoon(): void {
    claimWanted = true;
    wake();
  }

  const handoff: OutboxHandoff = {
    lease: (now) => (stopped || handed.length >= HANDOFF_CAP ? null : { owner, expiresAt: new Date(now.getTime() + options.leaseMs) }),
    committed(events) {
      let pending = false;
      const mine: OutboxRow[] = [];
      for (const row of events) {
        if (row.lease_owner === owner) mine.push(row);
        else pending = true;
      }
      // A commit that finished after the dispatcher stopped (a request past the shutdown grace).
      if (stopped) {
        if (mine.length > 0) release(mine);
        return;
      }
      handed.push(...mine);
      if (pending) claimSoon();
      else if (mine.length > 0) wake();
    },
  };

  /** POSTs one row; resolves when it is answered, leaving its attempt record to commit in the background. */
  async function deliver(row: OutboxRow, receiver: Receiver): Promise<void> {
    const attempt = await sendDelivery(row, receiver, sendDeps);
    track(
      groupCommit(ctx.db)
        .run(() => finishAttempt(ctx.db, { row, owner, attempt, now: ctx.clock.now(), policy: options.retry }), BOOKKEEPING)
        .then(
          (result) => logOutcome(row, attempt, result),
          // The row keeps its lease and is reclaimed when it expires; the attempt is sent again then.
          (error) => ctx.log.error({ err: error, deliveryId: row.id }, "webhook attempt could not be recorded"),
        ),
    );
  }

  function logOutcome(row: OutboxRow, attempt: AttemptRecord, result: AttemptResult): void {
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
    handoff,
    claimSoon,
    async tick(signal) {
      if (signal.aborted) return false;
      const now = ctx.clock.now();
      const rows = takeHanded(now);
      if (claimWanted || now.getTime() >= nextClaimAt) {
        // The claim commits at once: its rows must be 'delivering' under this lease before any POST
        // goes out. Wakes that arrive while the round delivers make one more round (Scheduler.wake).
        const claimed = writeTx(ctx.db, () => {
          const reclaimed = reclaimExpired(ctx.db, now, options.retry);
          if (reclaimed > 0) ctx.log.warn({ reclaimed }, "reclaimed webhook deliveries whose lease expired");
          return claimDue(ctx.db, { owner, now, leaseMs: options.leaseMs, limit: options.batchSize });
        });
        nextClaimAt = now.getTime() + options.intervalMs;
        // A full claim means a backlog: the next round claims again, so it drains at the receiver's speed.
        claimWanted = claimed.length === options.batchSize;
        rows.push(...claimed);
      }
      // One failing row must not hold back the others; its lease expires and it is reclaimed.
      const receivers = receiversOf(rows);
      const outcomes = await Promise.allSettled(rows.map((row) => deliver(row, receivers.get(row.tenant_id)!)));
      for (const outcome of outcomes) {
        if (outcome.status === "rejected") ctx.log.error({ err: outcome.reason }, "webhook delivery failed unexpectedly");
      }
      return claimWanted || handed.length > 0;
    },
    /** Gives back the leases of handed events not sent yet (the next start claims them), then waits for the records. */
    async settle() {
      stopped = true;
      const unsent = handed.splice(0);
      if (unsent.length > 0) release(unsent);
      while (recording.size > 0) await Promise.allSettled(recording);
    },
  };
}
