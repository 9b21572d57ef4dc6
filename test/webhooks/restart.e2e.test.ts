import { afterEach, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { webhookExtension } from "@/webhooks/extension";
import { startTestServer, type TestServer, tempDataDir } from "../helpers/server";
import { makeTenant } from "../helpers/tenants";
import { duplicateIds, expectEachDeliveredOnce, startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver";
import { enqueueEvents, FAST, outboxStatuses, serverFlags, startWebhookWorld, type WebhookWorld } from "./fixtures";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function appliance(dataDir: string): Promise<TestServer> {
  const extension = webhookExtension(FAST);
  const server = await startTestServer({ dataDir, flags: serverFlags(), extensions: [extension] });
  return server;
}

async function receiverFor(): Promise<WebhookReceiver> {
  const receiver = await startWebhookReceiver();
  cleanups.push(() => receiver.stop());
  return receiver;
}

describe("durability across restarts and crashes", () => {
  test("appliance restarted while events are pending: none lost, none duplicated", async () => {
    const dataDir = tempDataDir();
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const receiver = await receiverFor();
    await receiver.stop();

    const first = await appliance(dataDir);
    const tenant = makeTenant(first.ctx, { webhookUrl: receiver.url });
    receiver.secret = tenant.webhookSigningSecret ?? "";
    const ids = enqueueEvents(first.ctx, tenant.tenant.id, 8);
    await Bun.sleep(150);
    await first.stop();

    const second = await appliance(dataDir);
    cleanups.push(() => second.stop());
    expect(outboxStatuses(second.ctx, tenant.tenant.id).delivered ?? 0).toBe(0);
    await receiver.start();
    await receiver.waitUntil(() => receiver.delivered.length >= ids.length);
    await Bun.sleep(200);

    expectEachDeliveredOnce(receiver, ids);
    expect(outboxStatuses(second.ctx, tenant.tenant.id)).toEqual({ delivered: 8 });
  });

  test("stopped with deliveries in flight at a slow receiver: in-flight ones finish, the rest go after restart, once each", async () => {
    const dataDir = tempDataDir();
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const receiver = await receiverFor();
    receiver.delayMs = 150;

    const first = await appliance(dataDir);
    const tenant = makeTenant(first.ctx, { webhookUrl: receiver.url });
    receiver.secret = tenant.webhookSigningSecret ?? "";
    const ids = enqueueEvents(first.ctx, tenant.tenant.id, 45);
    // Stop once POSTs are in flight (a fixed sleep raced the dispatcher's first claim on a busy machine).
    const delivering = () =>
      first.ctx.db.sqlite.query<{ n: number }, []>("SELECT count(*) AS n FROM webhook_outbox WHERE status = 'delivering'").get()?.n ?? 0;
    for (let waited = 0; delivering() === 0 && waited < 5_000; waited += 5) await Bun.sleep(5);
    await first.stop();
    const afterFirst = receiver.delivered.length;

    const second = await appliance(dataDir);
    cleanups.push(() => second.stop());
    await receiver.waitUntil(() => receiver.delivered.length >= ids.length);
    await Bun.sleep(300);

    expect(afterFirst).toBeGreaterThan(0);
    expect(afterFirst).toBeLessThan(ids.length);
    expect(receiver.rejected).toEqual([]);
    expect(duplicateIds(receiver.delivered)).toEqual([]);
    expect(receiver.delivered.length).toBe(ids.length);
    expect(outboxStatuses(second.ctx, tenant.tenant.id)).toEqual({ delivered: ids.length });
  });
});

describe("lease reclaim", () => {
  let world: WebhookWorld | undefined;
  afterEach(async () => {
    await world?.close();
    world = undefined;
  });

  function simulateCrash(w: WebhookWorld, id: string, leaseExpiresAt: Date): void {
    w.server.ctx.db.sqlite.run(
      "UPDATE webhook_outbox SET status = 'delivering', attempts = 1, lease_owner = 'crashed-host:4242:abc', lease_expires_at = ? WHERE id = ?",
      [leaseExpiresAt.toISOString(), id],
    );
  }

  test("a delivery whose dispatcher died mid-attempt (lease expired) is reclaimed and delivered", async () => {
    // A long poll interval and no wake: the row can be put in its crashed state before the dispatcher looks.
    world = await startWebhookWorld({ ...FAST, intervalMs: 60_000 });
    const { server, receiver, tenant } = world;
    const [id = ""] = enqueueEvents(server.ctx, tenant.tenant.id, 1);
    simulateCrash(world, id, new Date(Date.now() - 1_000));
    world.wake();
    await receiver.waitUntil(() => receiver.delivered.length === 1);
    await Bun.sleep(100);

    expect(receiver.delivered[0]?.deliveryId).toBe(id);
    expect(receiver.delivered[0]?.attempt).toBe("2");
    const log = server.ctx.db.sqlite
      .query<{ attempt: number; status_code: number | null; error: string | null }, [string]>(
        "SELECT attempt, status_code, error FROM webhook_attempts WHERE outbox_id = ? ORDER BY attempt",
      )
      .all(id);
    expect(log).toHaveLength(2);
    expect(log[0]?.error).toContain("lease expired at");
    // The delivery log is the tenant's: it does not name the appliance's host or process.
    expect(log[0]?.error).not.toContain("crashed-host");
    expect(log[1]).toMatchObject({ attempt: 2, status_code: 204, error: null });
    expect(outboxStatuses(server.ctx, tenant.tenant.id)).toEqual({ delivered: 1 });
  });

  test("a live lease held by another dispatcher is left alone", async () => {
    world = await startWebhookWorld({ ...FAST, intervalMs: 60_000 });
    const { server, receiver, tenant } = world;
    const [id = ""] = enqueueEvents(server.ctx, tenant.tenant.id, 1);
    simulateCrash(world, id, new Date(Date.now() + 60_000));
    world.wake();
    await Bun.sleep(300);
    expect(receiver.delivered).toEqual([]);
    expect(outboxStatuses(server.ctx, tenant.tenant.id)).toEqual({ delivering: 1 });
  });
});
