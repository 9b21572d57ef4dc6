import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { UsageBody } from "@/http/routes/usage";
import { openDb } from "@/storage/db";
import { expectProblem, json } from "../helpers/api";
import { strictDeep } from "../helpers/openapi";
import { startScreeningWorld, type ScreeningWorld } from "./world";

let world: ScreeningWorld;
beforeAll(async () => {
  world = await startScreeningWorld({ quota: 10 });
});
afterAll(() => world.close());

/** As the operator sets it with `aml quota set`: from another connection to the data folder. */
function setQuota(quota: number | null): void {
  const cli = openDb(world.lists.server.dataDir, { migrate: false });
  try {
    cli.sqlite.run("UPDATE tenants SET monthly_quota = ? WHERE id = ?", [quota, world.tenant.tenant.id]);
  } finally {
    cli.close();
  }
}

describe("monthly quota", () => {
  test("50 concurrent checks at a cap of 10: exactly 10 succeed, the rest get 429", async () => {
    const responses = await Promise.all(Array.from({ length: 50 }, (_, i) => world.post("/v1/screenings/check", { fullName: `Person Number ${i}` })));
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(40);
    expect(world.usedThisMonth()).toBe(10);
    const count = world.lists.server.ctx.db.sqlite
      .query<{ n: number }, [string]>("SELECT count(*) AS n FROM screenings WHERE tenant_id = ?")
      .get(world.tenant.tenant.id);
    expect(count?.n).toBe(10);
  });

  test("at the cap: 429 with used and limit, while /v1/usage and GET /v1/screenings/{id} keep working", async () => {
    const problem = expectProblem(await world.post("/v1/screenings/check", { fullName: "One More" }), 429, "QUOTA_EXCEEDED");
    expect(problem.used).toBe(10);
    expect(problem.limit).toBe(10);
    expect(problem.detail).toContain("used 10 of limit 10");

    const usage = await world.get("/v1/usage");
    expect(usage.status).toBe(200);
    const body = strictDeep(UsageBody).parse(json(usage));
    expect(body).toMatchObject({ used: 10, limit: 10, remaining: 0, unlimited: false });
    // The month counted is the one the 429 names, and it resets at the first instant of the next one.
    const now = new Date();
    expect(body).toMatchObject({ period: problem.period, resetsAt: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString() });

    const id = world.lists.server.ctx.db.sqlite
      .query<{ id: string }, [string]>("SELECT id FROM screenings WHERE tenant_id = ? LIMIT 1")
      .get(world.tenant.tenant.id)?.id;
    expect((await world.get(`/v1/screenings/${id}`)).status).toBe(200);
    expectProblem(await world.post(`/v1/screenings/${id}/rescreen`, null), 429, "QUOTA_EXCEEDED");
    expectProblem(await world.post("/v1/screenings/bulk", [{ fullName: "A B" }]), 429, "QUOTA_EXCEEDED");
    // A screening call at the cap is 429 even when it would screen nothing.
    const invalidOnly = expectProblem(await world.post("/v1/screenings/bulk", [{ bad: 1 }, { fullName: "" }]), 429, "QUOTA_EXCEEDED");
    expect(invalidOnly.detail).toContain("used 10 of limit 10");
    // A check the tenant's options refuse is a 400 at the cap, as a malformed one is: the caller
    // learns what to fix before it learns to wait.
    const refused = expectProblem(await world.post("/v1/screenings/check", { fullName: "One More", options: { threshold: 0.99 } }), 400, "VALIDATION_FAILED");
    expect(refused.errors).toEqual([expect.objectContaining({ field: "options.threshold" })]);
    expect(world.usedThisMonth()).toBe(10);

    const lists = await world.get("/v1/lists/version");
    expect(lists.status).toBe(200);
    expect(world.usedThisMonth()).toBe(10);
  });

  test("below the cap, a bulk with no valid row is a 200 of failed rows and charges nothing", async () => {
    setQuota(11);
    const response = await world.post("/v1/screenings/bulk", [{ bad: 1 }, { fullName: "" }]);
    expect(response.status).toBe(200);
    expect(json<{ summary: unknown }>(response).summary).toEqual({ total: 2, screened: 0, failed: 2 });
    expect(world.usedThisMonth()).toBe(10);
  });

  test("a bulk whose valid rows do not fit in the remaining quota is refused whole; invalid rows do not count", async () => {
    setQuota(13);
    const before = world.usedThisMonth();
    const problem = expectProblem(
      await world.post("/v1/screenings/bulk", [{ fullName: "A" }, { fullName: "B" }, { fullName: "C" }, { fullName: "D" }]),
      429,
      "QUOTA_EXCEEDED",
    );
    expect(problem.remaining).toBe(3);
    expect(world.usedThisMonth()).toBe(before);
    const fits = await world.post("/v1/screenings/bulk", [{ fullName: "A" }, { fullName: "B" }, { bad: 1 }, { fullName: "C" }]);
    expect(fits.status).toBe(200);
    expect(json<{ summary: { total: number; screened: number; failed: number } }>(fits).summary).toEqual({ total: 4, screened: 3, failed: 1 });
    expect(world.usedThisMonth()).toBe(13);
  });

  test("an idempotent replay works at the cap and charges nothing", async () => {
    setQuota(null);
    const first = json<{ id: string }>(await world.post("/v1/screenings/check", { fullName: "Replay Me" }, { headers: { "idempotency-key": "cap-1" } }));
    setQuota(world.usedThisMonth());
    const replay = await world.post("/v1/screenings/check", { fullName: "Replay Me" }, { headers: { "idempotency-key": "cap-1" } });
    expect(replay.status).toBe(200);
    expect(json<{ id: string }>(replay).id).toBe(first.id);
  });
});
