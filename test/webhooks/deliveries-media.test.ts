import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectDocumentedResponses, type OpenApiPaths, servedPaths } from "../helpers/openapi";
import { z } from "zod";
import { issueApiKey } from "@/tenants/keys";
import { WebhookDeliveryDetailResponse, WebhookDeliveryPageResponse, WebhookDeliveryResponse } from "@/webhooks/response-schemas";
import { type CallOptions, call, type Exchange, expectProblem, json } from "../helpers/api";
import { enqueueEvents, outboxStatuses, startWebhookWorld, type WebhookWorld } from "./fixtures";

/**
 * The delivery-log routes settle media types before any work, as the screening and admin routes do:
 * a 406 (Accept allows no JSON type) or 415 (a body that is not JSON) on redeliver changes no delivery
 * and writes no audit entry, unknown query parameters are 400 naming them, the list keeps its filters
 * and paging, redeliver takes no body ({} or null at most), and the OpenAPI document declares each
 * route's problem responses and schemas.
 */
let world: WebhookWorld;
let key: string;

beforeAll(async () => {
  // The dispatcher runs only when woken (a redelivery, or deliver() below): nothing retries behind a test's back.
  world = await startWebhookWorld({ intervalMs: 60_000 });
  key = world.tenant.apiKey;
});
afterAll(() => world?.close());

const send = (path: string, options: CallOptions = {}): Promise<Exchange> => call(world.server.url, path, { key, ...options });
const redeliver = (id: string, options: Omit<CallOptions, "method"> = {}, query = ""): Promise<Exchange> =>
  send(`/v1/webhooks/deliveries/${id}/redeliver${query}`, { method: "POST", ...options });

/** Settles once nothing of the tenant is queued or in flight. */
async function idle(): Promise<void> {
  await world.receiver.waitUntil(() => {
    const statuses = outboxStatuses(world.server.ctx, world.tenant.tenant.id);
    return !statuses.pending && !statuses.delivering;
  });
}

/** A fresh event, delivered (receiver answered 204, record committed): a redelivery would start series 2. */
async function delivered(): Promise<string> {
  const [id] = enqueueEvents(world.server.ctx, world.tenant.tenant.id, 1);
  if (!id) throw new Error("nothing queued");
  world.wake();
  await idle();
  expect(world.receiver.delivered.some((d) => d.deliveryId === id)).toBe(true);
  return id;
}

/** Everything a refused redelivery must leave as it was: the delivery, its attempts, the audit log and what the receiver got. */
function footprint(id: string) {
  const db = world.server.ctx.db.sqlite;
  return {
    delivery: db.query("SELECT * FROM webhook_outbox WHERE id = ?").get(id),
    attempts: db.query("SELECT * FROM webhook_attempts WHERE outbox_id = ? ORDER BY series, attempt").all(id),
    audit: db.query("SELECT count(*) AS n FROM audit_log").get(),
    redeliverAudit: db.query("SELECT count(*) AS n FROM audit_log WHERE action = 'webhook.redeliver' AND target_id = ?").get(id),
    received: world.receiver.delivered.length,
  };
}

async function unchangedBy(id: string, request: () => Promise<Exchange>): Promise<Exchange> {
  const before = footprint(id);
  const res = await request();
  // A redelivery that slipped through would wake the dispatcher: give it the time to show.
  await Bun.sleep(50);
  expect(footprint(id)).toEqual(before);
  return res;
}

