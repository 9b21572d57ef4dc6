import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectProblem, json } from "../helpers/api";
import { makeTenant } from "../helpers/tenants";
import { deliveriesSettled, expireIdempotencyKey, startScreeningWorld, type ScreeningWorld } from "./world";

let world: ScreeningWorld;
beforeAll(async () => {
  world = await startScreeningWorld();
});
afterAll(() => world.close());

const keyed = (key: string) => ({ headers: { "idempotency-key": key } });

describe("Idempotency-Key on check", () => {
  test("the same key and body replay the original screening: same id, 200, Idempotent-Replayed, uncharged, no new event", async () => {
    const body = { fullName: "Dmitri Korvalev", nationality: "RU", userReference: "idem-1" };
    const first = await world.post("/v1/screenings/check", body, keyed("order-123"));
    expect(first.status).toBe(200);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    await deliveriesSettled(world, 1);
    const used = world.usedThisMonth();

    // "Russia" normalises to the same subject as "RU": the request is the same.
    const replay = await world.post("/v1/screenings/check", { ...body, nationality: "Russia" }, keyed("order-123"));
    expect(replay.status).toBe(200);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    const original = json<{ id: string; createdAt: string }>(first);
    const replayed = json<{ id: string; createdAt: string }>(replay);
    expect(replayed.id).toBe(original.id);
    expect(replayed.createdAt).toBe(original.createdAt);
    expect(world.usedThisMonth()).toBe(used);
    await Bun.sleep(200);
    expect(world.receiver.delivered).toHaveLength(1);
    const rows = world.lists.server.ctx.db.sqlite.query<{ n: number }, []>("SELECT count(*) AS n FROM screenings WHERE user_reference = 'idem-1'").get();
    expect(rows?.n).toBe(1);
  });

  test("the same key with a different body is 422 and screens nothing", async () => {
    await world.post("/v1/screenings/check", { fullName: "Aldous Quentrell" }, keyed("order-456"));
    const used = world.usedThisMonth();
    const problem = expectProblem(
      await world.post("/v1/screenings/check", { fullName: "Aldous Quentrell", options: { threshold: 0.9 } }, keyed("order-456")),
      422,
      "IDEMPOTENCY_KEY_REUSED",
    );
    expect(problem.detail).toContain("different request");
    expect(world.usedThisMonth()).toBe(used);
  });

  test("options the same in effect are the same request: null and absent, lists in another order", async () => {
    const base = { fullName: "Perpetua Vallancourt", userReference: "idem-options" };
    const first = await world.post("/v1/screenings/check", { ...base, options: { lists: ["WIKIDATA", "UN", "UK", "EU", "OFAC"], pepTiers: null } }, keyed("order-opt"));
    expect(first.status).toBe(200);
    const used = world.usedThisMonth();
    const all = ["OFAC", "EU", "UK", "UN", "WIKIDATA"];
    for (const options of [{ lists: all }, { lists: [...all, "OFAC"], threshold: null }]) {
      const replay = await world.post("/v1/screenings/check", { ...base, options }, keyed("order-opt"));
      expect(replay.status).toBe(200);
      expect(replay.headers.get("idempotent-replayed")).toBe("true");
      expect(json<{ id: string }>(replay).id).toBe(json<{ id: string }>(first).id);
    }
    // Without options at all is another request here: the profile's lists leave WIKIDATA out.
    expectProblem(await world.post("/v1/screenings/check", base, keyed("order-opt")), 422, "IDEMPOTENCY_KEY_REUSED");
    // And null options are the same as none.
    const bare = await world.post("/v1/screenings/check", { fullName: "Octavia Brandywyne" }, keyed("order-bare"));
    const nulls = await world.post("/v1/screenings/check", { fullName: "Octavia Brandywyne", options: { threshold: null } }, keyed("order-bare"));
    expect(nulls.headers.get("idempotent-replayed")).toBe("true");
    expect(json<{ id: string }>(nulls).id).toBe(json<{ id: string }>(bare).id);
    expect(world.usedThisMonth()).toBe(used + 1);
  });

  test("keys are per tenant: another tenant's identical key is a new request", async () => {
    const a = json<{ id: string }>(await world.post("/v1/screenings/check", { fullName: "Jane Roe" }, keyed("shared-key")));
    const other = makeTenant(world.lists.server.ctx);
    const b = await world.post("/v1/screenings/check", { fullName: "John Doe" }, { ...keyed("shared-key"), key: other.apiKey });
    expect(b.status).toBe(200);
    expect(b.headers.get("idempotent-replayed")).toBeNull();
    expect(json<{ id: string }>(b).id).not.toBe(a.id);
  });

  test("concurrent requests with one key screen once", async () => {
    const used = world.usedThisMonth();
    const responses = await Promise.all(
      Array.from({ length: 10 }, () => world.post("/v1/screenings/check", { fullName: "Ottoline Vanderloop" }, keyed("burst-1"))),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(new Set(responses.map((r) => json<{ id: string }>(r).id)).size).toBe(1);
    expect(world.usedThisMonth()).toBe(used + 1);
  });

  test("an expired key screens again", async () => {
    const first = json<{ id: string }>(await world.post("/v1/screenings/check", { fullName: "Jane Roe" }, keyed("old-key")));
    // The key's row as it will stand after its expiry (rows are immutable, so it is written again).
    expireIdempotencyKey(world.lists.server.ctx.db.sqlite, "idempotency_keys", "old-key");
    const second = await world.post("/v1/screenings/check", { fullName: "Jane Roe" }, keyed("old-key"));
    expect(second.headers.get("idempotent-replayed")).toBeNull();
    expect(json<{ id: string }>(second).id).not.toBe(first.id);
  });

  test("a malformed key is 400", async () => {
    for (const key of ["has space", "x".repeat(256), "ünïcode"]) {
      const problem = expectProblem(await world.post("/v1/screenings/check", { fullName: "A B" }, keyed(key)), 400, "VALIDATION_FAILED");
      expect(problem.errors?.[0]?.field).toBe("header.idempotency-key");
    }
  });
});

describe("Idempotency-Key on rescreen", () => {
  test("replays the rescreen it produced", async () => {
    const original = json<{ id: string }>(await world.post("/v1/screenings/check", { fullName: "Zembra Trading" }));
    const a = await world.post(`/v1/screenings/${original.id}/rescreen`, null, keyed("re-1"));
    const b = await world.post(`/v1/screenings/${original.id}/rescreen`, null, keyed("re-1"));
    expect(json<{ id: string }>(b).id).toBe(json<{ id: string }>(a).id);
    expect(b.headers.get("idempotent-replayed")).toBe("true");
  });
});
