import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type CallOptions, call, type Exchange, expectProblem, json } from "../helpers/api";
import { startScreeningWorld, type ScreeningWorld } from "./world";
import { headersOnly } from "../helpers/raw-http";

/**
 * Media types and strict input on the screening routes: the response type and the request body type
 * are settled before the route does any work, so a 406 or 415 never follows a screen that was stored
 * and charged; unknown query parameters and rescreen input are refused rather than ignored.
 */
let world: ScreeningWorld;
let existingId: string;
beforeAll(async () => {
  world = await startScreeningWorld();
  const first = await world.post("/v1/screenings/check", { fullName: "Ada Example" });
  expect(first.status).toBe(200);
  existingId = json<{ id: string }>(first).id;
});
afterAll(() => world.close());

/** Screenings, outbox events and charges of the world's tenant: what a refused request must leave unchanged. */
function footprint(): { screenings: number; events: number; used: number } {
  const db = world.lists.server.ctx.db.sqlite;
  const tenantId = world.tenant.tenant.id;
  const count = (sql: string) => db.query<{ n: number }, [string]>(sql).get(tenantId)?.n ?? -1;
  return {
    screenings: count("SELECT count(*) AS n FROM screenings WHERE tenant_id = ?"),
    events: count("SELECT count(*) AS n FROM webhook_outbox WHERE tenant_id = ?"),
    used: world.usedThisMonth(),
  };
}

async function unchangedBy(send: () => Promise<Exchange>): Promise<Exchange> {
  const before = footprint();
  const res = await send();
  expect(footprint()).toEqual(before);
  return res;
}

const rows = [{ fullName: "Ada Example", userReference: "r-1" }, { fullName: "Jane Roe" }];
const raw = (path: string, body: RequestInit["body"], headers: Record<string, string>, method = "POST"): Promise<Exchange> =>
  call(world.url, path, { method, key: world.key, headers, body } satisfies CallOptions);

describe("406 is answered before anything is screened, stored or charged", () => {
  test.each(["application/xml", "text/csv", "application/json;q=0"])("check with Accept: %s", async (accept) => {
    const res = await unchangedBy(() => world.post("/v1/screenings/check", { fullName: "Ada Example" }, { headers: { accept } }));
    expectProblem(res, 406, "NOT_ACCEPTABLE", "/v1/screenings/check");
    expect(res.headers.get("location")).toBeNull();
  });

  test("check with an Idempotency-Key and Accept: application/xml remembers nothing: the key still screens afterwards", async () => {
    const key = `neg-${crypto.randomUUID()}`;
    const refused = await unchangedBy(() =>
      world.post("/v1/screenings/check", { fullName: "Ada Example" }, { headers: { accept: "application/xml", "idempotency-key": key } }),
    );
    expect(refused.status).toBe(406);
    const res = await world.post("/v1/screenings/check", { fullName: "Ada Example" }, { headers: { "idempotency-key": key } });
    expect(res.status).toBe(200);
    expect(res.headers.get("idempotent-replayed")).toBeNull();
  });

  test.each(["application/xml", "image/png, text/csv;q=0"])("bulk with Accept: %s", async (accept) => {
    const res = await unchangedBy(() => world.post("/v1/screenings/bulk", rows, { headers: { accept } }));
    expectProblem(res, 406, "NOT_ACCEPTABLE", "/v1/screenings/bulk");
  });

  test("rescreen with Accept: application/xml", async () => {
    const res = await unchangedBy(() => world.post(`/v1/screenings/${existingId}/rescreen`, "", { headers: { accept: "application/xml" } }));
    expectProblem(res, 406, "NOT_ACCEPTABLE");
    expect(res.headers.get("location")).toBeNull();
  });

  test("reads and usage refuse the same way", async () => {
    expectProblem(await world.get(`/v1/screenings/${existingId}`, { headers: { accept: "application/xml" } }), 406, "NOT_ACCEPTABLE");
    expectProblem(await world.get("/v1/usage", { headers: { accept: "text/csv" } }), 406, "NOT_ACCEPTABLE");
  });

  test("a credential problem comes first: 401 without a key, whatever Accept says", async () => {
    const res = await unchangedBy(() =>
      world.post("/v1/screenings/check", { fullName: "Ada Example" }, { key: "aml_live_not-a-real-key", headers: { accept: "application/xml" } }),
    );
    expectProblem(res, 401, "UNAUTHENTICATED");
  });
});

