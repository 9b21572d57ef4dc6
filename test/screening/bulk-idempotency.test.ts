import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Papa from "papaparse";
import { expectProblem, json } from "../helpers/api";
import { type BulkBody, deliveriesSettled, expireIdempotencyKey, startScreeningWorld, type ScreeningWorld } from "./world";


const QUOTA = 40;
let world: ScreeningWorld;
beforeAll(async () => {
  world = await startScreeningWorld({ quota: QUOTA });
});
afterAll(() => world.close());

const count = (table: string) => world.lists.server.ctx.db.sqlite.query<{ n: number }, []>(`SELECT count(*) AS n FROM ${table}`).get()?.n ?? 0;
const keyed = (key: string) => ({ headers: { "idempotency-key": key } });

describe("Idempotency-Key on POST /v1/screenings/bulk", () => {
  test("the same key and rows replay the original rows: same ids and errors, nothing screened, charged or announced", async () => {
    const rows = [{ fullName: "Boris Quillfeather", nationality: "Russia", userReference: "a" }, { fullName: 7 }, { fullName: "Ada Example", userReference: "c" }];
    const first = await world.post("/v1/screenings/bulk", rows, keyed("bulk-replay"));
    expect(first.status).toBe(200);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const original = json<BulkBody>(first);
    expect(original.summary).toEqual({ total: 3, screened: 2, failed: 1 });
    await deliveriesSettled(world, 2);
    const used = world.usedThisMonth();
    const stored = [count("screenings"), count("webhook_outbox"), count("audit_log")];

    // The same rows as the key compares them: "Russia" is validated to "RU", as it is for check.
    const again = [{ ...rows[0], nationality: "RU" }, rows[1], rows[2]];
    const replay = await world.post("/v1/screenings/bulk", again, keyed("bulk-replay"));
    expect(replay.status).toBe(200);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    const replayed = json<BulkBody>(replay);
    expect(replayed.rows).toEqual(original.rows);
    expect(replayed.summary).toEqual(original.summary);
    expect(world.usedThisMonth()).toBe(used);
    expect([count("screenings"), count("webhook_outbox"), count("audit_log")]).toEqual(stored);
    await deliveriesSettled(world, 2);
    expect(world.receiver.delivered).toHaveLength(2);
  });

  test("a CSV replay carries the header and the original screening ids", async () => {
    const rows = [{ fullName: "Cora Example", userReference: "x" }, { fullName: "Dmitri Example", userReference: "y" }];
    const first = json<BulkBody>(await world.post("/v1/screenings/bulk", rows, keyed("bulk-csv")));
    const used = world.usedThisMonth();
    const csv = await world.post("/v1/screenings/bulk?format=csv", rows, keyed("bulk-csv"));
    expect(csv.status).toBe(200);
    expect(csv.headers.get("idempotent-replayed")).toBe("true");
    const parsed = Papa.parse<Record<string, string>>(csv.text, { header: true, skipEmptyLines: true });
    expect(parsed.data.map((r) => r.screeningId)).toEqual(first.rows.map((r) => r.screeningId ?? ""));
    expect(world.usedThisMonth()).toBe(used);
  });

  test("the same key with other rows, or a key check used, is 422 and nothing is charged", async () => {
    await world.post("/v1/screenings/bulk", [{ fullName: "Eve Example" }], keyed("bulk-other"));
    const used = world.usedThisMonth();
    expectProblem(await world.post("/v1/screenings/bulk", [{ fullName: "Eve Exampel" }], keyed("bulk-other")), 422, "IDEMPOTENCY_KEY_REUSED");
    // One key space per tenant: a bulk's key cannot replay as a check, nor a check's as a bulk.
    expectProblem(await world.post("/v1/screenings/check", { fullName: "Eve Example" }, keyed("bulk-other")), 422, "IDEMPOTENCY_KEY_REUSED");
    expect((await world.post("/v1/screenings/check", { fullName: "Fay Example" }, keyed("check-first"))).status).toBe(200);
    expectProblem(await world.post("/v1/screenings/bulk", [{ fullName: "Fay Example" }], keyed("check-first")), 422, "IDEMPOTENCY_KEY_REUSED");
    expect(world.usedThisMonth()).toBe(used + 1);
  });

  test("a bulk of invalid rows only keeps its key too", async () => {
    const used = world.usedThisMonth();
    const first = await world.post("/v1/screenings/bulk", [{ fullName: "" }], keyed("bulk-invalid"));
    expect(json<BulkBody>(first).summary).toEqual({ total: 1, screened: 0, failed: 1 });
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    expect((await world.post("/v1/screenings/bulk", [{ fullName: "" }], keyed("bulk-invalid"))).headers.get("idempotent-replayed")).toBe("true");
    expectProblem(await world.post("/v1/screenings/bulk", [{ fullName: "Gus Example" }], keyed("bulk-invalid")), 422, "IDEMPOTENCY_KEY_REUSED");
    expect(world.usedThisMonth()).toBe(used);
  });

  test("invalid rows are compared as sent: 1e999 (Infinity once parsed) is not null", async () => {
    const first = await world.post("/v1/screenings/bulk", '[{"fullName":1e999}]', keyed("bulk-infinite"));
    expect(json<BulkBody>(first).summary).toEqual({ total: 1, screened: 0, failed: 1 });
    expectProblem(await world.post("/v1/screenings/bulk", '[{"fullName":null}]', keyed("bulk-infinite")), 422, "IDEMPOTENCY_KEY_REUSED");
    expect((await world.post("/v1/screenings/bulk", '[{"fullName":1e999}]', keyed("bulk-infinite"))).headers.get("idempotent-replayed")).toBe("true");
  });

  test("a row nested 100,000 arrays deep is a failed row with a key as without one, not a 500", async () => {
    const body = `[{"fullName":"Hal Example"},${"[".repeat(100_000)}${"]".repeat(100_000)}]`;
    const used = world.usedThisMonth();
    const first = await world.post("/v1/screenings/bulk", body, keyed("bulk-deep"));
    expect(first.status).toBe(200);
    const rows = json<BulkBody>(first);
    expect(rows.summary).toEqual({ total: 2, screened: 1, failed: 1 });
    expect(world.usedThisMonth()).toBe(used + 1);
    expect((await world.post("/v1/screenings/bulk", body, keyed("bulk-deep"))).headers.get("idempotent-replayed")).toBe("true");
    expect(world.usedThisMonth()).toBe(used + 1);
  });

  test("an expired key screens again; a stored key cannot be rewritten in the database", async () => {
    const rows = [{ fullName: "Jon Example" }];
    const first = json<BulkBody>(await world.post("/v1/screenings/bulk", rows, keyed("bulk-expiry")));
    const db = world.lists.server.ctx.db.sqlite;
    expect(() => db.run("UPDATE bulk_idempotency_keys SET row_outcomes = '[]' WHERE key = 'bulk-expiry'")).toThrow("idempotency keys are immutable");
    expect(() =>
      db.run("INSERT OR REPLACE INTO bulk_idempotency_keys SELECT tenant_id, key, request_hash, '[]', created_at, expires_at FROM bulk_idempotency_keys WHERE key = 'bulk-expiry'"),
    ).toThrow("idempotency keys are immutable");
    // Nor deleted before it expires, so it cannot be inserted again with other outcomes.
    expect(() => db.run("DELETE FROM bulk_idempotency_keys WHERE key = 'bulk-expiry'")).toThrow("an idempotency key is kept until it expires");
    expireIdempotencyKey(db, "bulk_idempotency_keys", "bulk-expiry");
    const used = world.usedThisMonth();
    const again = await world.post("/v1/screenings/bulk", rows, keyed("bulk-expiry"));
    expect(again.headers.get("idempotent-replayed")).toBeNull();
    expect(json<BulkBody>(again).rows[0]?.screeningId).not.toBe(first.rows[0]?.screeningId ?? null);
    expect(world.usedThisMonth()).toBe(used + 1);
  });

  test("a replay works at the quota cap, where a new bulk gets 429", async () => {
    const rows = [{ fullName: "Hal Example" }];
    const first = json<BulkBody>(await world.post("/v1/screenings/bulk", rows, keyed("bulk-cap")));
    const fill = Array.from({ length: QUOTA - world.usedThisMonth() }, (_, i) => ({ fullName: `Filler Person ${i}` }));
    expect((await world.post("/v1/screenings/bulk", fill)).status).toBe(200);
    expect(world.usedThisMonth()).toBe(QUOTA);
    expectProblem(await world.post("/v1/screenings/bulk", [{ fullName: "Ivy Example" }]), 429, "QUOTA_EXCEEDED");
    // A keyed bulk refused for the quota stores no key: nothing was screened, so there is nothing to replay.
    expectProblem(await world.post("/v1/screenings/bulk", [{ fullName: "Ivy Example" }], keyed("bulk-refused")), 429, "QUOTA_EXCEEDED");
    expect(count("bulk_idempotency_keys WHERE key = 'bulk-refused'")).toBe(0);
    const replay = await world.post("/v1/screenings/bulk", rows, keyed("bulk-cap"));
    expect(replay.status).toBe(200);
    expect(json<BulkBody>(replay).rows[0]?.screeningId).toBe(first.rows[0]?.screeningId ?? "missing");
    expect(world.usedThisMonth()).toBe(QUOTA);
  });
});

