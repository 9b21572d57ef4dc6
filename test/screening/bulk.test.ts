import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Papa from "papaparse";
import { expectProblem, json } from "../helpers/api";
import { type BulkBody, deliveriesSettled, startScreeningWorld, type ScreeningWorld } from "./world";


let world: ScreeningWorld;
beforeAll(async () => {
  world = await startScreeningWorld();
});
afterAll(() => world.close());

const subjects = (n: number) => Array.from({ length: n }, (_, i) => ({ fullName: `Customer Number ${i}`, userReference: `row-${i}` }));

describe("POST /v1/screenings/bulk", () => {
  test("1,000 rows are all screened, charged and announced", async () => {
    const before = world.usedThisMonth();
    const res = await world.post("/v1/screenings/bulk", subjects(1000));
    expect(res.status).toBe(200);
    const body = json<BulkBody>(res);
    expect(body.summary).toEqual({ total: 1000, screened: 1000, failed: 0 });
    expect(body.rows.map((r) => r.index)).toEqual(Array.from({ length: 1000 }, (_, i) => i));
    expect(body.rows.every((r) => r.screeningId !== null && r.error === null)).toBe(true);
    expect(body.rows[999]?.userReference).toBe("row-999");
    expect(world.usedThisMonth()).toBe(before + 1000);
    await deliveriesSettled(world, 1000);
    expect(world.receiver.delivered).toHaveLength(1000);
    expect(new Set(world.receiver.delivered.map((d) => d.body.screeningId)).size).toBe(1000);
  }, 60_000);

  test("1,001 rows are 400 and nothing is screened or charged", async () => {
    const before = world.usedThisMonth();
    const problem = expectProblem(await world.post("/v1/screenings/bulk", subjects(1001)), 400, "VALIDATION_FAILED");
    expect(problem.detail).toContain("at most 1000");
    expect(world.usedThisMonth()).toBe(before);
  });

  test.each([
    ["an empty array", "[]"],
    ["an object", '{"fullName":"A B"}'],
    ["a string", '"A B"'],
    ["malformed JSON", "[{"],
  ])("%s is 400 and nothing is charged", async (_label, raw) => {
    const before = world.usedThisMonth();
    const res = await world.post("/v1/screenings/bulk", raw);
    expect(res.status).toBe(400);
    expect(world.usedThisMonth()).toBe(before);
  });

  test("a malformed row among good rows: 200, that row's error, summary.failed = 1", async () => {
    const before = world.usedThisMonth();
    const res = await world.post("/v1/screenings/bulk", [
      { fullName: "Dmitri Korvalev", userReference: "good-1" },
      { fullName: "A B", dateOfBirth: "1961-02-30", userReference: "bad-1" },
      { fullName: "Penelope Whitcombe-Arden" },
    ]);
    expect(res.status).toBe(200);
    const body = json<BulkBody>(res);
    expect(body.summary).toEqual({ total: 3, screened: 2, failed: 1 });
    const bad = body.rows[1];
    expect(bad?.status).toBe("failed");
    expect(bad?.screeningId).toBeNull();
    expect(bad?.userReference).toBe("bad-1");
    expect(bad?.error?.code).toBe("VALIDATION_FAILED");
    expect(bad?.error?.errors.map((e) => e.field)).toEqual(["dateOfBirth"]);
    expect(["Match", "Review"]).toContain(String(body.rows[0]?.decision));
    expect(body.rows[2]?.decision).toBe("Clear");
    // A Clear here says nothing of the lists this snapshot lacks (only OFAC is imported): the row names them.
    expect(body.rows[2]?.listsNotLoaded).toEqual(["EU", "UK", "UN", "WIKIDATA"]);
    expect(bad?.listsNotLoaded).toBeNull();
    expect(world.usedThisMonth()).toBe(before + 2);
    const read = await world.get(`/v1/screenings/${body.rows[0]?.screeningId}`);
    expect(json<{ origin: string; matches: unknown[] }>(read)).toMatchObject({ origin: "bulk" });
  });

  test("rows that are not objects fail alone", async () => {
    const body = json<BulkBody>(await world.post("/v1/screenings/bulk", [42, null, { fullName: "Aldous Quentrell" }]));
    expect(body.summary).toEqual({ total: 3, screened: 1, failed: 2 });
  });

  test("format=csv and Accept: text/csv return a formula-safe CSV that papaparse reads back", async () => {
    const rows = [{ fullName: "=HYPERLINK(\"http://evil.example\",\"x\")", userReference: "+cmd" }, { fullName: "Dmitri Korvalev" }, { bad: true }];
    for (const [path, headers] of [
      ["/v1/screenings/bulk?format=csv", {}],
      ["/v1/screenings/bulk", { accept: "text/csv" }],
    ] as const) {
      const res = await world.post(path, rows, { headers });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toStartWith("text/csv");
      expect(res.headers.get("x-bulk-failed")).toBe("1");
      const parsed = Papa.parse<Record<string, string>>(res.text, { header: true, skipEmptyLines: true });
      expect(parsed.errors).toEqual([]);
      expect(parsed.data).toHaveLength(3);
      const [evil, hit, failed] = parsed.data;
      expect(evil?.fullName).toBe("'=HYPERLINK(\"http://evil.example\",\"x\")");
      expect(evil?.userReference).toBe("'+cmd");
      expect(evil?.decision).toBe("Clear");
      expect(hit?.sourceLists).toBe("OFAC");
      // Only OFAC is imported here: the other selected lists were not checked, and each row says so.
      expect(hit?.listsNotLoaded).toBe("EU;UK;UN;WIKIDATA");
      expect(failed?.listsNotLoaded).toBe("");
      expect(hit?.screeningId).toMatch(/^[0-9a-f-]{36}$/);
      expect(failed?.status).toBe("failed");
      expect(failed?.errorCode).toBe("VALIDATION_FAILED");
    }
  });

  test("an unknown query parameter or a malformed Idempotency-Key is 400 and nothing is charged", async () => {
    const before = world.usedThisMonth();
    expectProblem(await world.post("/v1/screenings/bulk?foo=1", [{ fullName: "A B" }]), 400, "VALIDATION_FAILED");
    const keyed = expectProblem(
      await world.post("/v1/screenings/bulk", [{ fullName: "A B" }], { headers: { "idempotency-key": "bulk 1" } }),
      400,
      "VALIDATION_FAILED",
    );
    expect(keyed.errors?.[0]?.field).toBe("header.idempotency-key");
    expect(world.usedThisMonth()).toBe(before);
  });
});