describe("JSON responses keep the text/json and text/plain negotiation", () => {
  test.each([
    ["text/plain", "text/plain; charset=utf-8"],
    ["text/json", "text/json; charset=utf-8"],
    ["application/json, text/plain, */*", "application/json; charset=utf-8"],
    ["text/*;q=0.9, text/plain;q=0.1", "text/json; charset=utf-8"],
  ])("GET /v1/screenings/{id} with Accept: %s is %s", async (accept, type) => {
    const res = await world.get(`/v1/screenings/${existingId}`, { headers: { accept } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe(type);
    expect(json<{ id: string }>(res).id).toBe(existingId);
  });

  test("check with Accept: text/plain is served as text/plain with a Location", async () => {
    const res = await world.post("/v1/screenings/check", { fullName: "Ada Example" }, { headers: { accept: "text/plain" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(res.headers.get("location")).toBe(`/v1/screenings/${json<{ id: string }>(res).id}`);
  });
});

describe("bulk: format wins over Accept, and Accept is ranked by q-value", () => {
  const isCsv = (res: Exchange) => res.headers.get("content-type") === "text/csv; charset=utf-8";
  test.each([
    ["text/csv;q=0, application/json", false],
    ["application/json, text/csv;q=0.1", false],
    ["text/csv", true],
    ["text/csv, application/json", true],
    ["application/json;q=0.5, text/csv", true],
    ["text/csv;q=0.5, */*", false],
    ["*/*", false],
    ["text/*", false],
  ])("Accept: %s gives CSV: %p", async (accept, csv) => {
    const res = await world.post("/v1/screenings/bulk", rows, { headers: { accept } });
    expect(res.status).toBe(200);
    expect(isCsv(res)).toBe(csv);
    if (!csv) expect(json<{ summary: { total: number } }>(res).summary.total).toBe(2);
    else expect(res.headers.get("x-bulk-total")).toBe("2");
  });

  test("format=json with Accept: text/csv is JSON (application/json), screened and charged once per row", async () => {
    const before = world.usedThisMonth();
    const res = await world.post("/v1/screenings/bulk?format=json", rows, { headers: { accept: "text/csv" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(json<{ summary: { screened: number } }>(res).summary.screened).toBe(2);
    expect(world.usedThisMonth()).toBe(before + 2);
  });

  test("format=json keeps a JSON type Accept prefers", async () => {
    const res = await world.post("/v1/screenings/bulk?format=json", rows, { headers: { accept: "text/plain" } });
    expect(res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
  });

  test("format=csv with Accept: application/xml is CSV", async () => {
    const res = await world.post("/v1/screenings/bulk?format=csv", rows, { headers: { accept: "application/xml" } });
    expect(res.status).toBe(200);
    expect(isCsv(res)).toBe(true);
  });

  test("format=xml is 400 naming query.format, nothing screened", async () => {
    const res = await unchangedBy(() => world.post("/v1/screenings/bulk?format=xml", rows));
    const problem = expectProblem(res, 400, "VALIDATION_FAILED");
    expect(problem.errors?.map((e) => e.field)).toEqual(["query.format"]);
  });
});

describe("415 for a body that is not JSON, before any work", () => {
  const form = new FormData();
  form.set("fullName", "Ada Example");
  test.each([
    ["text/plain", "/v1/screenings/check", '{"fullName":"Ada Example"}'],
    ["application/x-www-form-urlencoded", "/v1/screenings/check", "fullName=Ada+Example"],
    ["text/csv", "/v1/screenings/bulk", "fullName\nAda Example\n"],
    ["text/plain", "/v1/screenings/bulk", JSON.stringify(rows)],
  ])("Content-Type: %s on %s", async (type, path, body) => {
    const res = await unchangedBy(() => raw(path, body, { "content-type": type }));
    const problem = expectProblem(res, 415, "UNSUPPORTED_MEDIA_TYPE", path);
    expect(problem.detail).toContain("send application/json");
  });

  test("multipart/form-data on check and on bulk", async () => {
    for (const path of ["/v1/screenings/check", "/v1/screenings/bulk"]) {
      const res = await unchangedBy(() => raw(path, form, {}));
      expectProblem(res, 415, "UNSUPPORTED_MEDIA_TYPE", path);
    }
  });

  test("a rescreen with a non-JSON body", async () => {
    const res = await unchangedBy(() => raw(`/v1/screenings/${existingId}/rescreen`, "{}", { "content-type": "text/plain" }));
    expectProblem(res, 415, "UNSUPPORTED_MEDIA_TYPE");
  });

  test("a credential problem comes first: 401 without a key", async () => {
    const res = await call(world.url, "/v1/screenings/check", { method: "POST", headers: { "content-type": "text/plain" }, body: "x" });
    expectProblem(res, 401, "UNAUTHENTICATED");
  });

  test.each(["application/json; charset=utf-8", "application/JSON;charset=UTF-8", "application/vnd.api+json", "application/merge-patch+json", "text/json", "Text/JSON; charset=utf-8"])(
    "Content-Type: %s is JSON",
    async (type) => {
      const res = await raw("/v1/screenings/check", '{"fullName":"Ada Example"}', { "content-type": type });
      expect(res.status).toBe(200);
    },
  );

  test("a JSON body sent without a Content-Type is read as JSON", async () => {
    const res = await raw("/v1/screenings/check", new TextEncoder().encode('{"fullName":"Ada Example"}'), {});
    expect(res.status).toBe(200);
    expect(json<{ subject: { fullName: string } }>(res).subject.fullName).toBe("Ada Example");
  });

  test("a body without a Content-Type that is not JSON is 400 MALFORMED_JSON", async () => {
    const res = await unchangedBy(() => raw("/v1/screenings/check", new TextEncoder().encode("fullName=Ada"), {}));
    expectProblem(res, 400, "MALFORMED_JSON");
  });
});

describe("415 for a body in a content coding, which the appliance does not decode", () => {
  const subject = JSON.stringify({ fullName: "Ada Example" });
  test.each([
    ["gzip", "/v1/screenings/check", Bun.gzipSync(subject)],
    ["br", "/v1/screenings/bulk", new TextEncoder().encode(JSON.stringify(rows))],
    ["identity, gzip", "/v1/screenings/check", Bun.gzipSync(subject)],
    ["GZIP", "/v1/screenings/check", new TextEncoder().encode(subject)],
  ])("Content-Encoding: %s on %s, compressed or not, with Accept-Encoding: identity", async (coding, path, body) => {
    const res = await unchangedBy(() => raw(path, body, { "content-type": "application/json", "content-encoding": coding }));
    const problem = expectProblem(res, 415, "UNSUPPORTED_MEDIA_TYPE", path);
    expect(problem.detail).toContain("send the body uncompressed");
    expect(res.headers.get("accept-encoding")).toBe("identity");
  });

  test("Content-Encoding: identity is the body as it is", async () => {
    const res = await raw("/v1/screenings/check", subject, { "content-type": "application/json", "content-encoding": "identity" });
    expect(res.status).toBe(200);
  });

  test("a credential problem comes first: 401 without a key", async () => {
    const res = await call(world.url, "/v1/screenings/check", { method: "POST", headers: { "content-type": "application/json", "content-encoding": "gzip" }, body: Bun.gzipSync(subject) });
    expectProblem(res, 401, "UNAUTHENTICATED");
  });
});

describe("unknown query parameters are refused, not ignored", () => {
  test.each([
    ["POST", "/v1/screenings/check?format=csv", "query.format"],
    ["POST", "/v1/screenings/check?foo=1", "query.foo"],
    ["GET", "/v1/usage?month=2026-10", "query.month"],
  ])("%s %s is 400 naming %s", async (method, path, field) => {
    const res = await unchangedBy(() =>
      method === "GET" ? world.get(path) : world.post(path, { fullName: "Ada Example" }),
    );
    const problem = expectProblem(res, 400, "VALIDATION_FAILED");
    expect(problem.errors).toEqual([{ field, message: "is not a known field" }]);
  });

  test.each([
    ["POST", "/v1/screenings/bulk?format=csv&format=json", "query.format"],
    ["GET", "/v1/webhooks/deliveries?status=dead&status=pending", "query.status"],
    ["GET", "/v1/audit?action=quota.set&action=tenant.create", "query.action"],
    ["GET", "/v1/audit?take=5&take=6", "query.take"],
  ])("%s %s, a parameter given twice, is 400 saying so of %s, not that its values are wrong", async (method, path, field) => {
    const res = await unchangedBy(() => (method === "GET" ? world.get(path) : world.post(path, [{ fullName: "Ada Example" }])));
    const problem = expectProblem(res, 400, "VALIDATION_FAILED");
    expect(problem.errors).toEqual([{ field, message: "is given more than once; give it once" }]);
  });

  test("GET /v1/screenings/{id}?foo=1 and rescreen?foo=1", async () => {
    expectProblem(await world.get(`/v1/screenings/${existingId}?foo=1`), 400, "VALIDATION_FAILED");
    const res = await unchangedBy(() => world.post(`/v1/screenings/${existingId}/rescreen?foo=1`, ""));
    expect(expectProblem(res, 400, "VALIDATION_FAILED").errors?.[0]?.field).toBe("query.foo");
  });
});

describe("rescreen takes no body, {} or null", () => {
  test("a body with options is 400 naming the field, not charged", async () => {
    const res = await unchangedBy(() => world.post(`/v1/screenings/${existingId}/rescreen`, { options: { threshold: 0.9 } }));
    const problem = expectProblem(res, 400, "VALIDATION_FAILED");
    expect(problem.errors).toEqual([{ field: "options", message: "is not a known field" }]);
  });

  test.each([
    ["an array", "[]"],
    ["a string", '"again"'],
    ["the empty JSON string", '""'],
    ["malformed JSON", "{"],
  ])("%s is 400, not charged", async (_label, body) => {
    const res = await unchangedBy(() => world.post(`/v1/screenings/${existingId}/rescreen`, body));
    expect(res.status).toBe(400);
  });

  test.each([
    ["no body, no Content-Type", undefined, {}],
    ["an empty JSON body", "", { "content-type": "application/json" }],
    ["{}", "{}", { "content-type": "application/json" }],
    ["null", "null", { "content-type": "application/json" }],
    ["an empty text body", "", { "content-type": "text/plain" }],
  ])("%s screens again", async (_label, body, headers) => {
    const before = world.usedThisMonth();
    const res = await call(world.url, `/v1/screenings/${existingId}/rescreen`, {
      method: "POST",
      key: world.key,
      headers,
      ...(body === undefined ? {} : { body }),
    });
    expect(res.status).toBe(200);
    expect(json<{ rescreenOf: string }>(res).rescreenOf).toBe(existingId);
    expect(world.usedThisMonth()).toBe(before + 1);
  });

  test("an empty JSON body declared as Content-Length: 00 screens again, as 0 does", async () => {
    const before = world.usedThisMonth();
    const head = [
      `POST /v1/screenings/${existingId}/rescreen HTTP/1.1`,
      "Host: 127.0.0.1",
      `X-Api-Key: ${world.key}`,
      "Content-Type: application/json",
      "Content-Length: 00",
    ];
    const answer = await headersOnly(Number(new URL(world.url).port), head, "");
    expect(answer.status).toBe(200);
    expect((JSON.parse(answer.body) as { rescreenOf: string }).rescreenOf).toBe(existingId);
    expect(world.usedThisMonth()).toBe(before + 1);
  });
});