describe("Idempotency-Key on bulk, concurrent", () => {
  let unlimited: ScreeningWorld;
  beforeAll(async () => {
    unlimited = await startScreeningWorld();
  });
  afterAll(() => unlimited.close());

  // 300 rows take long enough that the requests interleave (a bulk yields every few ms of matching):
  // each passes the first key lookup, and the commit's own lookup is what keeps the second one out.
  test("requests with one key, screened at the same time, store and charge once and all get the same rows", async () => {
    const rows = Array.from({ length: 300 }, (_, i) => ({ fullName: `Concurrent Person Number ${i}` }));
    const responses = await Promise.all(Array.from({ length: 3 }, () => unlimited.post("/v1/screenings/bulk", rows, keyed("bulk-race"))));
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200]);
    const ids = responses.map((r) => json<BulkBody>(r).rows.map((row) => row.screeningId).join());
    expect(new Set(ids).size).toBe(1);
    expect(responses.filter((r) => r.headers.get("idempotent-replayed") === "true")).toHaveLength(2);
    expect(unlimited.usedThisMonth()).toBe(300);
    const screenings = unlimited.lists.server.ctx.db.sqlite.query<{ n: number }, []>("SELECT count(*) AS n FROM screenings").get()?.n;
    expect(screenings).toBe(300);
    await deliveriesSettled(unlimited, 300);
    expect(unlimited.receiver.delivered).toHaveLength(300);
  }, 60_000);
});
