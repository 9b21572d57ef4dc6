import { afterEach, describe, expect, test } from "bun:test";
import { issueApiKey } from "@/tenants/keys";
import { makeTenant } from "../helpers/tenants";
import { enqueueEvents, FAST, outboxStatuses, startWebhookWorld, type WebhookWorld } from "./fixtures";

let world: WebhookWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

type Json = Record<string, unknown>;

async function call(w: WebhookWorld, path: string, key: string, method = "GET"): Promise<{ status: number; body: Json }> {
  const response = await fetch(`${w.server.url}${path}`, { method, headers: { "x-api-key": key } });
  return { status: response.status, body: (await response.json()) as Json };
}

describe("dead deliveries and redelivery", () => {
  test("after the last attempt a delivery is dead and listed; redelivery starts a new series that succeeds, audited", async () => {
    world = await startWebhookWorld({ retryDelaysMs: [20, 40], maxAttempts: 3, intervalMs: 25 });
    const w = world;
    const { server, receiver, tenant } = w;
    receiver.failWith = 500;
    const [id] = enqueueEvents(server.ctx, tenant.tenant.id, 1);
    w.wake();
    await receiver.waitUntil(() => outboxStatuses(server.ctx, tenant.tenant.id).dead === 1);
    expect(receiver.failed).toHaveLength(3);

    const dead = await call(w, "/v1/webhooks/deliveries?status=dead", tenant.apiKey);
    expect(dead.status).toBe(200);
    expect(dead.body.total).toBe(1);
    const [item] = dead.body.items as Json[];
    expect(item).toMatchObject({ id, status: "dead", attemptCount: 3, series: 1, lastStatusCode: 500, lastError: "receiver answered HTTP 500", nextAttemptAt: null, deliveredAt: null });
    expect(item?.deadAt).toBeString();
    const detail = await call(w, `/v1/webhooks/deliveries/${id}`, tenant.apiKey);
    expect((detail.body.attempts as Json[]).map((a) => [a.attempt, a.statusCode])).toEqual([
      [1, 500],
      [2, 500],
      [3, 500],
    ]);

    receiver.failWith = null;
    const redeliver = await call(w, `/v1/webhooks/deliveries/${id}/redeliver`, tenant.apiKey, "POST");
    expect(redeliver.status).toBe(202);
    expect(redeliver.body).toMatchObject({ id, status: "pending", series: 2, attemptCount: 0, deadAt: null });
    await receiver.waitUntil(() => receiver.delivered.length === 1);
    await Bun.sleep(100);
    expect(receiver.delivered[0]).toMatchObject({ deliveryId: id, attempt: "1" });
    expect(receiver.rejected).toEqual([]);

    const after = await call(w, `/v1/webhooks/deliveries/${id}`, tenant.apiKey);
    expect(after.body).toMatchObject({ status: "delivered", series: 2, attemptCount: 1, lastStatusCode: 204 });
    expect((after.body.attempts as Json[]).map((a) => [a.series, a.attempt, a.statusCode])).toEqual([
      [1, 1, 500],
      [1, 2, 500],
      [1, 3, 500],
      [2, 1, 204],
    ]);
    const audit = await call(w, "/v1/audit?action=webhook.redeliver", tenant.apiKey);
    expect(audit.body.total).toBe(1);
    expect((audit.body.items as Json[])[0]).toMatchObject({ action: "webhook.redeliver", targetType: "webhook_delivery", targetId: id });

    // A delivered delivery can be redelivered too; the receiver sees the same delivery id again.
    expect((await call(w, `/v1/webhooks/deliveries/${id}/redeliver`, tenant.apiKey, "POST")).status).toBe(202);
    await receiver.waitUntil(() => receiver.delivered.length === 2);
    expect(receiver.delivered[1]?.deliveryId).toBe(id);
  });

  test("a pending delivery waiting for its retry is made due now: same series, attempt count kept, audited", async () => {
    // Jitter fixed at half: the retry waits 45 min (halfway between half the cap and the cap).
    world = await startWebhookWorld({ retryDelaysMs: [3_600_000], maxAttempts: 5, intervalMs: 25, random: () => 0.5 });
    const w = world;
    const { server, receiver, tenant } = w;
    receiver.failWith = 500;
    const [id] = enqueueEvents(server.ctx, tenant.tenant.id, 1);
    w.wake();
    await receiver.waitUntil(() => outboxStatuses(server.ctx, tenant.tenant.id).pending === 1 && receiver.failed.length === 1);
    const waiting = await call(w, `/v1/webhooks/deliveries/${id}`, tenant.apiKey);
    expect(waiting.body).toMatchObject({ status: "pending", series: 1, attemptCount: 1, lastStatusCode: 500 });
    expect(Date.parse(String(waiting.body.nextAttemptAt))).toBeGreaterThan(Date.now() + 20 * 60_000);

    // The tenant fixed its receiver and asks for the retry now.
    receiver.failWith = null;
    const before = Date.now();
    const redeliver = await call(w, `/v1/webhooks/deliveries/${id}/redeliver`, tenant.apiKey, "POST");
    expect(redeliver.status).toBe(202);
    expect(redeliver.body).toMatchObject({ id, status: "pending", series: 1, attemptCount: 1 });
    expect(Date.parse(String(redeliver.body.nextAttemptAt))).toBeLessThanOrEqual(Date.now());
    expect(Date.parse(String(redeliver.body.nextAttemptAt))).toBeGreaterThanOrEqual(before - 1_000);
    await receiver.waitUntil(() => receiver.delivered.length === 1);
    await Bun.sleep(100);
    expect(receiver.delivered[0]).toMatchObject({ deliveryId: id, attempt: "2" });
    expect(receiver.rejected).toEqual([]);

    const after = await call(w, `/v1/webhooks/deliveries/${id}`, tenant.apiKey);
    expect(after.body).toMatchObject({ status: "delivered", series: 1, attemptCount: 2, lastStatusCode: 204 });
    expect((after.body.attempts as Json[]).map((a) => [a.series, a.attempt, a.statusCode])).toEqual([
      [1, 1, 500],
      [1, 2, 204],
    ]);
    const audit = await call(w, "/v1/audit?action=webhook.redeliver", tenant.apiKey);
    expect(audit.body.total).toBe(1);
    expect((audit.body.items as Json[])[0]).toMatchObject({
      action: "webhook.redeliver",
      targetType: "webhook_delivery",
      targetId: id,
      details: { previousStatus: "pending", series: 1, previousNextAttemptAt: waiting.body.nextAttemptAt },
    });
  });

  test("a delivery with an attempt in flight cannot be redelivered (409), and nothing is audited", async () => {
    world = await startWebhookWorld(FAST, 5_000);
    const w = world;
    const { server, receiver, tenant } = w;
    receiver.delayMs = 1_500;
    const [id] = enqueueEvents(server.ctx, tenant.tenant.id, 1);
    w.wake();
    await receiver.waitUntil(() => outboxStatuses(server.ctx, tenant.tenant.id).delivering === 1);
    const response = await call(w, `/v1/webhooks/deliveries/${id}/redeliver`, tenant.apiKey, "POST");
    expect(response.status).toBe(409);
    expect(response.body.code).toBe("CONFLICT");
    expect(String(response.body.detail)).toContain("being attempted (attempt 1 of series 1), under a lease until 20");
    expect((await call(w, "/v1/audit?action=webhook.redeliver", tenant.apiKey)).body.total).toBe(0);
    // The attempt in flight goes on and decides the outcome.
    await receiver.waitUntil(() => outboxStatuses(server.ctx, tenant.tenant.id).delivered === 1);
    expect(receiver.delivered.map((d) => d.deliveryId)).toEqual([id ?? ""]);
  });
});

