import { afterEach, describe, expect, test } from "bun:test";
import type { AppContext } from "@/context";
import { writeTx } from "@/storage/db";
import { createWebhookDispatcher, type DispatcherOptions } from "@/webhooks/dispatcher";
import { enqueueWebhook } from "@/webhooks/enqueue";
import type { OutboxRow } from "@/webhooks/outbox-rows";
import { claimDue } from "@/webhooks/outbox-store";
import { webhookPayloadFromOutcome } from "@/webhooks/payload";
import { retryPolicy } from "@/webhooks/schedule";
import { systemLookup } from "@/webhooks/send-target";
import { makeTenant } from "../helpers/tenants";
import { expectEachDeliveredOnce, startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver";
import { enqueueHandedOver, memoryContext, outboxStatuses, sampleOutcome } from "./fixtures";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const LEASE_MS = 10_000;

async function world(): Promise<{ ctx: AppContext; receiver: WebhookReceiver; tenantId: string }> {
  const ctx = memoryContext();
  cleanups.push(() => ctx.db.close());
  const receiver = await startWebhookReceiver();
  cleanups.push(() => receiver.stop());
  const tenant = makeTenant(ctx, { webhookUrl: receiver.url });
  receiver.secret = tenant.webhookSigningSecret ?? "";
  return { ctx, receiver, tenantId: tenant.tenant.id };
}

function dispatcher(ctx: AppContext, overrides: Partial<DispatcherOptions> = {}) {
  let sent = 0;
  const loop = createWebhookDispatcher(ctx, {
    retry: retryPolicy({ retryDelaysMs: [10], maxAttempts: 5 }),
    fetch: (input, init) => {
      sent++;
      return fetch(input, init);
    },
    lookup: systemLookup,
    intervalMs: 60_000,
    batchSize: 20,
    leaseMs: LEASE_MS,
    ...overrides,
  });
  return { loop, sent: () => sent };
}

async function drain(loop: ReturnType<typeof dispatcher>["loop"]): Promise<void> {
  const signal = new AbortController().signal;
  while (await loop.tick(signal)) {}
  await loop.settle?.();
}

function attemptLog(ctx: AppContext, id: string) {
  return ctx.db.sqlite
    .query<{ attempt: number; status_code: number | null; error: string | null }, [string]>(
      "SELECT attempt, status_code, error FROM webhook_attempts WHERE outbox_id = ? ORDER BY attempt",
    )
    .all(id);
}

describe("events handed over by this process's commits", () => {
  test("are stored exactly as returned: already leased, first attempt reserved, not claimable by another dispatcher", async () => {
    const { ctx, tenantId } = await world();
    const { loop } = dispatcher(ctx);
    const now = new Date();
    const lease = loop.handoff.lease(now);
    expect(lease).toEqual({ owner: loop.owner, expiresAt: new Date(now.getTime() + LEASE_MS) });
    const returned = writeTx(ctx.db, () =>
      enqueueWebhook(ctx.db, { tenantId, event: "screening.completed", payload: webhookPayloadFromOutcome("screening.completed", sampleOutcome()), at: now }, lease),
    );
    const stored = ctx.db.sqlite.query<OutboxRow, []>("SELECT * FROM webhook_outbox").get();
    expect(stored).toEqual(returned);
    expect(stored).toMatchObject({ status: "delivering", attempts: 1, lease_owner: loop.owner, lease_expires_at: lease?.expiresAt.toISOString() });
    expect(writeTx(ctx.db, () => claimDue(ctx.db, { owner: "another", now: new Date(now.getTime() + 1_000), leaseMs: 1_000, limit: 10 }))).toEqual([]);
  });

  test("are sent once each, as attempt 1", async () => {
    const { ctx, receiver, tenantId } = await world();
    const { loop, sent } = dispatcher(ctx);
    // The first round claims from the table (nothing there); the handed events come after it.
    await loop.tick(new AbortController().signal);
    const ids = enqueueHandedOver(ctx, tenantId, 45, loop.handoff);
    await drain(loop);

    expect(sent()).toBe(45);
    expectEachDeliveredOnce(receiver, ids);
    expect(receiver.delivered.every((d) => d.attempt === "1")).toBe(true);
    expect(outboxStatuses(ctx, tenantId)).toEqual({ delivered: 45 });
  });

  test("one that waited until less than half its lease is left is given back, then claimed and sent as attempt 1", async () => {
    const { ctx, receiver, tenantId } = await world();
    const woken: string[] = [];
    const { loop } = dispatcher(ctx, { wake: () => woken.push("wake") });
    await loop.tick(new AbortController().signal);
    // Leased 6 s ago: 4 s of the 10 s lease are left, less than half.
    const [stale = ""] = enqueueHandedOver(ctx, tenantId, 1, loop.handoff, new Date(Date.now() - 6_000));
    const [fresh = ""] = enqueueHandedOver(ctx, tenantId, 1, loop.handoff);
    await loop.tick(new AbortController().signal);
    expect(receiver.delivered.map((d) => d.deliveryId)).toEqual([fresh]);
    // The stale one's lease is given back in the background; then the dispatcher is asked to claim.
    await receiver.waitUntil(() => woken.length >= 3);
    expect(ctx.db.sqlite.query<{ status: string; attempts: number; lease_owner: string | null }, [string]>("SELECT status, attempts, lease_owner FROM webhook_outbox WHERE id = ?").get(stale)).toEqual({
      status: "pending",
      attempts: 0,
      lease_owner: null,
    });
    await drain(loop);

    expectEachDeliveredOnce(receiver, [fresh, stale]);
    expect(receiver.delivered.find((d) => d.deliveryId === stale)?.attempt).toBe("1");
    expect(attemptLog(ctx, stale)).toEqual([{ attempt: 1, status_code: 204, error: null }]);
  });

  test("stopping gives back the leases of events not sent yet; after it, commits queue events pending", async () => {
    const { ctx, receiver, tenantId } = await world();
    const { loop } = dispatcher(ctx);
    const ids = enqueueHandedOver(ctx, tenantId, 5, loop.handoff);
    await loop.settle?.();

    expect(receiver.delivered).toEqual([]);
    expect(outboxStatuses(ctx, tenantId)).toEqual({ pending: 5 });
    expect(ctx.db.sqlite.query<{ n: number }, []>("SELECT count(*) AS n FROM webhook_outbox WHERE attempts = 0 AND lease_owner IS NULL").get()?.n).toBe(5);
    expect(loop.handoff.lease(new Date())).toBeNull();

    // The next dispatcher (the next start) claims and sends them, as attempt 1 with nothing else logged.
    const next = dispatcher(ctx).loop;
    await drain(next);
    expectEachDeliveredOnce(receiver, ids);
    expect(receiver.delivered.every((d) => d.attempt === "1")).toBe(true);
    for (const id of ids) expect(attemptLog(ctx, id)).toHaveLength(1);
  });

  test("a commit handed over after the dispatcher stopped gives its leases back too", async () => {
    const { ctx, tenantId } = await world();
    const { loop } = dispatcher(ctx);
    const lease = loop.handoff.lease(new Date());
    await loop.settle?.();
    const rows = writeTx(ctx.db, () =>
      [0, 1].map(() => enqueueWebhook(ctx.db, { tenantId, event: "screening.completed", payload: webhookPayloadFromOutcome("screening.completed", sampleOutcome()), at: new Date() }, lease)!),
    );
    loop.handoff.committed(rows);
    await loop.settle?.();
    expect(outboxStatuses(ctx, tenantId)).toEqual({ pending: 2 });
  });

  test("past the in-memory cap, commits queue events pending for a claim, and the dispatcher is asked to claim", async () => {
    const { ctx, receiver, tenantId } = await world();
    const woken: string[] = [];
    const { loop } = dispatcher(ctx, { wake: () => woken.push("wake") });
    enqueueHandedOver(ctx, tenantId, 2_000, loop.handoff);
    expect(loop.handoff.lease(new Date())).toBeNull();
    const before = woken.length;
    enqueueHandedOver(ctx, tenantId, 3, loop.handoff);
    expect(woken.length).toBe(before + 1);
    expect(outboxStatuses(ctx, tenantId)).toEqual({ delivering: 2_000, pending: 3 });

    await drain(loop);
    expect(receiver.delivered.length).toBe(2_003);
    expect(receiver.rejected).toEqual([]);
    expect(outboxStatuses(ctx, tenantId)).toEqual({ delivered: 2_003 });
  });

  test("events leased by a process that died before sending them are reclaimed when the lease expires", async () => {
    const { ctx, receiver, tenantId } = await world();
    const crashed = dispatcher(ctx, { owner: "crashed-host:1:abc" }).loop;
    // Leased 11 s ago by a dispatcher that never ran a round: the 10 s lease has expired.
    const [id = ""] = enqueueHandedOver(ctx, tenantId, 1, crashed.handoff, new Date(Date.now() - 11_000));
    await drain(dispatcher(ctx).loop);

    expectEachDeliveredOnce(receiver, [id]);
    expect(receiver.delivered[0]?.attempt).toBe("2");
    const log = attemptLog(ctx, id);
    expect(log[0]?.error).toContain("lease of crashed-host:1:abc expired");
    expect(log[1]).toMatchObject({ attempt: 2, status_code: 204, error: null });
  });
});
