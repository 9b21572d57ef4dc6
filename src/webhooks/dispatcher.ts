import { hostname } from "node:os";
import type { AppContext } from "@/context";
import type { Loop } from "@/jobs/scheduler";
import { randomBase62 } from "@/lib/hash";
import { isDatabaseBusy, WriteLockTaken, writeTx } from "@/storage/db";
import { groupCommit } from "@/storage/group-commit";
import { WEBHOOK_LOOP } from "./enqueue";
import type { AttemptRecord, ClaimedRow } from "./outbox-rows";
import { type AttemptResult, type ClaimRoom, claimDueFairly, finishAttempt, reclaimExpired } from "./outbox-store";
import type { RetryPolicy } from "./schedule";
import { type FetchFn, type PreparedReceiver, prepareReceiver, type Receiver, sendDelivery } from "./send";
import type { ProxyEnv } from "./pinning";
import type { LookupFn } from "./send-target";

export interface DispatcherOptions {
  retry: RetryPolicy;
  fetch: FetchFn;
  lookup: LookupFn;
  /** The proxy variables Bun's fetch follows; default process.env. A proxied receiver is not pinned (pinning.ts). */
  proxyEnv?: ProxyEnv;
  /** Poll interval when idle; a wake() after an enqueue skips the wait. */
  intervalMs: number;
  /** Deliveries in flight at once, across tenants: the slots that answered POSTs hand back to the next claim. */
  slots: number;
  /** Deliveries in flight at once for a tenant whose receiver is slow; default SLOW_TENANT_SLOTS. */
  slowTenantSlots?: number;
  /** Must outlast a DNS lookup plus a POST plus the commit, or a live attempt could be reclaimed. */
  leaseMs: number;
  /** Lease owner id; unique per dispatcher so the compare-and-set can tell dispatchers apart. */
  owner?: string;
  /** Runs the loop's next round (Scheduler.wake): an answered POST calls it when its slot can take a row the last claim had to leave. */
  wake?: () => void;
}

/**
 * Per-tenant shares of the slots. A receiver that hangs holds each of its POSTs for the whole timeout
 * (5 s by default). When one tenant could take every slot, a bulk of 60 events to a receiver answering
 * after 6 s held back another tenant's single event for 15.5 s, and a dead receiver with a large
 * backlog would have held back every tenant for minutes.
 *
 * So no tenant may hold more than `slots` minus this many (16 of 20): however its receiver behaves,
 * the other tenants keep 4. And a tenant whose receiver is slow (SLOW_RECEIVER_MS) may hold only this
 * many: it takes five slow receivers at once to fill the pool. A healthy receiver keeps the larger
 * share because a tenant's slots are refilled at most once per event-loop turn, each refill a claim:
 * at 2,000 events/s to one receiver answering in 2 ms, with the thread 60% busy otherwise (a harness,
 * not the bench), 4 slots took 0.33 claims per delivery and fell behind (1,760 events queued after
 * 6 s); 16 took 0.07 and kept up, as 20 did.
 */
export const SLOW_TENANT_SLOTS = 4;

/**
 * A receiver is slow once an attempt got no answer (timeout, connection error, or no POST at all) or
 * took longer than this, or once its POSTs have been in flight this long without any answer. It is
 * healthy again when an attempt is answered within this time. A healthy receiver answers in
 * milliseconds; the docs ask receivers to answer quickly and do slow work afterwards.
 */
const SLOW_RECEIVER_MS = 1_000;

/**
 * A claim reads every due row of the tenants out of room to pass over them (claimDue): 12 ms for a dead
 * receiver's backlog of 100,000 rows. After a claim that took SLOW_CLAIM_MS or more, the next one
 * waits CLAIM_SPACING times as long (at most the poll interval; a wait for the write lock does not
 * count), so such claims use at most a tenth of the thread instead of all
 * of it. An ordinary claim (0.1-0.5 ms) is not spaced: a backlog drains at the speed of the receiver.
 */
const SLOW_CLAIM_MS = 1;
const CLAIM_SPACING = 9;
/**
 * Passing over a tenant's backlog to reach other tenants' rows (claimDueFairly) has a cost of its own,
 * spaced the same way but apart from the claims: the backlogged tenant's own claims are cheap, and
 * spacing them by the pass's cost throttled its drain to 25 events/s (187,000 rows, 59 ms a pass).
 * Other tenants' rows behind such a backlog wait at most this long for the next pass.
 */
const MAX_PASS_OVER_SPACING_MS = 2_000;