describe("delivery log access", () => {
  test("filters and pages newest first", async () => {
    world = await startWebhookWorld({ intervalMs: 60_000 });
    const { server, tenant } = world;
    const completed = enqueueEvents(server.ctx, tenant.tenant.id, 3, "screening.completed");
    const alerts = enqueueEvents(server.ctx, tenant.tenant.id, 2, "monitoring.alert");
    const all = await call(world, "/v1/webhooks/deliveries?take=2&skip=1", tenant.apiKey);
    expect(all.body).toMatchObject({ total: 5, skip: 1, take: 2 });
    expect((all.body.items as Json[]).map((i) => i.id)).toEqual([alerts[0], completed[2]]);
    const onlyAlerts = await call(world, "/v1/webhooks/deliveries?event=monitoring.alert&status=pending", tenant.apiKey);
    expect((onlyAlerts.body.items as Json[]).map((i) => i.id)).toEqual([alerts[1], alerts[0]]);
    expect((onlyAlerts.body.items as Json[])[0]?.nextAttemptAt).toBeString();
    expect((await call(world, "/v1/webhooks/deliveries?status=lost", tenant.apiKey)).status).toBe(400);
    expect((await call(world, "/v1/webhooks/deliveries?tenantId=x", tenant.apiKey)).status).toBe(400);
  });

  test("delivery and screening ids are case-insensitive, as for GET /v1/screenings/{id}: read, filter and redeliver", async () => {
    world = await startWebhookWorld({ intervalMs: 60_000 });
    const { server, tenant } = world;
    const [id = ""] = enqueueEvents(server.ctx, tenant.tenant.id, 1);
    // Ids are stored as generated: lower case.
    expect(id).toBe(id.toLowerCase());
    const detail = await call(world, `/v1/webhooks/deliveries/${id.toUpperCase()}`, tenant.apiKey);
    expect(detail.status).toBe(200);
    expect(detail.body.id).toBe(id);
    const screeningId = String(detail.body.screeningId);
    expect(screeningId).toBe(screeningId.toLowerCase());

    const filtered = await call(world, `/v1/webhooks/deliveries?screeningId=${screeningId.toUpperCase()}`, tenant.apiKey);
    expect(filtered.body).toMatchObject({ total: 1 });
    expect((filtered.body.items as Json[]).map((i) => i.id)).toEqual([id]);

    const redeliver = await call(world, `/v1/webhooks/deliveries/${id.toUpperCase()}/redeliver`, tenant.apiKey, "POST");
    expect(redeliver.status).toBe(202);
    expect(redeliver.body).toMatchObject({ id, status: "pending" });
    const audit = await call(world, "/v1/audit?action=webhook.redeliver", tenant.apiKey);
    expect((audit.body.items as Json[]).map((a) => a.targetId)).toEqual([id]);

    // Another tenant still gets 404 and an empty page, whatever the case.
    const other = makeTenant(server.ctx);
    expect((await call(world, `/v1/webhooks/deliveries/${id.toUpperCase()}`, other.apiKey)).status).toBe(404);
    expect((await call(world, `/v1/webhooks/deliveries?screeningId=${screeningId.toUpperCase()}`, other.apiKey)).body.total).toBe(0);
  });

  test("another tenant's delivery is 404 on read and redeliver; an auditor may read but not redeliver; no key is 401", async () => {
    world = await startWebhookWorld({ intervalMs: 60_000 });
    const { server, tenant } = world;
    const [id] = enqueueEvents(server.ctx, tenant.tenant.id, 1);
    const other = makeTenant(server.ctx);
    expect((await call(world, `/v1/webhooks/deliveries/${id}`, other.apiKey)).status).toBe(404);
    expect((await call(world, `/v1/webhooks/deliveries/${id}/redeliver`, other.apiKey, "POST")).status).toBe(404);
    expect((await call(world, "/v1/webhooks/deliveries", other.apiKey)).body.total).toBe(0);
    expect((await call(world, "/v1/webhooks/deliveries/not-a-delivery", tenant.apiKey)).status).toBe(404);
    expect((await call(world, `/v1/webhooks/deliveries/${"d".repeat(300)}`, tenant.apiKey)).status).toBe(404);
    expect((await call(world, `/v1/webhooks/deliveries/${"d".repeat(300)}/redeliver`, tenant.apiKey, "POST")).status).toBe(404);

    const auditor = issueApiKey(server.ctx, { tenant: tenant.tenant.id, role: "auditor" }, { actor: { type: "cli", id: "test" } });
    expect((await call(world, `/v1/webhooks/deliveries/${id}`, auditor.apiKey)).status).toBe(200);
    expect((await call(world, `/v1/webhooks/deliveries/${id}/redeliver`, auditor.apiKey, "POST")).status).toBe(403);
    const anonymous = await fetch(`${server.url}/v1/webhooks/deliveries`);
    expect(anonymous.status).toBe(401);
  });
});
