import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import type { BearerVerifier } from "@/auth/bearer";
import { issueApiKey } from "@/tenants/keys";
import { call, expectProblem, json } from "../helpers/api";
import { type ListServer, startListServer } from "../helpers/lists";
import { makeTenant } from "../helpers/tenants";

/**
 * The bulk route takes bodies up to 64 MiB, other JSON routes maxJsonBodyBytes (4 MiB by default).
 * Elysia parses a body before the guard authenticates, so a body that may be over maxJsonBodyBytes
 * (declared so, or chunked) is authenticated first: an unauthenticated client gets 401 before a byte
 * of it is read and cannot make the server buffer or parse more than maxJsonBodyBytes. The guard
 * then reuses that authentication instead of running it again.
 */
let world: ListServer;
let tenant: ReturnType<typeof makeTenant>;
/** Every bearer token the server verified, in order. */
const verified: string[] = [];
const bearer: BearerVerifier = {
  async verify(token) {
    verified.push(token);
    if (token !== "good-token") throw Object.assign(new Error("bad token"), { reason: "invalid" });
    return { subject: "bulk-client", roles: ["compliance_analyst"], tenantId: tenant.tenant.id };
  },
};

beforeAll(async () => {
  world = await startListServer({ bearer });
  tenant = makeTenant(world.server.ctx);
});
afterAll(() => world?.close());

const JSON_LIMIT = 4 * 1024 * 1024;
const rows = [{ fullName: "Customer One" }, { fullName: "Customer Two" }];

interface RawAnswer {
  status: number;
  head: string;
  body: string;
  ms: number;
}

/**
 * Sends a request's head and the start of its body over a raw connection and never the rest, so a
 * server that waited for (or read) the whole body would never answer. Resolves with the answer.
 */
