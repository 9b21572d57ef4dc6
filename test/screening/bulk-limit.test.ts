import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { BULK_MAX_BODY_BYTES } from "@/screening/routes";
import { MAX_ALIASES, MAX_BULK_ROWS, MAX_NAME_LENGTH, MAX_USER_REFERENCE_LENGTH } from "@/screening/subject";
import { call, expectProblem, json } from "../helpers/api";
import { startScreeningWorld, type ScreeningWorld } from "./world";

/**
 * The bulk body limit: 1,000 rows at every documented cap fit (over-cap input is 400, as the spec
 * says, never 413), and only a body over the route's own byte limit is 413. A tenant with a quota of
 * 0 stops a valid request with 429 after parsing and validating every row, before any matching.
 */
let capped: ScreeningWorld;
let small: ScreeningWorld;
const SMALL_JSON_LIMIT = 2048;
beforeAll(async () => {
  // List uploads limited to 1 MiB: the server's own hard limit must still let a maximal bulk through.
  [capped, small] = await Promise.all([
    startScreeningWorld({ quota: 0, flags: { maxUploadBytes: 1024 * 1024 } }),
    startScreeningWorld({ flags: { maxJsonBodyBytes: SMALL_JSON_LIMIT } }),
  ]);
});
afterAll(async () => {
  await Promise.all([capped.close(), small.close()]);
});

/**
 * `rows` rows at every cap, in characters outside the Basic Multilingual Plane (𝔞, U+1D51E: one
 * character of the caps, two UTF-16 code units), escaped as a JSON encoder may, as two \uXXXX
 * (12 bytes), as Python's json.dumps does by default. Built from placeholders: a per-character escape
 * of 130 MB would take the test seconds.
 */
function maximalBody(rows: number, indent?: number): string {
  const name = (n: number) => `@${n}@`;
  const row = {
    fullName: name(MAX_NAME_LENGTH),
    dateOfBirth: "1961-05-04",
    nationality: "United Kingdom",
    aliases: Array.from({ length: MAX_ALIASES }, () => name(MAX_NAME_LENGTH)),
    userReference: name(MAX_USER_REFERENCE_LENGTH),
  };
  const escaped = (n: number) => "\\ud835\\udd1e".repeat(n);
  return JSON.stringify(Array.from({ length: rows }, () => row), null, indent)
    .replaceAll(name(MAX_NAME_LENGTH), escaped(MAX_NAME_LENGTH))
    .replaceAll(name(MAX_USER_REFERENCE_LENGTH), escaped(MAX_USER_REFERENCE_LENGTH));
}

function streamOf(text: string, chunk = 1 << 20): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let offset = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.subarray(offset, offset + chunk));
      offset += chunk;
    },
  });
}

describe("1,000 rows at every cap fit the bulk limit", () => {
  test("pretty-printed with every character escaped, they are parsed and validated (429 at a quota of 0), not 413", async () => {
    const body = maximalBody(MAX_BULK_ROWS, 2);
    expect(JSON.parse(body)[0].fullName).toBe("\u{1D51E}".repeat(MAX_NAME_LENGTH));
    expect(body.length).toBeGreaterThan(125 * 1000 * 1000);
    expect(body.length).toBeLessThanOrEqual(BULK_MAX_BODY_BYTES);
    const res = await capped.post("/v1/screenings/bulk", body);
    const problem = expectProblem(res, 429, "QUOTA_EXCEEDED", "/v1/screenings/bulk");
    expect(problem.detail).toContain(`needs ${MAX_BULK_ROWS} screens`);
    expect(capped.usedThisMonth()).toBe(0);
  }, 120_000);

  test("1,001 such rows, compact, are under it too: over the row cap they get 400 (bulk.test.ts), not 413", () => {
    const body = maximalBody(MAX_BULK_ROWS + 1);
    expect(body.length).toBeLessThanOrEqual(BULK_MAX_BODY_BYTES);
  });

  test("a body over the limit is 413 naming it, declared or chunked, and nothing is charged", async () => {
    const over = `[${" ".repeat(BULK_MAX_BODY_BYTES)}]`;
    const declared = await capped.post("/v1/screenings/bulk", over);
    expect(expectProblem(declared, 413, "PAYLOAD_TOO_LARGE").detail).toContain(String(BULK_MAX_BODY_BYTES));
    const chunked = await call(capped.url, "/v1/screenings/bulk", {
      method: "POST",
      key: capped.key,
      headers: { "content-type": "application/json" },
      body: streamOf(over),
    });
    expect(expectProblem(chunked, 413, "PAYLOAD_TOO_LARGE").detail).toContain(String(BULK_MAX_BODY_BYTES));
    expect(capped.usedThisMonth()).toBe(0);
  }, 120_000);
});

describe("the limit is the bulk route's own: other JSON routes keep maxJsonBodyBytes", () => {
  const rows = Array.from({ length: 40 }, (_, i) => ({ fullName: `Customer Number ${i}`, userReference: `row-${i}` }));

  test("a bulk body over maxJsonBodyBytes is screened, declared or chunked", async () => {
    const body = JSON.stringify(rows);
    expect(body.length).toBeGreaterThan(SMALL_JSON_LIMIT);
    const declared = await small.post("/v1/screenings/bulk", body);
    expect(declared.status).toBe(200);
    expect(json<{ summary: { screened: number } }>(declared).summary.screened).toBe(40);
    const chunked = await call(small.url, "/v1/screenings/bulk", {
      method: "POST",
      key: small.key,
      headers: { "content-type": "application/json" },
      body: streamOf(body, 512),
    });
    expect(chunked.status).toBe(200);
  });

  test("a check body over maxJsonBodyBytes is 413, declared or chunked", async () => {
    const body = JSON.stringify({ fullName: "Ada Example", aliases: Array.from({ length: 10 }, () => "x".repeat(300)) });
    expect(body.length).toBeGreaterThan(SMALL_JSON_LIMIT);
    expectProblem(await small.post("/v1/screenings/check", body), 413, "PAYLOAD_TOO_LARGE");
    const chunked = await call(small.url, "/v1/screenings/check", {
      method: "POST",
      key: small.key,
      headers: { "content-type": "application/json" },
      body: streamOf(body, 512),
    });
    expectProblem(chunked, 413, "PAYLOAD_TOO_LARGE");
  });

  test("the same path under another method keeps the JSON limit (405 after the 413 check)", async () => {
    const res = await call(small.url, "/v1/screenings/bulk", {
      method: "PUT",
      key: small.key,
      headers: { "content-type": "application/json" },
      body: "x".repeat(SMALL_JSON_LIMIT + 1),
    });
    expectProblem(res, 413, "PAYLOAD_TOO_LARGE");
  });
});
