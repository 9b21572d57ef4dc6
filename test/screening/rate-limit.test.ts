import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { call, expectProblem, json } from "../helpers/api";
import { makeTenant } from "../helpers/tenants";
import { startScreeningWorld, type ScreeningWorld } from "./world";

/**
 * The per-tenant screening rate limit, on the real server configured as an operator would
 * (rateLimit in the config): bursts of 3, refilled at one screen per 5 s, so that a slow machine
 * cannot refill a bucket between a test's requests. Each test uses a tenant of its own, so each starts
 * with a full bucket. The refill itself is shown on a second server at one screen per second.
 */
const RATE = 0.2;
let world: ScreeningWorld;
beforeAll(async () => {
  world = await startScreeningWorld({ flags: { rateLimit: { screensPerSecond: RATE, burst: 3 } } });
});
afterAll(() => world.close());

interface RateLimitBody {
  rateLimit: { screensPerSecond: number; burst: number; available: number; needed: number };
}

/** A tenant of its own, with a full bucket and no webhook receiver. */
function freshTenant(overrides: Record<string, unknown> = {}): { key: string; id: string; post: (path: string, body: unknown, headers?: Record<string, string>) => ReturnType<typeof call> } {
  const created = makeTenant(world.lists.server.ctx, overrides);
  return {
    key: created.apiKey,
    id: created.tenant.id,
    // world.post sends the same JSON request, with this tenant's key in place of the world's.
    post: (path, body, headers = {}) => world.post(path, body, { key: created.apiKey, headers }),
  };
}

function screeningsOf(tenantId: string): number {
  return (
    world.lists.server.ctx.db.sqlite.query<{ n: number }, [string]>("SELECT count(*) AS n FROM screenings WHERE tenant_id = ?").get(tenantId)?.n ?? -1
  );
}