/**
 * Attempt records go through the group commit as background work: those finishing within 10 ms
 * share one transaction instead of paying for a COMMIT each (per delivery, that cost about as much
 * as the screening's own commit). They also share one unit of it: the records answered until the
 * unit runs are written by that unit, so a delivery costs no SAVEPOINT, promise or closure of its
 * own. Those per-delivery objects lived through the 10 ms wait, long enough to survive young
 * collections; at 1,600 deliveries/s they were most of what reached the old generation, whose full
 * collections are the server's longest stalls (docs/benchmark-log.md, fifteenth stop).
 *
 * No claim waits for them. An answered POST frees its slot at once, so the next claim can take it
 * while the records are still gathering; a row stays 'delivering' under its lease until its record
 * commits, so no claim can take it twice. When rounds waited, each took at least the 10 ms of its
 * records, and 20 rows per round capped delivery at 1,100-1,400 events/s: under a load of 1,800
 * screens/s the outbox fell further behind every second. settle() waits for the POSTs in flight and
 * then for the records, and the scheduler's stop() calls it before the database closes.
 */
const BOOKKEEPING = { maxDelayMs: 10, recordsOnly: true };

/**
 * A claim that follows a partial one (the outbox was drained) first waits this long, so the events
 * committed meanwhile are claimed together: a claim is a transaction of its own (about 0.3 ms), and
 * claiming each event alone at moderate load cost more than the events' own commits. A claim that
 * follows a full one goes at once, and one that refills slots answered POSTs freed while rows were
 * left behind (a backlog) waits only for the end of the event-loop turn, so the POSTs answered in that
 * turn share it: a backlog drains at the speed of the receiver.
 */
const GATHER_MS = 10;

/** A tenant's POSTs in flight and how its receiver has been answering. */
interface TenantState {
  held: number;
  slow: boolean;
  /** performance.now() of its last answer, or of its first POST in flight since the last answer. */
  answeredAt: number;
  /** The last claim filled its share, so rows of it may have been left behind: a refill is due once half of it is free. */
  usedShare: boolean;
}