describe("redeliver: 406 is answered before the redelivery is recorded", () => {
  test.each(["application/xml", "text/csv", "application/json;q=0", "image/*"])("Accept: %s leaves the delivery unchanged and audits nothing", async (accept) => {
    const id = await delivered();
    const res = await unchangedBy(id, () => redeliver(id, { headers: { accept } }));
    const problem = expectProblem(res, 406, "NOT_ACCEPTABLE", `/v1/webhooks/deliveries/${id}/redeliver`);
    expect(problem.detail).toContain(accept);
    const after = json<{ status: string; series: number }>(await send(`/v1/webhooks/deliveries/${id}`));
    expect(after).toMatchObject({ status: "delivered", series: 1 });
  });

  test("a pending delivery waiting for its retry is not made due by a refused redelivery", async () => {
    const [id] = enqueueEvents(world.server.ctx, world.tenant.tenant.id, 1);
    if (!id) throw new Error("nothing queued");
    const later = new Date(Date.now() + 30 * 60_000).toISOString();
    world.server.ctx.db.sqlite.run("UPDATE webhook_outbox SET next_attempt_at = ? WHERE id = ?", [later, id]);
    expectProblem(await unchangedBy(id, () => redeliver(id, { headers: { accept: "application/xml" } })), 406, "NOT_ACCEPTABLE");
    expect(json<{ nextAttemptAt: string }>(await send(`/v1/webhooks/deliveries/${id}`)).nextAttemptAt).toBe(later);
    // Accepted, it is due now and goes out.
    const res = await redeliver(id);
    expect(res.status).toBe(202);
    expect(Date.parse(json<{ nextAttemptAt: string }>(res).nextAttemptAt)).toBeLessThanOrEqual(Date.now());
    await idle();
    expect(world.receiver.delivered.some((d) => d.deliveryId === id)).toBe(true);
  });

  test("the same redelivery with an acceptable Accept then goes through, served under the negotiated JSON type, audited once", async () => {
    const id = await delivered();
    const before = footprint(id);
    const res = await redeliver(id, { headers: { accept: "text/plain, application/xml;q=0.5" } });
    expect(res.status).toBe(202);
    expect(res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(json<{ id: string; status: string; series: number; attemptCount: number }>(res)).toMatchObject({ id, status: "pending", series: 2, attemptCount: 0 });
    expect(footprint(id).redeliverAudit).toEqual({ n: 1 });
    await idle();
    expect(world.receiver.delivered.length).toBe(before.received + 1);
  });

  test("a credential problem comes first: 401 without a key, 403 for an auditor, whatever Accept says", async () => {
    const id = await delivered();
    const anonymous = await unchangedBy(id, () => call(world.server.url, `/v1/webhooks/deliveries/${id}/redeliver`, { method: "POST", headers: { accept: "application/xml" } }));
    expectProblem(anonymous, 401, "UNAUTHENTICATED");
    const auditor = issueApiKey(world.server.ctx, { tenant: world.tenant.tenant.id, role: "auditor" }, { actor: { type: "cli", id: "test" } });
    const forbidden = await unchangedBy(id, () => redeliver(id, { key: auditor.apiKey, headers: { accept: "application/xml" } }));
    expectProblem(forbidden, 403, "FORBIDDEN");
  });
});

describe("the reads: 406 when Accept allows no JSON type", () => {
  test("GET /v1/webhooks/deliveries and /v1/webhooks/deliveries/{id} with Accept: image/png", async () => {
    const id = await delivered();
    for (const path of ["/v1/webhooks/deliveries", `/v1/webhooks/deliveries/${id}`]) {
      expectProblem(await send(path, { headers: { accept: "image/png" } }), 406, "NOT_ACCEPTABLE", path);
      const ok = await send(path, { headers: { accept: "text/json" } });
      expect(ok.status).toBe(200);
      expect(ok.headers.get("content-type")).toBe("text/json; charset=utf-8");
    }
  });
});

describe("redeliver takes no body, {} or null", () => {
  test.each([
    ["no body, no Content-Type", undefined, {}],
    ["an empty JSON body", "", { "content-type": "application/json" }],
    ["{}", "{}", { "content-type": "application/json" }],
    ["null", "null", { "content-type": "application/json" }],
    ["{} without a Content-Type", new TextEncoder().encode("{}"), {}],
    ["an empty text body", "", { "content-type": "text/plain" }],
  ])("%s redelivers", async (_label, body, headers) => {
    const id = await delivered();
    const res = await redeliver(id, { headers, ...(body === undefined ? {} : { body }) });
    expect(res.status).toBe(202);
    expect(json<{ series: number }>(res).series).toBe(2);
    await idle();
  });

  test("a body with a field is 400 naming it; nothing changes", async () => {
    const id = await delivered();
    const res = await unchangedBy(id, () => redeliver(id, { headers: { "content-type": "application/json" }, body: '{"force":true}' }));
    expect(expectProblem(res, 400, "VALIDATION_FAILED").errors).toEqual([{ field: "force", message: "is not a known field" }]);
  });

  test.each([
    ["an array", "[]", "VALIDATION_FAILED"],
    ["a string", '"again"', "VALIDATION_FAILED"],
    ["the empty JSON string", '""', "VALIDATION_FAILED"],
    ["a number", "1", "VALIDATION_FAILED"],
    ["malformed JSON", "{", "MALFORMED_JSON"],
  ] as const)("%s is 400; nothing changes", async (_label, body, code) => {
    const id = await delivered();
    const res = await unchangedBy(id, () => redeliver(id, { headers: { "content-type": "application/json" }, body }));
    expectProblem(res, 400, code);
  });

  test.each([
    ["text/plain", "{}"],
    ["application/x-www-form-urlencoded", "force=1"],
  ])("a %s body is 415; nothing changes", async (type, body) => {
    const id = await delivered();
    const res = await unchangedBy(id, () => redeliver(id, { headers: { "content-type": type }, body }));
    expect(expectProblem(res, 415, "UNSUPPORTED_MEDIA_TYPE").detail).toContain("send application/json");
  });
});

describe("unknown query parameters are refused, not ignored", () => {
  test("GET /v1/webhooks/deliveries?foo=1 and ?tenantId=x are 400 naming them", async () => {
    for (const name of ["foo", "tenantId", "format"]) {
      const res = await send(`/v1/webhooks/deliveries?${name}=x`);
      expect(expectProblem(res, 400, "VALIDATION_FAILED").errors).toEqual([{ field: `query.${name}`, message: "is not a known field" }]);
    }
  });

  test("GET /v1/webhooks/deliveries/{id}?foo=1 and ?take=1 are 400 naming them", async () => {
    const id = await delivered();
    for (const name of ["foo", "take"]) {
      const res = await send(`/v1/webhooks/deliveries/${id}?${name}=1`);
      expect(expectProblem(res, 400, "VALIDATION_FAILED").errors).toEqual([{ field: `query.${name}`, message: "is not a known field" }]);
    }
  });

  test("POST /v1/webhooks/deliveries/{id}/redeliver?foo=1 is 400 naming it; nothing changes", async () => {
    const id = await delivered();
    const res = await unchangedBy(id, () => redeliver(id, {}, "?foo=1"));
    expect(expectProblem(res, 400, "VALIDATION_FAILED").errors).toEqual([{ field: "query.foo", message: "is not a known field" }]);
  });

  test("documented parameters keep working: status and event filters, skip and take", async () => {
    const alerts = enqueueEvents(world.server.ctx, world.tenant.tenant.id, 2, "monitoring.alert");
    const page = await send("/v1/webhooks/deliveries?event=monitoring.alert&skip=0&take=1");
    expect(page.status).toBe(200);
    const body = WebhookDeliveryPageResponse.parse(json(page));
    expect(body).toMatchObject({ total: 2, skip: 0, take: 1 });
    expect(body.items.map((i) => i.id)).toEqual([alerts[1] ?? ""]);
    const second = WebhookDeliveryPageResponse.parse(json(await send("/v1/webhooks/deliveries?event=monitoring.alert&skip=1&take=1")));
    expect(second.items.map((i) => i.id)).toEqual([alerts[0] ?? ""]);
    const deliveredOnly = WebhookDeliveryPageResponse.parse(json(await send("/v1/webhooks/deliveries?status=delivered&event=screening.completed")));
    expect(deliveredOnly.total).toBeGreaterThan(0);
    expect(new Set(deliveredOnly.items.map((i) => `${i.status} ${i.event}`))).toEqual(new Set(["delivered screening.completed"]));
    // Invalid values of documented parameters are still 400 naming them.
    for (const [query, field] of [
      ["status=lost", "query.status"],
      ["event=screening.started", "query.event"],
      ["take=501", "query.take"],
      ["skip=-1", "query.skip"],
    ] as const) {
      expect(expectProblem(await send(`/v1/webhooks/deliveries?${query}`), 400, "VALIDATION_FAILED").errors?.map((e) => e.field)).toEqual([field]);
    }
    world.wake();
    await idle();
  });
});

describe("answers match the schemas the OpenAPI document publishes", () => {
  const conforms = async <S extends z.ZodType>(schema: S, res: Promise<Exchange>, status = 200): Promise<z.output<S>> => {
    const exchange = await res;
    expect(exchange.status).toBe(status);
    const parsed = schema.safeParse(json(exchange));
    expect(parsed.success ? [] : parsed.error.issues).toEqual([]);
    return parsed.data as z.output<S>;
  };

  test("list, read and redeliver", async () => {
    const id = await delivered();
    await conforms(WebhookDeliveryPageResponse, send("/v1/webhooks/deliveries"));
    const detail = await conforms(WebhookDeliveryDetailResponse, send(`/v1/webhooks/deliveries/${id}`));
    expect(detail.attempts.length).toBeGreaterThan(0);
    const again = await conforms(WebhookDeliveryResponse.extend({ correlationId: z.string() }), redeliver(id), 202);
    expect(again.series).toBe(2);
    await idle();
  });
});

describe("OpenAPI", () => {
  let paths: OpenApiPaths;
  beforeAll(async () => {
    paths = await servedPaths(world.server.url);
  });

  const ROUTES: Array<[string, string, string, string[], boolean]> = [
    ["/v1/webhooks/deliveries", "get", "200", ["400", "401", "403", "406", "503"], false],
    ["/v1/webhooks/deliveries/{id}", "get", "200", ["400", "401", "403", "404", "406", "503"], false],
    ["/v1/webhooks/deliveries/{id}/redeliver", "post", "202", ["400", "401", "403", "404", "406", "409", "413", "415", "503"], true],
  ];

  test.each(ROUTES)("%s %s: %s with a shared JSON schema and problem responses by reference", (path, method, ok, problems, body) => {
    const operation = paths[path]?.[method];
    expectDocumentedResponses(operation, ok, problems, "#/components/schemas/WebhookDelivery");
    if (body) {
      expect(operation?.requestBody?.required).toBe(false);
      expect(Object.keys(operation?.requestBody?.content ?? {})).toEqual(["application/json"]);
    } else {
      expect(operation?.requestBody).toBeUndefined();
    }
  });

  test("the list documents its filters and paging; the others only their path parameter", () => {
    expect(paths["/v1/webhooks/deliveries"]?.get?.parameters?.map((p) => p.name)).toEqual(expect.arrayContaining(["status", "event", "skip", "take"]));
    for (const [path, method] of [
      ["/v1/webhooks/deliveries/{id}", "get"],
      ["/v1/webhooks/deliveries/{id}/redeliver", "post"],
    ] as const) {
      const names = (paths[path]?.[method]?.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name);
      expect(names).toEqual([]);
    }
  });
});