describe("per-tenant screening rate limit", () => {
  test("a burst of 3 is admitted, the 4th check gets 429 RATE_LIMITED with Retry-After; nothing is stored, charged or announced", async () => {
    const before = world.usedThisMonth();
    for (let i = 0; i < 3; i++) expect((await world.post("/v1/screenings/check", { fullName: `Burst Person ${i}` })).status).toBe(200);
    const refused = await world.post("/v1/screenings/check", { fullName: "One Too Many" });
    const problem = expectProblem(refused, 429, "RATE_LIMITED") as unknown as RateLimitBody & { detail: string };
    // One screen per 5 s: the bucket, nearly empty, holds the next one in at most 5 s.
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(5);
    expect(problem.rateLimit).toEqual({ screensPerSecond: RATE, burst: 3, available: 0, needed: 1 });
    expect(problem.detail).toContain("used 3 of the limit of 3");
    expect(problem.detail).toContain(`retry after ${retryAfter} s`);

    expect(world.usedThisMonth()).toBe(before + 3);
    expect(screeningsOf(world.tenant.tenant.id)).toBe(3);
    const outbox = world.lists.server.ctx.db.sqlite
      .query<{ n: number }, [string]>("SELECT count(*) AS n FROM webhook_outbox WHERE tenant_id = ?")
      .get(world.tenant.tenant.id);
    expect(outbox?.n).toBe(3);
    await world.receiver.waitUntil(() => world.receiver.delivered.length >= 3);
    expect(world.receiver.delivered).toHaveLength(3);
    expect(world.receiver.rejected).toEqual([]);
  });

  test("while limited, reads, /v1/usage and idempotent replays keep working; another tenant is not affected", async () => {
    const tenant = freshTenant();
    const first = await tenant.post("/v1/screenings/check", { fullName: "Replayed Person" }, { "idempotency-key": "rl-1" });
    expect(first.status).toBe(200);
    const id = json<{ id: string }>(first).id;
    for (let i = 0; i < 2; i++) expect((await tenant.post("/v1/screenings/check", { fullName: `Filler ${i}` })).status).toBe(200);
    expectProblem(await tenant.post("/v1/screenings/check", { fullName: "Limited" }), 429, "RATE_LIMITED");

    const replay = await tenant.post("/v1/screenings/check", { fullName: "Replayed Person" }, { "idempotency-key": "rl-1" });
    expect(replay.status).toBe(200);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(json<{ id: string }>(replay).id).toBe(id);
    expect((await call(world.url, `/v1/screenings/${id}`, { key: tenant.key })).status).toBe(200);
    const usage = await call(world.url, "/v1/usage", { key: tenant.key });
    expect(usage.status).toBe(200);
    expect(json<{ used: number }>(usage).used).toBe(3);

    const other = freshTenant();
    expect((await other.post("/v1/screenings/check", { fullName: "Other Tenant Person" })).status).toBe(200);
  });

  test("a rescreen takes a token like a check", async () => {
    const tenant = freshTenant();
    const id = json<{ id: string }>(await tenant.post("/v1/screenings/check", { fullName: "Rescreened Person" })).id;
    expect((await tenant.post(`/v1/screenings/${id}/rescreen`, null)).status).toBe(200);
    expect((await tenant.post(`/v1/screenings/${id}/rescreen`, null)).status).toBe(200);
    expectProblem(await tenant.post(`/v1/screenings/${id}/rescreen`, null), 429, "RATE_LIMITED");
    expect(screeningsOf(tenant.id)).toBe(3);
  });

  test("concurrent checks: exactly the burst is admitted", async () => {
    const tenant = freshTenant();
    const statuses = await Promise.all(Array.from({ length: 8 }, (_, i) => tenant.post("/v1/screenings/check", { fullName: `Concurrent ${i}` }).then((r) => r.status)));
    expect(statuses.filter((s) => s === 200)).toHaveLength(3);
    expect(statuses.filter((s) => s === 429)).toHaveLength(5);
    expect(screeningsOf(tenant.id)).toBe(3);
  });

  test("concurrent first uses of one Idempotency-Key take one token between them", async () => {
    const tenant = freshTenant();
    const key = { "idempotency-key": "rate-shared-key" };
    // Sent together, they pass the replay lookup before any of them commits; one screen is stored.
    const responses = await Promise.all(Array.from({ length: 3 }, () => tenant.post("/v1/screenings/check", { fullName: "Keyed Person" }, key)));
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(new Set(responses.map((r) => json<{ id: string }>(r).id)).size).toBe(1);
    expect(screeningsOf(tenant.id)).toBe(1);
    // So two of the burst's three tokens are left.
    expect((await tenant.post("/v1/screenings/check", { fullName: "After Keyed 1" })).status).toBe(200);
    expect((await tenant.post("/v1/screenings/check", { fullName: "After Keyed 2" })).status).toBe(200);
    expectProblem(await tenant.post("/v1/screenings/check", { fullName: "After Keyed 3" }), 429, "RATE_LIMITED");
  });

  test("over both the quota and the rate, the call is told about the quota", async () => {
    const tenant = freshTenant({ monthlyScreeningQuota: 3 });
    for (let i = 0; i < 3; i++) expect((await tenant.post("/v1/screenings/check", { fullName: `Quota And Rate ${i}` })).status).toBe(200);
    expectProblem(await tenant.post("/v1/screenings/check", { fullName: "Over Both" }), 429, "QUOTA_EXCEEDED");
  });

  test("a bulk whose rows are all invalid takes no token: 200 on an empty bucket", async () => {
    const tenant = freshTenant();
    for (let i = 0; i < 3; i++) expect((await tenant.post("/v1/screenings/check", { fullName: `Emptying ${i}` })).status).toBe(200);
    const bulk = await tenant.post("/v1/screenings/bulk", [{ bad: 1 }, { fullName: "" }]);
    expect(bulk.status).toBe(200);
    expect(json<{ summary: unknown }>(bulk).summary).toEqual({ total: 2, screened: 0, failed: 2 });
  });

  test("bulk takes one token per valid row and is refused whole when they are not there", async () => {
    const tenant = freshTenant();
    expect((await tenant.post("/v1/screenings/check", { fullName: "First Of Three" })).status).toBe(200);
    // Two tokens left: three valid rows (and an invalid one, which needs none) do not fit now.
    const refused = await tenant.post("/v1/screenings/bulk", [{ fullName: "Row A" }, { fullName: "Row B" }, { bad: true }, { fullName: "Row C" }]);
    const problem = expectProblem(refused, 429, "RATE_LIMITED") as unknown as RateLimitBody;
    expect(problem.rateLimit.needed).toBe(3);
    expect(problem.rateLimit.available).toBe(2);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(screeningsOf(tenant.id)).toBe(1);

    const fits = await tenant.post("/v1/screenings/bulk", [{ fullName: "Row A" }, { bad: true }, { fullName: "Row B" }]);
    expect(fits.status).toBe(200);
    expect(json<{ summary: unknown }>(fits).summary).toEqual({ total: 3, screened: 2, failed: 1 });
    expect(screeningsOf(tenant.id)).toBe(3);
  });

  test("a bulk with more valid rows than the burst can never pass: 429 saying to split it, without Retry-After", async () => {
    const tenant = freshTenant();
    const refused = await tenant.post(
      "/v1/screenings/bulk",
      Array.from({ length: 4 }, (_, i) => ({ fullName: `Big Bulk ${i}` })),
    );
    const problem = expectProblem(refused, 429, "RATE_LIMITED") as unknown as RateLimitBody & { detail: string };
    expect(refused.headers.get("retry-after")).toBeNull();
    expect(problem.rateLimit).toEqual({ screensPerSecond: RATE, burst: 3, available: 3, needed: 4 });
    expect(problem.detail).toContain("used 0 of the limit of 3");
    expect(problem.detail).toContain("split it into requests of at most 3 valid rows");
    expect(screeningsOf(tenant.id)).toBe(0);
    expect((await call(world.url, "/v1/usage", { key: tenant.key })).text).toContain('"used":0');
  });

  test("the problem type is served and the OpenAPI description documents RATE_LIMITED", async () => {
    const page = await call(world.url, "/problems/rate-limited");
    expect(page.status).toBe(200);
    expect(json<{ code: string; status: number }>(page)).toMatchObject({ code: "RATE_LIMITED", status: 429 });
    const doc = json<{ components: { responses: Record<string, { description: string }> } }>(await call(world.url, "/openapi.json"));
    expect(doc.components.responses.TooManyScreens?.description).toContain("RATE_LIMITED");
  });
});

