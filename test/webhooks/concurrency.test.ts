import { afterEach, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { openContext } from "@/bootstrap";
import { Scheduler } from "@/jobs/scheduler";
import { loadConfig } from "@/config";
import type { AppContext } from "@/context";
import { createLogger } from "@/lib/logger";
import { writeTx } from "@/storage/db";
import { createWebhookDispatcher } from "@/webhooks/dispatcher";
import { WEBHOOK_LOOP } from "@/webhooks/enqueue";
import { claimDue, finishAttempt, reclaimExpired } from "@/webhooks/outbox-store";
import { retryPolicy } from "@/webhooks/schedule";
import { systemLookup } from "@/webhooks/send-target";
import { tempDataDir } from "../helpers/server";
import { makeTenant } from "../helpers/tenants";
import { expectEachDeliveredOnce } from "../helpers/webhook-receiver";
import { enqueueEvents, memoryContext, outboxStatuses, receiverWithTenant, serverFlags } from "./fixtures";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const retry = retryPolicy({ retryDelaysMs: [10], maxAttempts: 5 });

describe("two dispatchers on one data folder", () => {
  test("each delivery is claimed and sent by exactly one of them", async () => {
    const dataDir = tempDataDir();
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const config = loadConfig({ env: {}, flags: { dataDir, logLevel: "silent", ...serverFlags() } });
    // Two connections, as two appliance processes sharing the folder would have.
    const contexts: AppContext[] = [0, 1].map(() => openContext(config, { log: createLogger("silent") }));
    for (const ctx of contexts) cleanups.push(() => ctx.db.close());
    const [a] = contexts as [AppContext, AppContext];
    const { receiver, tenant } = await receiverWithTenant(a, cleanups, 5);
    const ids = enqueueEvents(a, tenant.tenant.id, 40);

    const sent = { a: 0, b: 0 };
    const counting = (node: "a" | "b") => (i: string | URL, init: RequestInit) => {
      sent[node]++;
      return fetch(i, init);
    };
    const options = { retry, lookup: systemLookup, intervalMs: 10, slots: 3, leaseMs: 10_000 };
    // Each dispatcher runs on a scheduler of its own, as in two processes: an answered POST wakes it to refill.
    const schedulers = (["a", "b"] as const).map((node, i) => {
      const scheduler = new Scheduler(createLogger("silent"));
      const ctx = contexts[i] as AppContext;
      scheduler.register(createWebhookDispatcher(ctx, { ...options, fetch: counting(node), owner: `node-${node}`, wake: () => scheduler.wake(WEBHOOK_LOOP) }));
      return scheduler;
    });
    for (const scheduler of schedulers) scheduler.start();
    await receiver.waitUntil(() => outboxStatuses(a, tenant.tenant.id).delivered === 40);
    // stop() waits for the POSTs in flight and their attempt records.
    await Promise.all(schedulers.map((scheduler) => scheduler.stop()));

    expect(sent.a).toBeGreaterThan(0);
    expect(sent.b).toBeGreaterThan(0);
    expect(sent.a + sent.b).toBe(40);
    expectEachDeliveredOnce(receiver, ids);
    expect(outboxStatuses(a, tenant.tenant.id)).toEqual({ delivered: 40 });
    const firstTry = a.db.sqlite.query<{ n: number }, []>("SELECT count(*) AS n FROM webhook_attempts WHERE attempt = 1 AND status_code = 204").get();
    expect(firstTry?.n).toBe(40);
  });
});

describe("lease compare-and-set", () => {
  test("a dispatcher whose lease was reclaimed cannot record its late outcome over the new owner's", () => {
    const ctx = memoryContext();
    cleanups.push(() => ctx.db.close());
    const tenant = makeTenant(ctx, { webhookUrl: "https://hooks.bank.example/aml" });
    enqueueEvents(ctx, tenant.tenant.id, 1);
    const t0 = new Date();
    const [mine] = writeTx(ctx.db, () => claimDue(ctx.db, { owner: "slow", now: t0, leaseMs: 1_000, limit: 10 }));
    if (!mine) throw new Error("nothing claimed");
    expect(writeTx(ctx.db, () => claimDue(ctx.db, { owner: "other", now: t0, leaseMs: 1_000, limit: 10 }))).toEqual([]);

    const later = new Date(t0.getTime() + 2_000);
    const theirs = writeTx(ctx.db, () => {
      expect(reclaimExpired(ctx.db, later, retry)).toEqual([{ id: mine.id, owner: "slow", expiredAt: new Date(t0.getTime() + 1_000).toISOString() }]);
      return claimDue(ctx.db, { owner: "other", now: later, leaseMs: 1_000, limit: 10 });
    });
    expect(theirs.map((r) => r.attempts)).toEqual([2]);
    const attempt = { startedAt: t0, durationMs: 1, statusCode: 204, error: null, url: "https://hooks.bank.example/aml" };
    const theirRow = theirs[0];
    if (!theirRow) throw new Error("nothing reclaimed");
    expect(writeTx(ctx.db, () => finishAttempt(ctx.db, { row: mine, owner: "slow", attempt, now: later, policy: retry }))).toBe("lease_lost");
    expect(writeTx(ctx.db, () => finishAttempt(ctx.db, { row: theirRow, owner: "other", attempt, now: later, policy: retry }))).toBe("delivered");
    const log = ctx.db.sqlite.query<{ attempt: number; status_code: number | null }, []>("SELECT attempt, status_code FROM webhook_attempts ORDER BY attempt").all();
    expect(log).toEqual([
      { attempt: 1, status_code: null },
      { attempt: 2, status_code: 204 },
    ]);
  });

  test("a wall clock that jumps past the lease does not make a dispatcher take back its own POST in flight", async () => {
    const ctx = memoryContext();
    cleanups.push(() => ctx.db.close());
    let jumpMs = 0;
    ctx.clock = { now: () => new Date(Date.now() + jumpMs) };
    const { receiver, tenant } = await receiverWithTenant(ctx, cleanups, 400);
    const ids = enqueueEvents(ctx, tenant.tenant.id, 1);
    const loop = createWebhookDispatcher(ctx, { retry, fetch, lookup: systemLookup, intervalMs: 10, slots: 20, leaseMs: 5_000 });
    const signal = new AbortController().signal;

    await loop.tick(signal);
    await Bun.sleep(100); // the POST is in flight
    jumpMs = 60_000; // an NTP step, or a VM resumed after a pause
    await loop.tick(signal);
    await loop.settle?.();

    expectEachDeliveredOnce(receiver, ids);
    expect(outboxStatuses(ctx, tenant.tenant.id)).toEqual({ delivered: 1 });
    const log = ctx.db.sqlite.query<{ attempt: number; status_code: number | null }, []>("SELECT attempt, status_code FROM webhook_attempts").all();
    expect(log).toEqual([{ attempt: 1, status_code: 204 }]);
  });

  test("a delivery that keeps losing its dispatcher ends dead instead of looping forever", () => {
    const ctx = memoryContext();
    cleanups.push(() => ctx.db.close());
    const tenant = makeTenant(ctx, { webhookUrl: "https://hooks.bank.example/aml" });
    enqueueEvents(ctx, tenant.tenant.id, 1);
    const policy = retryPolicy({ retryDelaysMs: [0], maxAttempts: 3 });
    let now = Date.now();
    for (let i = 0; i < 3; i++) {
      now += 10_000;
      writeTx(ctx.db, () => {
        reclaimExpired(ctx.db, new Date(now), policy);
        claimDue(ctx.db, { owner: `crasher-${i}`, now: new Date(now), leaseMs: 1_000, limit: 1 });
      });
    }
    writeTx(ctx.db, () => reclaimExpired(ctx.db, new Date(now + 10_000), policy));
    expect(outboxStatuses(ctx, tenant.tenant.id)).toEqual({ dead: 1 });
  });
});
