import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { type CallOptions, call, expectProblem, json, UUID_RE } from "../helpers/api";
import { startTestServer, type TestServer } from "../helpers/server";
import { makeTenant } from "../helpers/tenants";

/** Cross-cutting HTTP conventions on the real server: correlation ids, problem+json, body limits, negotiation. */
let server: TestServer;
let key: string;
const JSON_LIMIT = 2048;

beforeAll(async () => {
  server = await startTestServer({ flags: { maxJsonBodyBytes: JSON_LIMIT } });
  key = makeTenant(server.ctx).apiKey;
});
afterAll(async () => {
  await server.close();
});

function chunkedJson(bytes: number): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode('{"name":"'));
      for (let sent = 0; sent < bytes; sent += 1024) controller.enqueue(encoder.encode("x".repeat(1024)));
      controller.enqueue(encoder.encode('"}'));
      controller.close();
    },
  });
}

describe("X-Correlation-Id", () => {
  test("a supplied safe id is echoed in the header and the JSON body of a success", async () => {
    const res = await call(server.url, "/v1/usage", { key, headers: { "x-correlation-id": "req-42:abc/DEF=+@._" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-correlation-id")).toBe("req-42:abc/DEF=+@._");
    expect(json<{ correlationId: string }>(res).correlationId).toBe("req-42:abc/DEF=+@._");
  });

  const errorPaths: Array<[string, string, (apiKey: string) => CallOptions]> = [
    ["401 no credential", "/v1/usage", () => ({})],
    ["404 unknown route", "/v1/no-such-thing", () => ({})],
    ["405 wrong method", "/v1/usage", (apiKey) => ({ method: "POST", key: apiKey })],
    ["400 unknown query parameter", "/v1/audit?colour=red", (apiKey) => ({ key: apiKey })],
    ["413 declared body too large", "/v1/usage", () => ({ method: "POST", body: "x".repeat(JSON_LIMIT + 1) })],
  ];
  test.each(errorPaths)("is echoed on the error path: %s", async (_name, path, options) => {
    const init = options(key);
    const res = await call(server.url, path, {
      ...init,
      headers: { "content-type": "application/json", "x-correlation-id": "err-trace-1" },
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(res.headers.get("x-correlation-id")).toBe("err-trace-1");
    expect(json<{ correlationId: string }>(res).correlationId).toBe("err-trace-1");
  });

  test("is generated as a UUID when absent, fresh per request", async () => {
    const first = await call(server.url, "/healthz");
    const second = await call(server.url, "/healthz");
    const id = first.headers.get("x-correlation-id") ?? "";
    expect(id).toMatch(UUID_RE);
    expect(json<{ correlationId: string }>(first).correlationId).toBe(id);
    expect(second.headers.get("x-correlation-id")).not.toBe(id);
  });

  test.each([
    ["spaces", "has spaces in it"],
    ["a tab", "tab\there"],
    ["markup", "<script>alert(1)</script>"],
    ["a semicolon and quotes", 'id;"x"'],
    ["129 characters", "a".repeat(129)],
  ])("is replaced by a generated UUID when it contains %s", async (_name, unsafe) => {
    const res = await call(server.url, "/v1/usage", { key, headers: { "x-correlation-id": unsafe } });
    const id = res.headers.get("x-correlation-id") ?? "";
    expect(id).toMatch(UUID_RE);
    expect(json<{ correlationId: string }>(res).correlationId).toBe(id);
  });

  test("an id of exactly 128 safe characters is kept", async () => {
    const longest = "A".repeat(127) + "9";
    const res = await call(server.url, "/healthz", { headers: { "x-correlation-id": longest } });
    expect(res.headers.get("x-correlation-id")).toBe(longest);
  });
});

describe("problem+json on every error", () => {
  test("400 for an unknown query parameter names the field", async () => {
    const body = expectProblem(await call(server.url, "/v1/audit?colour=red", { key }), 400, "VALIDATION_FAILED", "/v1/audit");
    expect(body.errors).toEqual([{ field: "query.colour", message: "is not a known field" }]);
  });

  test.each(["abc", "0", "501", "2.5", "-1"])("400 for take=%s", async (take) => {
    const body = expectProblem(await call(server.url, `/v1/audit?take=${take}`, { key }), 400, "VALIDATION_FAILED");
    expect(body.errors?.map((e) => e.field)).toEqual(["query.take"]);
  });

  test.each([
    ["take=abc", "query.take", "must be a whole number from 1 to 500"],
    ["take=0x10", "query.take", "must be a whole number from 1 to 500"],
    ["take=", "query.take", "must be a whole number from 1 to 500"],
    ["take=1e400", "query.take", "must be a whole number from 1 to 500"],
    ["take=501", "query.take", "must be a whole number from 1 to 500"],
    ["skip=99999999999999999999", "query.skip", "must be a whole number from 0 to 2147483647"],
    ["take=1&take=2", "query.take", "is given more than once; give it once"],
  ])("?%s is 400 with one message that says what to send", async (query, field, message) => {
    const body = expectProblem(await call(server.url, `/v1/audit?${query}`, { key }), 400, "VALIDATION_FAILED");
    expect(body.errors).toEqual([{ field, message }]);
  });

  test("skip and take in decimal digits page as asked", async () => {
    const res = await call(server.url, "/v1/audit?skip=0&take=007", { key });
    expect(res.status).toBe(200);
    expect(json<{ take: number }>(res).take).toBe(7);
  });

  test.each(["from=yesterday", "to=2025-01-31", "from=2025-01-31T00:00:00"])("400 for ?%s, saying what to send with an example", async (query) => {
    const body = expectProblem(await call(server.url, `/v1/audit?${query}`, { key }), 400, "VALIDATION_FAILED");
    const field = `query.${query.split("=")[0]}`;
    const message = "must be an ISO 8601 date-time with a UTC offset, such as 2025-01-31T00:00:00Z or 2025-01-31T01:00:00+01:00";
    expect(body.errors).toEqual([{ field, message }]);
    expect(body.detail).toBe(`The query is invalid: ${field} ${message}`);
  });

  test("401 carries WWW-Authenticate and comes before query validation", async () => {
    const res = await call(server.url, "/v1/audit?colour=red");
    expectProblem(res, 401, "UNAUTHENTICATED", "/v1/audit");
    expect(res.headers.get("www-authenticate")).toContain("Bearer");
  });

  test("404 for an unknown route", async () => {
    const body = expectProblem(await call(server.url, "/v1/nothing/here"), 404, "ROUTE_NOT_FOUND", "/v1/nothing/here");
    expect(body.detail).toContain("/v1/nothing/here");
  });

  test.each([
    ["POST", "/v1/screenings/batch", "asynchronous batch jobs", "POST /v1/screenings/bulk"],
    // This one reaches GET /v1/screenings/{id} with the id "batch", and must say the same.
    ["GET", "/v1/screenings/batch", "asynchronous batch jobs", "POST /v1/screenings/bulk"],
    ["GET", "/v1/screenings/batch/0190e9b4-6c1e-7d2a-9a51-3f0c8e2b1a77/results", "asynchronous batch jobs", "POST /v1/screenings/bulk"],
    ["POST", "/v1/screenings/batch/rescreen", "asynchronous batch jobs", "POST /v1/screenings/bulk"],
    ["GET", "/v1/cases", "case management", null],
    ["POST", "/v1/cases/0190e9b4-6c1e-7d2a-9a51-3f0c8e2b1a77/review", "case management", null],
    ["GET", "/v1/branding", "tenant branding", null],
    ["GET", "/docs/reference/screening", "the reference pages", "/swagger-ui"],
  ])("a contract endpoint this version does not serve: %s %s is 404 naming the feature, not 405", async (method, path, feature, instead) => {
    const res = await call(server.url, path, { method, key, ...(method === "POST" ? { headers: { "content-type": "application/json" }, body: "[]" } : {}) });
    const body = expectProblem(res, 404, "ROUTE_NOT_FOUND", path);
    expect(res.headers.get("allow")).toBeNull();
    expect(body.detail).toContain(`belongs to ${feature}, which this version of the appliance does not provide`);
    if (instead) expect(body.detail).toContain(instead);
  });

  test("405 on POST /v1/usage lists the allowed methods in Allow", async () => {
    const res = await call(server.url, "/v1/usage", { method: "POST", key });
    expectProblem(res, 405, "METHOD_NOT_ALLOWED", "/v1/usage");
    expect(res.headers.get("allow")).toBe("GET, HEAD");
  });

  test("a request line and headers of more than 16 KiB are 431 from the HTTP server, as the docs say; 15 KiB is served", async () => {
    // The HTTP server's own limit, answered before the appliance reads the request (docs/screening.md).
    const served = await fetch(`${server.url}/v1/usage`, { headers: { "x-api-key": key, "x-pad": "a".repeat(15 * 1024) } });
    expect(served.status).toBe(200);
    const longPath = await fetch(`${server.url}/v1/screenings/${"a".repeat(17 * 1024)}`, { headers: { "x-api-key": key } });
    expect(longPath.status).toBe(431);
    expect(await longPath.text()).toBe("");
  });

  /** Writes `text` on a new connection; everything the server sent until it closed the connection. */
  function rawUntilClosed(text: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host: "127.0.0.1", port: server.port });
      let received = "";
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error("the server kept the connection open"));
      }, 5_000);
      socket.on("connect", () => socket.write(text));
      socket.on("data", (chunk: Buffer) => {
        received += chunk.toString("latin1");
      });
      socket.on("close", () => {
        clearTimeout(timer);
        resolve(received);
      });
      socket.on("error", () => undefined);
    });
  }

  test("what the HTTP server refuses before the appliance reads a request is answered as the OpenAPI description says", async () => {
    const host = `Host: 127.0.0.1:${server.port}`;
    // A body declared over the largest any route takes (plus 1 MiB): 413 with no body.
    const huge = await rawUntilClosed(`POST /v1/screenings/check HTTP/1.1\r\n${host}\r\nX-Api-Key: ${key}\r\nContent-Type: application/json\r\nContent-Length: 10000000000\r\n\r\n[`);
    expect(huge).toStartWith("HTTP/1.1 413 ");
    expect(huge.toLowerCase()).not.toContain("x-correlation-id");
    // A request HTTP/1.1 cannot frame: 400 with no body.
    const framed = await rawUntilClosed(`POST /v1/screenings/check HTTP/1.1\r\n${host}\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}`);
    expect(framed).toStartWith("HTTP/1.1 400 ");
    expect(framed.toLowerCase()).not.toContain("problem+json");
    // A method the HTTP server does not know: the connection closes without an answer.
    expect(await rawUntilClosed(`FOO /v1/usage HTTP/1.1\r\n${host}\r\nX-Api-Key: ${key}\r\n\r\n`)).toBe("");
    const described = (await (await fetch(`${server.url}/openapi.json`)).json()) as { info: { description: string } };
    expect(described.info.description).toContain("closes the connection without an answer for a method it does not know");
    expect(described.info.description).toContain("a request HTTP/1.1 cannot frame (400");
  });

  test("413 when Content-Length declares more than the JSON limit", async () => {
    const res = await call(server.url, "/v1/tenants", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "x".repeat(JSON_LIMIT) }),
    });
    const body = expectProblem(res, 413, "PAYLOAD_TOO_LARGE", "/v1/tenants");
    expect(body.detail).toContain(String(JSON_LIMIT));
  });

  test("413 when a chunked JSON body without Content-Length runs past the limit", async () => {
    const res = await call(server.url, "/v1/tenants", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: chunkedJson(JSON_LIMIT * 5),
    });
    const body = expectProblem(res, 413, "PAYLOAD_TOO_LARGE", "/v1/tenants");
    expect(body.detail).toContain(String(JSON_LIMIT));
  });

  test("a chunked body under the limit is read normally (the route then asks for a credential)", async () => {
    const res = await call(server.url, "/v1/tenants", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: chunkedJson(512),
    });
    expectProblem(res, 401, "UNAUTHENTICATED");
  });

  test("malformed JSON from a caller without a credential is 401, not a 400 about the body", async () => {
    const res = await call(server.url, "/v1/tenants", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"name": ',
    });
    expectProblem(res, 401, "UNAUTHENTICATED", "/v1/tenants");
  });

  test("malformed JSON with a credential the route refuses is 403, not 400", async () => {
    const res = await call(server.url, "/v1/tenants", {
      method: "POST",
      key,
      headers: { "content-type": "application/json" },
      body: '{"name": ',
    });
    expectProblem(res, 403, "FORBIDDEN", "/v1/tenants");
  });
});

describe("content negotiation", () => {
  test.each([
    ["text/plain", "text/plain; charset=utf-8"],
    ["text/json", "text/json; charset=utf-8"],
    ["application/json", "application/json; charset=utf-8"],
    ["*/*", "application/json; charset=utf-8"],
    ["image/png, text/plain;q=0.5", "text/plain; charset=utf-8"],
    ["application/json;q=0, */*", "text/json; charset=utf-8"],
  ])("Accept: %s is served as %s with the same JSON body", async (accept, type) => {
    const res = await call(server.url, "/v1/usage", { key, headers: { accept } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe(type);
    expect(json<{ used: number; unlimited: boolean }>(res)).toMatchObject({ used: 0, unlimited: true });
  });

  test.each(["image/png", "text/csv", "application/json;q=0"])("Accept: %s is refused with 406", async (accept) => {
    const res = await call(server.url, "/v1/usage", { key, headers: { accept } });
    const body = expectProblem(res, 406, "NOT_ACCEPTABLE", "/v1/usage");
    expect(body.detail).toContain(accept);
  });
});
