import { afterEach, describe, expect, test } from "bun:test";
import { dirname } from "node:path";
import { openDb } from "@/storage/db";
import { duplicateIds, expectEachDeliveredOnce } from "../helpers/webhook-receiver";
import { enqueueEvents, outboxStatuses, startWebhookWorld, type WebhookWorld } from "./fixtures";

let world: WebhookWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

interface AttemptLogRow {
  outbox_id: string;
  attempt: number;
  status_code: number | null;
  error: string | null;
}

function attemptLog(world: WebhookWorld): AttemptLogRow[] {
  return world.server.ctx.db.sqlite
    .query<AttemptLogRow, []>("SELECT outbox_id, attempt, status_code, error FROM webhook_attempts ORDER BY outbox_id, series, attempt")
    .all();
}

describe("retries", () => {
  test("receiver down for a while, then up: every event arrives after retries, once each", async () => {
    world = await startWebhookWorld();
    const { server, receiver, tenant } = world;
    await receiver.stop();
    const ids = enqueueEvents(server.ctx, tenant.tenant.id, 5);
    world.wake();
    const w = world;
    await receiver.waitUntil(() => attemptLog(w).filter((a) => a.error?.startsWith("network error")).length >= 10);
    await receiver.start();
    await receiver.waitUntil(() => receiver.delivered.length >= ids.length);
    await Bun.sleep(200);

    expectEachDeliveredOnce(receiver, ids);
    expect(outboxStatuses(server.ctx, tenant.tenant.id)).toEqual({ delivered: 5 });
    // Each retry is signed afresh; the receiver's attempt header shows the retries happened.
    expect(receiver.delivered.some((d) => Number(d.attempt) > 1)).toBe(true);
    for (const id of ids) {
      const rows = attemptLog(world).filter((a) => a.outbox_id === id);
      expect(rows.map((a) => a.attempt)).toEqual(rows.map((_, i) => i + 1));
      expect(rows.at(-1)).toMatchObject({ status_code: 204, error: null });
    }
  });

  test("a receiver answering 500 is retried until it answers 2xx", async () => {
    world = await startWebhookWorld();
    const { server, receiver, tenant } = world;
    receiver.failWith = 500;
    const ids = enqueueEvents(server.ctx, tenant.tenant.id, 2);
    world.wake();
    await receiver.waitUntil(() => receiver.failed.length >= 6);
    receiver.failWith = null;
    await receiver.waitUntil(() => receiver.delivered.length >= ids.length);
    await Bun.sleep(150);

    expect(receiver.rejected).toEqual([]);
    expect(duplicateIds(receiver.delivered)).toEqual([]);
    expect(outboxStatuses(server.ctx, tenant.tenant.id)).toEqual({ delivered: 2 });
    const failures = attemptLog(world).filter((a) => a.status_code === 500);
    expect(failures.length).toBeGreaterThanOrEqual(6);
    expect(failures.every((a) => a.error === "receiver answered HTTP 500")).toBe(true);
  });

  test("a URL that now points at a private address is refused at send time, without a request", async () => {
    world = await startWebhookWorld({ retryDelaysMs: [20], maxAttempts: 2, intervalMs: 25 });
    const { server, receiver, tenant } = world;
    // The onboarding check passed; the address changed afterwards (as DNS can). Written from another
    // connection: the server's own writes to tenants go through writeTx.
    const other = openDb(dirname(server.ctx.db.path), { migrate: false });
    try {
      other.sqlite.run("UPDATE tenants SET webhook_url = ? WHERE id = ?", ["http://10.66.0.1:9/hook", tenant.tenant.id]);
    } finally {
      other.close();
    }
    const [id] = enqueueEvents(server.ctx, tenant.tenant.id, 1);
    world.wake();
    const w = world;
    await receiver.waitUntil(() => outboxStatuses(w.server.ctx, tenant.tenant.id).dead === 1);
    const rows = attemptLog(world).filter((a) => a.outbox_id === id);
    expect(rows).toHaveLength(2);
    expect(rows.every((a) => a.status_code === null && (a.error ?? "").includes("refused by the webhook URL policy"))).toBe(true);
    expect(receiver.delivered.length + receiver.failed.length + receiver.rejected.length).toBe(0);
  });
});
