import { afterEach, describe, expect, test } from "bun:test";
import { WEBHOOK_USER_AGENT } from "@/webhooks/send";
import { makeTenant } from "../helpers/tenants";
import { duplicateIds } from "../helpers/webhook-receiver";
import { enqueueEvents, FAST, outboxStatuses, SPEC_BODY_FIELDS, startWebhookWorld, type WebhookWorld } from "./fixtures";

let world: WebhookWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe("webhook delivery through the real server", () => {
  test("each queued event arrives once, signed, with the spec headers and exactly the spec body fields", async () => {
    world = await startWebhookWorld();
    const { server, receiver, tenant } = world;
    const ids = [
      ...enqueueEvents(server.ctx, tenant.tenant.id, 3, "screening.completed"),
      ...enqueueEvents(server.ctx, tenant.tenant.id, 1, "monitoring.alert"),
    ];
    world.wake();
    await receiver.waitUntil(() => receiver.delivered.length >= ids.length);
    await Bun.sleep(200);

    expect(receiver.rejected).toEqual([]);
    expect(receiver.delivered.length).toBe(ids.length);
    expect(duplicateIds(receiver.delivered)).toEqual([]);
    expect(receiver.delivered.map((d) => d.deliveryId).sort()).toEqual([...ids].sort());
    const nowSeconds = Math.floor(Date.now() / 1000);
    for (const d of receiver.delivered) {
      expect(d.contentType).toBe("application/json");
      expect(d.userAgent).toBe(WEBHOOK_USER_AGENT);
      expect(d.event).toBe(String(d.body.event));
      expect(d.signature).toMatch(/^sha256=[0-9a-f]{64}$/);
      expect(Math.abs(Number(d.timestamp) - nowSeconds)).toBeLessThan(30);
      expect(d.attempt).toBe("1");
      expect(Object.keys(d.body).sort()).toEqual(SPEC_BODY_FIELDS);
      expect(d.rawBody).not.toMatch(/fullName|"name"|aliases|entityName/);
    }
    expect(outboxStatuses(server.ctx, tenant.tenant.id)).toEqual({ delivered: ids.length });
  });

  test("the delivery log shows each delivery with its successful attempt, never the secret", async () => {
    world = await startWebhookWorld();
    const { server, receiver, tenant } = world;
    const [id] = enqueueEvents(server.ctx, tenant.tenant.id, 1);
    world.wake();
    await receiver.waitUntil(() => receiver.delivered.length === 1);
    await Bun.sleep(100);

    const headers = { "x-api-key": tenant.apiKey };
    const list = await fetch(`${server.url}/v1/webhooks/deliveries`, { headers });
    expect(list.status).toBe(200);
    const listText = await list.text();
    expect(listText).not.toContain(tenant.webhookSigningSecret ?? "whsec_");
    const page = JSON.parse(listText) as { items: Array<Record<string, unknown>>; total: number };
    expect(page.total).toBe(1);
    expect(page.items[0]).toMatchObject({ id, status: "delivered", attemptCount: 1, series: 1, lastStatusCode: 204, lastError: null, nextAttemptAt: null });
    expect(page.items[0]?.deliveredAt).toBeString();

    const detail = await fetch(`${server.url}/v1/webhooks/deliveries/${id}`, { headers });
    expect(detail.status).toBe(200);
    const body = (await detail.json()) as { payload: Record<string, unknown>; attempts: Array<Record<string, unknown>> };
    expect(JSON.stringify(body)).not.toContain("whsec_");
    expect(Object.keys(body.payload).sort()).toEqual(SPEC_BODY_FIELDS);
    expect(body.attempts).toHaveLength(1);
    expect(body.attempts[0]).toMatchObject({ series: 1, attempt: 1, statusCode: 204, error: null, url: receiver.url });
  });

  test("an attempt the receiver does not answer within webhooks.timeoutMs fails as a timeout and is retried", async () => {
    world = await startWebhookWorld(FAST, 300);
    const { server, receiver, tenant } = world;
    receiver.delayMs = 900;
    const [id] = enqueueEvents(server.ctx, tenant.tenant.id, 1);
    world.wake();
    const headers = { "x-api-key": tenant.apiKey };
    const attempts = async () => {
      const res = await fetch(`${server.url}/v1/webhooks/deliveries/${id}`, { headers });
      return ((await res.json()) as { attempts: Array<{ attempt: number; statusCode: number | null; error: string | null }> }).attempts;
    };
    let seen: Awaited<ReturnType<typeof attempts>> = [];
    const deadline = Date.now() + 5_000;
    while (seen.length === 0 && Date.now() < deadline) {
      await Bun.sleep(50);
      seen = await attempts();
    }
    expect(seen[0]).toMatchObject({ attempt: 1, statusCode: null, error: "no answer within 300 ms" });

    receiver.delayMs = 0;
    await receiver.waitUntil(() => receiver.delivered.some((d) => d.attempt !== "1"));
    await Bun.sleep(100);
    expect(outboxStatuses(server.ctx, tenant.tenant.id)).toEqual({ delivered: 1 });
    const all = await attempts();
    expect(all.at(-1)).toMatchObject({ statusCode: 204, error: null });
    expect(all.slice(0, -1).every((a) => a.error === "no answer within 300 ms")).toBe(true);
  }, 15_000);

  test("an event queued for a tenant without a webhook URL is never queued or sent", async () => {
    world = await startWebhookWorld();
    const { server } = world;
    const silent = makeTenant(server.ctx);
    expect(() => enqueueEvents(server.ctx, silent.tenant.id, 1)).toThrow("no webhook URL");
    expect(outboxStatuses(server.ctx, silent.tenant.id)).toEqual({});
  });
});