function headersOnly(head: string[], bodyStart: string, timeoutMs = 5_000): Promise<RawAnswer> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const socket = connect(world.server.port, "127.0.0.1");
    let received = Buffer.alloc(0);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms: the server waited for the body`));
    }, timeoutMs);
    socket.on("connect", () => socket.write(`${head.join("\r\n")}\r\n\r\n${bodyStart}`));
    socket.on("data", (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const text = received.toString("latin1");
      const end = text.indexOf("\r\n\r\n");
      if (end === -1) return;
      const headText = text.slice(0, end);
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(headText)?.[1] ?? Number.NaN);
      const body = received.subarray(end + 4);
      if (!Number.isFinite(length) || body.length < length) return;
      clearTimeout(timer);
      socket.destroy();
      resolve({
        status: Number(/^HTTP\/1\.1 (\d{3})/.exec(headText)?.[1]),
        head: headText,
        body: body.subarray(0, length).toString("utf8"),
        ms: performance.now() - started,
      });
    });
    socket.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

const bulkHead = (...extra: string[]) => ["POST /v1/screenings/bulk HTTP/1.1", `Host: 127.0.0.1:${world.server.port}`, "Content-Type: application/json", ...extra];

describe("a bulk body over maxJsonBodyBytes is read only for an authenticated caller", () => {
  test("no credential, Content-Length 10 MB: 401 at once, without the body (which never comes)", async () => {
    const answer = await headersOnly(bulkHead("Content-Length: 10000000"), "[");
    expect(answer.status).toBe(401);
    expect(answer.head.toLowerCase()).toContain("content-type: application/problem+json");
    expect(answer.head.toLowerCase()).toContain("www-authenticate: bearer");
    expect(JSON.parse(answer.body)).toMatchObject({ code: "UNAUTHENTICATED", instance: "/v1/screenings/bulk" });
  });

  test("an unknown API key or a bad bearer token: 401 the same way", async () => {
    for (const credential of [`X-Api-Key: aml_live_${"Z".repeat(40)}`, "Authorization: Bearer bad-token"]) {
      const answer = await headersOnly(bulkHead("Content-Length: 10000000", credential), "[");
      expect(answer.status).toBe(401);
      expect(JSON.parse(answer.body).code).toBe("UNAUTHENTICATED");
    }
  });

  test("no credential, chunked: 401 at once, after one chunk of a body that never ends", async () => {
    const answer = await headersOnly(bulkHead("Transfer-Encoding: chunked"), "1\r\n[\r\n");
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.body).code).toBe("UNAUTHENTICATED");
  });

  test("a chunked body is not pulled before the 401: of a stream that never ends, at most a chunk or two is read", async () => {
    let pulled = 0;
    const chunk = new TextEncoder().encode(`[${" ".repeat(64 * 1024 - 1)}`);
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += chunk.byteLength;
        controller.enqueue(pulled === chunk.byteLength ? chunk : new Uint8Array(chunk.byteLength).fill(32));
      },
    });
    const res = await call(world.server.url, "/v1/screenings/bulk", { method: "POST", headers: { "content-type": "application/json" }, body: endless });
    expectProblem(res, 401, "UNAUTHENTICATED", "/v1/screenings/bulk");
    // Whatever the socket buffers took, far below the 4 MiB anyone may send, let alone the 64 MiB of bulk.
    expect(pulled).toBeLessThan(JSON_LIMIT);
  });

  test("other routes are unchanged: a body over maxJsonBodyBytes is 413 from its Content-Length, unread", async () => {
    const answer = await headersOnly(["POST /v1/screenings/check HTTP/1.1", `Host: 127.0.0.1:${world.server.port}`, "Content-Type: application/json", "Content-Length: 10000000"], "{");
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body).code).toBe("PAYLOAD_TOO_LARGE");
  });
});

describe("an authenticated caller's large bulk is read, and authenticated once", () => {
  /** Two rows padded with whitespace past maxJsonBodyBytes. */
  const padded = `[${JSON.stringify(rows[0])},${" ".repeat(JSON_LIMIT)}${JSON.stringify(rows[1])}]`;

  test("with an API key, declared over maxJsonBodyBytes: screened", async () => {
    expect(padded.length).toBeGreaterThan(JSON_LIMIT);
    const res = await call(world.server.url, "/v1/screenings/bulk", { method: "POST", key: tenant.apiKey, headers: { "content-type": "application/json" }, body: padded });
    expect(res.status).toBe(200);
    expect(json<{ summary: { screened: number } }>(res).summary.screened).toBe(2);
  });

  test("with a bearer token, declared or chunked: screened, the token verified once per request", async () => {
    const headers = { authorization: "Bearer good-token", "content-type": "application/json" };
    verified.length = 0;
    const declared = await call(world.server.url, "/v1/screenings/bulk", { method: "POST", headers, body: padded });
    expect(declared.status).toBe(200);
    expect(verified).toEqual(["good-token"]);

    verified.length = 0;
    const bytes = new TextEncoder().encode(JSON.stringify(rows));
    const chunked = await call(world.server.url, "/v1/screenings/bulk", {
      method: "POST",
      headers,
      body: new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(bytes.subarray(0, 10));
          controller.enqueue(bytes.subarray(10));
          controller.close();
        },
      }),
    });
    expect(chunked.status).toBe(200);
    expect(json<{ summary: { screened: number } }>(chunked).summary.screened).toBe(2);
    expect(verified).toEqual(["good-token"]);
  });

  test("a small body is authenticated by the guard alone, once", async () => {
    verified.length = 0;
    const res = await call(world.server.url, "/v1/screenings/bulk", {
      method: "POST",
      headers: { authorization: "Bearer good-token", "content-type": "application/json" },
      body: JSON.stringify(rows),
    });
    expect(res.status).toBe(200);
    expect(verified).toEqual(["good-token"]);
  });

  test("an authenticated caller without the route's role still gets 403", async () => {
    const auditor = makeTenant(world.server.ctx);
    const key = issueApiKey(world.server.ctx, { tenant: auditor.tenant.id, label: "auditor", role: "auditor" }, { actor: { type: "cli", id: "test" } });
    const res = await call(world.server.url, "/v1/screenings/bulk", { method: "POST", key: key.apiKey, headers: { "content-type": "application/json" }, body: padded });
    expectProblem(res, 403, "FORBIDDEN");
  });
});