describe("refill", () => {
  let refilling: ScreeningWorld;
  beforeAll(async () => {
    refilling = await startScreeningWorld({ flags: { rateLimit: { screensPerSecond: 1, burst: 2 } } });
  });
  afterAll(() => refilling.close());

  test("the bucket refills at the configured rate", async () => {
    for (let i = 0; i < 2; i++) expect((await refilling.post("/v1/screenings/check", { fullName: `Refill ${i}` })).status).toBe(200);
    // Refused unless a whole second passed since the bucket was full.
    expectProblem(await refilling.post("/v1/screenings/check", { fullName: "Too Soon" }), 429, "RATE_LIMITED");
    await Bun.sleep(1_100);
    expect((await refilling.post("/v1/screenings/check", { fullName: "After Refill" })).status).toBe(200);
  });
});

describe("without a rate limit (the default)", () => {
  let open: ScreeningWorld;
  beforeAll(async () => {
    open = await startScreeningWorld();
  });
  afterAll(() => open.close());

  test("20 concurrent checks and a 30-row bulk from one tenant are all admitted", async () => {
    const statuses = await Promise.all(Array.from({ length: 20 }, (_, i) => open.post("/v1/screenings/check", { fullName: `Unlimited ${i}` }).then((r) => r.status)));
    expect(statuses.every((s) => s === 200)).toBe(true);
    const bulk = await open.post("/v1/screenings/bulk", Array.from({ length: 30 }, (_, i) => ({ fullName: `Unlimited Row ${i}` })));
    expect(bulk.status).toBe(200);
  });
});