/** The outbox loop for the scheduler: reclaim expired leases, claim due rows, POST them, record each attempt. */
export function createWebhookDispatcher(ctx: AppContext, options: DispatcherOptions): Loop & { owner: string } {
  const owner = options.owner ?? `${hostname()}:${process.pid}:${randomBase62(8)}`;
  const sendDeps = {
    secrets: ctx.secrets,
    urlPolicy: { allowPrivate: ctx.config.webhooks.allowPrivateNetworks },
    timeoutMs: ctx.config.webhooks.timeoutMs,
    fetch: options.fetch,
    lookup: options.lookup,
    proxyEnv: options.proxyEnv ?? process.env,
    now: () => ctx.clock.now(),
  };

  /**
   * Each claimed row's tenant receiver as stored now, read and prepared (secret unsealed, URL policy
   * checked on the resolved addresses) once per tenant per claim.
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

  /**
   * Rows this dispatcher works on, with when it began (performance.now()): a POST in flight, or an
   * outcome waiting to be written. The claim's reclaim passes over them (HeldLeases) for as long as
   * a lease lasts on the monotonic clock, which a wall-clock jump does not move; past that, a row
   * stuck by a fault is reclaimed as after a crash. A row leaves when its outcome is written, or when
   * it is given up (an unexpected error, a record that failed): its lease then returns it to the queue.
   */
  const inHand = new Map<string, number>();

  /** The rows in hand for less than a lease: the ones the reclaim leaves alone. */
  function leasesInHand(): Set<string> {
    const now = performance.now();
    const ids = new Set<string>();
    for (const [id, since] of inHand) if (now - since < options.leaseMs) ids.add(id);
    return ids;
  }

  /**
   * Records refused because another process held the write lock past busy_timeout, queued again:
   * until they are written no claim runs, since one would reclaim their rows once the leases ran out
   * and send those events again although their receivers had answered.
   */
  let recordsWaitForLock = false;
  /** settle() has begun: records are no longer queued again, so a stop waits at most busy_timeout for them. */
  let settling = false;

  /** Ends the pause of claims that records waiting for the lock began, and runs a round. */
  function claimsResume(): void {
    if (!recordsWaitForLock) return;
    recordsWaitForLock = false;
    options.wake?.();
  }

  /** Queues an answered attempt's record; the unit takes every record answered until it runs (queueRecords). */
  function record(row: ClaimedRow, attempt: AttemptRecord): void {
    unrecorded.push({ row, attempt });
    queueRecords();
  }

  /**
   * The unit that writes `unrecorded`, unless one is waiting already. If it fails because another
   * process holds the write lock (a list import, a sqlite3 shell), its records are kept and queued
   * again: the receivers answered, and an outcome dropped would be sent again by a lease reclaim.
   * If it fails otherwise (a full disk), or during a stop, its rows keep their leases and are
   * reclaimed when those expire: those attempts are sent again then (delivery is at least once).
   */
  function queueRecords(): void {
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
          claimsResume();
          for (const { row, attempt, result } of outcomes) {
            inHand.delete(row.id);
            logOutcome(row, attempt, result);
          }
        },
        (error) => {
          // A unit that never ran (its batch's BEGIN failed) hands back what it would have taken.
          const lost = taken ?? takeUnrecorded();
          if (isDatabaseBusy(error) && !settling) {
            if (!recordsWaitForLock) {
              ctx.log.warn({ deliveryIds: lost.map(({ row }) => row.id) }, "webhook attempts wait to be recorded: another process holds the database's write lock");
            }
            recordsWaitForLock = true;
            unrecorded.push(...lost);
            queueRecords();
            return;
          }
          // Given up (a full disk, a stop): their rows are reclaimed when their leases expire, so
          // claims go on; a pause left standing would stop every delivery until a restart.
          claimsResume();
          for (const { row } of lost) inHand.delete(row.id);
          ctx.log.error({ err: error, deliveryIds: lost.map(({ row }) => row.id) }, "webhook attempts could not be recorded");
        },
      );
    recording.add(recorded);
    void recorded.finally(() => recording.delete(recorded));
  }

  const slowShare = options.slowTenantSlots ?? SLOW_TENANT_SLOTS;
  const share = Math.max(slowShare, options.slots - slowShare);
  /** POSTs not answered yet, across tenants. */
  let inFlight = 0;
  /** Tenants with POSTs in flight or a slow receiver; one a tenant, never one a delivery. */
  const tenants = new Map<string, TenantState>();
  /** The first claim, and one after a full claim (a backlog), goes without gathering first. */
  let claimAtOnce = true;
  /** An answered POST freed a slot the last claim could not fill; the next claim goes at the end of this turn. */
  let refill = false;
  /** A round is waiting to claim: a freed slot needs no wake, that claim will see it. */
  let claimPending = false;
  /** How long the last claim's transaction took, in ms (SLOW_CLAIM_MS), its passing over backlogs aside. */
  let lastClaimMs = 0;
  /** performance.now() before which no claim passes over a backlog again (MAX_PASS_OVER_SPACING_MS). */
  let passOverNotBefore = 0;
  /** Ends the gathering wait of the round about to claim, while one waits. */
  let endGather: (() => void) | null = null;
  /** settle()'s wait for the last POST in flight, while one waits. */
  let idle: PromiseWithResolvers<void> | null = null;

  /** Waits GATHER_MS, or less if release() has slots to refill meanwhile: the claim then has a backlog to take at once. */
  function gather(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, GATHER_MS);
      function done() {
        clearTimeout(timer);
        endGather = null;
        resolve();
      }
      endGather = done;
    });
  }

  const shareOf = (tenant: TenantState) => (tenant.slow ? slowShare : share);

  /** Each tenant's room for the next claim; a tenant whose POSTs have hung since SLOW_RECEIVER_MS is slow now. */
  function roomFor(nowMs: number): ClaimRoom {
    const of = new Map<string, number>();
    for (const [id, tenant] of tenants) {
      if (tenant.held > 0 && nowMs - tenant.answeredAt > SLOW_RECEIVER_MS) tenant.slow = true;
      of.set(id, shareOf(tenant) - tenant.held);
    }
    return { of, other: share };
  }

  /**
   * POSTs one claimed row, holding its slots until it is answered; its attempt record then commits
   * in the background. Never rejects: one failing row must not hold back the others, and an attempt
   * that was never recorded is reclaimed when its lease expires.
   */
  async function deliver(row: ClaimedRow, receiver: Promise<PreparedReceiver>): Promise<void> {
    let tenant = tenants.get(row.tenant_id);
    if (!tenant) {
      tenant = { held: 0, slow: false, answeredAt: 0, usedShare: false };
      tenants.set(row.tenant_id, tenant);
    }
    // Here, not at the claim: a row whose deliver() never ran (receiversOf threw) is left to its lease.
    inHand.set(row.id, performance.now());
    // "No answer for SLOW_RECEIVER_MS" counts from the first POST in flight.
    if (tenant.held === 0) tenant.answeredAt = performance.now();
    tenant.held++;
    inFlight++;
    let attempt: AttemptRecord | null = null;
    try {
      attempt = await sendDelivery(row, receiver, sendDeps);
      record(row, attempt);
    } catch (error) {
      inHand.delete(row.id);
      ctx.log.error({ err: error, deliveryId: row.id }, "webhook delivery failed unexpectedly");
    } finally {
      release(row.tenant_id, tenant, attempt);
    }
  }

  /**
   * Hands an answered POST's slots back and notes how its receiver answered. Only slots that were
   * holding rows back can make the next claim find more: the pool's when it was full, or the tenant's
   * when it had used its share. Otherwise the last claim already took every due row it could, and new
   * or newly due rows have their own wake (the enqueue's, or the poll interval). A tenant that used its
   * share is refilled once half of it is free, not at its first answer: refilling each answer alone
   * split its share into ever smaller claims (twice the claims per delivery while a backlog drained).
   */
  function release(id: string, tenant: TenantState, attempt: AttemptRecord | null): void {
    const poolWasFull = inFlight >= options.slots;
    tenant.held--;
    inFlight--;
    if (attempt) {
      const answered = attempt.statusCode !== null;
      if (answered) tenant.answeredAt = performance.now();
      tenant.slow = !answered || attempt.durationMs > SLOW_RECEIVER_MS;
    }
    let refillNow = poolWasFull;
    if (tenant.usedShare && tenant.held <= shareOf(tenant) / 2) {
      tenant.usedShare = false;
      refillNow = true;
    }
    if (tenant.held === 0 && !tenant.slow) tenants.delete(id);
    if (inFlight === 0 && idle) {
      idle.resolve();
      idle = null;
    }
    if (refillNow && !refill) {
      refill = true;
      if (endGather) endGather();
      else if (!claimPending) options.wake?.();
    }
  }

  /**
   * The claim's transaction, taken only when no other process holds the write lock: waiting for it
   * inside SQLite would stop every request of the server as long. Null when held; the loop's next
   * round (intervalMs) tries again, and nothing was claimed.
   */
  function claimIfLockFree(claim: () => ClaimedRow[]): ClaimedRow[] | null {
    try {
      return writeTx(ctx.db, claim, { recordsOnly: true, ifLockFree: true });
    } catch (error) {
      if (!(error instanceof WriteLockTaken)) throw error;
      ctx.log.debug("webhook claim skipped: another process holds the database's write lock");
      return null;
    }
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
      claimPending = true;
      try {
        if (lastClaimMs >= SLOW_CLAIM_MS) await new Promise((resolve) => setTimeout(resolve, CLAIM_SPACING * lastClaimMs));
        else if (!refill && !claimAtOnce) await gather();
        if (refill) await new Promise((resolve) => setImmediate(resolve));
        refill = false;
        const free = options.slots - inFlight;
        // A full pool claims nothing: the first POST answered wakes the loop (release). Nor does one
        // whose records wait for the write lock: they wake it once written.
        if (signal.aborted || free <= 0 || recordsWaitForLock) return false;
        const now = ctx.clock.now();
        const room = roomFor(performance.now());
        // The claim commits at once: its rows must be 'delivering' under this lease before any POST
        // goes out. Wakes that arrive meanwhile make one more round (Scheduler.wake).
        const claimed = claimIfLockFree(() => {
          // Timed inside the transaction: only the claim's own cost spaces the next claims out.
          const t0 = performance.now();
          const reclaimed = reclaimExpired(ctx.db, now, options.retry, { owner, ids: leasesInHand() });
          if (reclaimed.length > 0) ctx.log.warn({ reclaimed }, "reclaimed webhook deliveries whose lease expired");
          const passOver = t0 >= passOverNotBefore;
          const fair = claimDueFairly(ctx.db, { owner, now, leaseMs: options.leaseMs, limit: free, room, passOver });
          const ended = performance.now();
          lastClaimMs = Math.min(ended - t0 - fair.passOverMs, options.intervalMs / CLAIM_SPACING);
          if (fair.passOverMs >= SLOW_CLAIM_MS) passOverNotBefore = ended + Math.min(CLAIM_SPACING * fair.passOverMs, MAX_PASS_OVER_SPACING_MS);
          return fair.claimed;
        });
        if (claimed === null) return false;
        const receivers = receiversOf(claimed);
        for (const row of claimed) void deliver(row, receivers.get(row.tenant_id)!);
        // A tenant that got all its room may have rows left behind; one that got less had none left.
        for (const tenant of tenants.values()) tenant.usedShare = tenant.held >= shareOf(tenant);
        claimAtOnce = claimed.length === free;
        // The round does not wait for its POSTs: each frees its slots when answered, and release()
        // wakes the loop when that lets a claim take more. Until then the loop sleeps like an idle one.
        return false;
      } finally {
        claimPending = false;
      }
    },
    async settle() {
      settling = true;
      while (inFlight > 0) {
        idle ??= Promise.withResolvers<void>();
        await idle.promise;
      }
      while (recording.size > 0) await Promise.allSettled(recording);
    },
  };
}
