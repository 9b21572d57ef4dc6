import { afterEach, expect, test } from "bun:test";
import { call, expectProblem, json } from "../helpers/api";
import { type ListServer, startListServer } from "../helpers/lists";
import { makeTenant } from "../helpers/tenants";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver";
import { outboxStatuses } from "./fixtures";

let lists: ListServer | undefined;
let receiver: WebhookReceiver | undefined;
afterEach(async () => {
  await lists?.close();
  await receiver?.stop();
  lists = receiver = undefined;
});

interface DeliveryPage {
  items: Array<{ id: string; screeningId: string; event: string; status: string }>;
  total: number;
}

test("the delivery log filtered by screeningId holds that screening's delivery only, within the tenant", async () => {
  receiver = await startWebhookReceiver();
  lists = await startListServer({ flags: { webhooks: { allowPrivateNetworks: ["127.0.0.1"], timeoutMs: 2_000 } } });
  const { server } = lists;
  const tenant = makeTenant(server.ctx, { webhookUrl: receiver.url });
  receiver.secret = tenant.webhookSigningSecret ?? "";
  const screen = async (fullName: string) => {
    const check = await call(server.url, "/v1/screenings/check", {
      method: "POST",
      key: tenant.apiKey,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ fullName }),
    });
    expect(check.status).toBe(200);
    return json<{ id: string }>(check).id;
  };
  const first = await screen("Anna Lindqvist");
  const second = await screen("Jonas Berg");
  const received = receiver;
  // The receiver has both, and their success is recorded right after it answered.
  await received.waitUntil(() => received.delivered.length === 2 && outboxStatuses(server.ctx, tenant.tenant.id).delivered === 2);

  const page = (path: string, key = tenant.apiKey) => call(server.url, path, { key });
  const byFirst = await page(`/v1/webhooks/deliveries?screeningId=${first}`);
  expect(byFirst.status).toBe(200);
  const firstPage = json<DeliveryPage>(byFirst);
  expect(firstPage.total).toBe(1);
  expect(firstPage.items.map((d) => [d.screeningId, d.event, d.status])).toEqual([[first, "screening.completed", "delivered"]]);
  // The delivery listed is the one the receiver got for that screening (same X-AML-Delivery id).
  const sent = received.delivered.find((d) => d.body.screeningId === first);
  expect(firstPage.items[0]?.id).toBe(sent?.deliveryId);

  // Combined with the other filters, and a screening with no delivery gives an empty page.
  expect(json<DeliveryPage>(await page(`/v1/webhooks/deliveries?screeningId=${second}&status=delivered`)).total).toBe(1);
  expect(json<DeliveryPage>(await page(`/v1/webhooks/deliveries?screeningId=${second}&status=dead`)).total).toBe(0);
  expect(json<DeliveryPage>(await page("/v1/webhooks/deliveries?screeningId=no-such-screening")).total).toBe(0);

  // Another tenant filtering for this tenant's screening sees nothing of it.
  const other = makeTenant(server.ctx);
  expect(json<DeliveryPage>(await page(`/v1/webhooks/deliveries?screeningId=${first}`, other.apiKey))).toMatchObject({ total: 0, items: [] });

  // An id of any length that names nothing is an empty page, as in the path it is a 404; an empty one is a 400 naming it.
  expect(json<DeliveryPage>(await page(`/v1/webhooks/deliveries?screeningId=${"x".repeat(300)}`)).total).toBe(0);
  const empty = expectProblem(await page("/v1/webhooks/deliveries?screeningId="), 400, "VALIDATION_FAILED");
  expect(empty.errors?.map((e) => e.field)).toContain("query.screeningId");
});
