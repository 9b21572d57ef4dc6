import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { BearerVerifier } from "@/auth/bearer";
import { connect } from "node:net";
import { issueApiKey, revokeApiKey } from "@/tenants/keys";
import { setTenantStatus } from "@/tenants/status";
import { call, expectProblem, json } from "../helpers/api";
import { type ListServer, startListServer } from "../helpers/lists";
import { headersOnly as rawHeadersOnly } from "../helpers/raw-http";
import { REAL_FILE_TIMEOUT, sharedPath } from "../unit/watchlists/shared-files";
import { makeTenant } from "../helpers/tenants";

/**
 * The bulk route takes bodies up to 125 MiB, other JSON routes maxJsonBodyBytes (4 MiB by default).
 * Elysia parses a body before the guard authenticates, so a body that may be over maxJsonBodyBytes
 * (declared so, or chunked) is authorized for the route's policy first: a client without a valid
 * credential gets 401, one without the role 403, before a byte of it is read, and cannot make the
 * server buffer or parse more than maxJsonBodyBytes. The guard authenticates again once the body is
 * in, so a credential revoked while it arrived does not act.
 */
let world: ListServer;
let tenant: ReturnType<typeof makeTenant>;
/** Every bearer token the server verified, in order. */
const verified: string[] = [];
const bearer: BearerVerifier = {
  async verify(token) {
    verified.push(token);
    if (token === "admin-token") return { subject: "list-admin", roles: ["admin"], tenantId: null };
    // Admitted once, then refused: a token that expires while its request's body arrives.
    if (token === "expiring-token" && verified.filter((t) => t === token).length === 1) {
      return { subject: "bulk-client", roles: ["compliance_analyst"], tenantId: tenant.tenant.id };
    }
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

const headersOnly = (head: string[], bodyStart: string) => rawHeadersOnly(world.server.port, head, bodyStart);
const bulkHead = (...extra: string[]) => ["POST /v1/screenings/bulk HTTP/1.1", `Host: 127.0.0.1:${world.server.port}`, "Content-Type: application/json", ...extra];

describe("a bulk body over maxJsonBodyBytes is read only for an authorized caller", () => {
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
    // Whatever the socket buffers took, far below the 4 MiB anyone may send, let alone the 125 MiB of bulk.
    expect(pulled).toBeLessThan(JSON_LIMIT);
  });

  test("other routes are unchanged: a body over maxJsonBodyBytes is 413 from its Content-Length, unread", async () => {
    const answer = await headersOnly(["POST /v1/screenings/check HTTP/1.1", `Host: 127.0.0.1:${world.server.port}`, "Content-Type: application/json", "Content-Length: 10000000"], "{");
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body).code).toBe("PAYLOAD_TOO_LARGE");
  });
});

describe("an authorized caller's large bulk is read, and authenticated again once it is in", () => {
  /** Two rows padded with whitespace past maxJsonBodyBytes. */
  const padded = `[${JSON.stringify(rows[0])},${" ".repeat(JSON_LIMIT)}${JSON.stringify(rows[1])}]`;

  test("with an API key, declared over maxJsonBodyBytes: screened", async () => {
    expect(padded.length).toBeGreaterThan(JSON_LIMIT);
    const res = await call(world.server.url, "/v1/screenings/bulk", { method: "POST", key: tenant.apiKey, headers: { "content-type": "application/json" }, body: padded });
    expect(res.status).toBe(200);
    expect(json<{ summary: { screened: number } }>(res).summary.screened).toBe(2);
  });

  test("with a bearer token, declared or chunked: screened, the token verified before the body and after it", async () => {
    const headers = { authorization: "Bearer good-token", "content-type": "application/json" };
    verified.length = 0;
    const declared = await call(world.server.url, "/v1/screenings/bulk", { method: "POST", headers, body: padded });
    expect(declared.status).toBe(200);
    expect(verified).toEqual(["good-token", "good-token"]);

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
    expect(verified).toEqual(["good-token", "good-token"]);
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

  test("an authenticated caller without the route's role gets 403, before the body is read", async () => {
    const auditor = makeTenant(world.server.ctx);
    const key = issueApiKey(world.server.ctx, { tenant: auditor.tenant.id, label: "auditor", role: "auditor" }, { actor: { type: "cli", id: "test" } });
    const res = await call(world.server.url, "/v1/screenings/bulk", { method: "POST", key: key.apiKey, headers: { "content-type": "application/json" }, body: padded });
    expectProblem(res, 403, "FORBIDDEN");
    const answer = await headersOnly(bulkHead("Content-Length: 10000000", `X-Api-Key: ${key.apiKey}`), "[");
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.body).code).toBe("FORBIDDEN");
  });
});

/**
 * Sends a chunked bulk's head and first chunk, waits until `between` has run (once the server has
 * checked the credential before the body), then the rest. Resolves with the answer's status and body.
 */
function chunkedBulkWithPause(credential: string, rowsJson: string, between: () => Promise<void>): Promise<{ status: number; body: string }> {
  const chunk = (text: string) => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port: world.server.port });
    let received = "";
    socket.on("connect", async () => {
      socket.write(`${bulkHead("Transfer-Encoding: chunked", credential, "Connection: close").join("\r\n")}\r\n\r\n${chunk(rowsJson.slice(0, 1))}`);
      try {
        await between();
      } catch (error) {
        reject(error);
        return;
      }
      socket.write(`${chunk(rowsJson.slice(1))}0\r\n\r\n`);
    });
    socket.on("data", (data: Buffer) => {
      received += data.toString("utf8");
    });
    socket.on("end", () => {
      const [head = "", body = ""] = received.split("\r\n\r\n", 2);
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), body });
    });
    socket.on("error", reject);
  });
}

const screeningsOf = (tenantId: string) =>
  world.server.ctx.db.sqlite.query<{ n: number }, [string]>("SELECT COUNT(*) AS n FROM screenings WHERE tenant_id = ?").get(tenantId)?.n;

describe("a credential that stops being valid while a large body arrives does not act", () => {
  const rowsJson = JSON.stringify(rows);
  /** Long enough for the server to have read the head and checked the credential before the body. */
  const settle = () => Bun.sleep(800);

  test("an API key revoked mid-upload: 401 once the body is in, nothing screened or charged", async () => {
    const owner = makeTenant(world.server.ctx);
    const answer = await chunkedBulkWithPause(`X-Api-Key: ${owner.apiKey}`, rowsJson, async () => {
      await settle();
      revokeApiKey(world.server.ctx, { tenant: owner.tenant.id, keyId: owner.apiKeyId }, { actor: { type: "cli", id: "test" } });
    });
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.body)).toMatchObject({ code: "UNAUTHENTICATED", instance: "/v1/screenings/bulk" });
    expect(screeningsOf(owner.tenant.id)).toBe(0);
  });

  test("a bearer token that fails its second verification (expired while the body arrived): 401, nothing screened", async () => {
    verified.length = 0;
    const before = screeningsOf(tenant.tenant.id);
    const answer = await chunkedBulkWithPause("Authorization: Bearer expiring-token", rowsJson, async () => {
      // The first verification, before the body, admitted the token.
      while (!verified.includes("expiring-token")) await Bun.sleep(5);
    });
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.body).code).toBe("UNAUTHENTICATED");
    expect(verified).toEqual(["expiring-token", "expiring-token"]);
    expect(screeningsOf(tenant.tenant.id)).toBe(before);
  });

  test("a tenant suspended mid-upload: 403 once the body is in, as before", async () => {
    const owner = makeTenant(world.server.ctx);
    const answer = await chunkedBulkWithPause(`X-Api-Key: ${owner.apiKey}`, rowsJson, async () => {
      await settle();
      setTenantStatus(world.server.ctx, owner.tenant.id, "suspended", { reason: "test" }, { actor: { type: "cli", id: "test" } });
    });
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.body).code).toBe("NO_USABLE_TENANT");
    expect(screeningsOf(owner.tenant.id)).toBe(0);
  });

  test("a key that stays valid: the same pause, 200 with both rows screened", async () => {
    const owner = makeTenant(world.server.ctx);
    const answer = await chunkedBulkWithPause(`X-Api-Key: ${owner.apiKey}`, rowsJson, settle);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body).summary.screened).toBe(2);
    expect(screeningsOf(owner.tenant.id)).toBe(2);
  });
});

/**
 * Elysia reads a multipart body in full (up to maxUploadBytes, 128 MiB by default) before the guard
 * runs. The list upload takes one, so a multipart body there that may be over maxJsonBodyBytes is
 * authorized first, as bulk's JSON is: only an admin makes the server read it.
 */
describe("a list upload over maxJsonBodyBytes is read only for an admin", () => {
  const uploadHead = (...extra: string[]) => [
    "POST /v1/lists/import HTTP/1.1",
    `Host: 127.0.0.1:${world.server.port}`,
    "Content-Type: multipart/form-data; boundary=aml-boundary",
    ...extra,
  ];
  const partStart = '--aml-boundary\r\nContent-Disposition: form-data; name="file"; filename="sdn.csv"\r\n\r\n';

  test("no credential, Content-Length 10 MB or chunked: 401 at once, without the body", async () => {
    for (const length of ["Content-Length: 10000000", "Transfer-Encoding: chunked"]) {
      const start = length.startsWith("Transfer") ? `${partStart.length.toString(16)}\r\n${partStart}\r\n` : partStart;
      const answer = await headersOnly(uploadHead(length), start);
      expect(answer.status).toBe(401);
      expect(JSON.parse(answer.body)).toMatchObject({ code: "UNAUTHENTICATED", instance: "/v1/lists/import" });
    }
  });

  test("a tenant's API key or a tenant bearer token: 403 at once, without the body", async () => {
    for (const credential of [`X-Api-Key: ${tenant.apiKey}`, "Authorization: Bearer good-token"]) {
      const answer = await headersOnly(uploadHead("Content-Length: 10000000", credential), partStart);
      expect(answer.status).toBe(403);
      expect(JSON.parse(answer.body).code).toBe("FORBIDDEN");
    }
  });

  test("on a route that takes no upload, a multipart body is never read: 413 from a large Content-Length, 401 for a chunked one", async () => {
    for (const path of [`/v1/tenants/${tenant.tenant.id}/api-keys`, `/v1/tenants/${tenant.tenant.id}/webhook/secret`, "/v1/screenings/check"]) {
      const head = (...extra: string[]) => [`POST ${path} HTTP/1.1`, `Host: 127.0.0.1:${world.server.port}`, "Content-Type: multipart/form-data; boundary=aml-boundary", ...extra];
      const declared = await headersOnly(head("Content-Length: 10000000"), partStart);
      expect([path, declared.status, JSON.parse(declared.body).code]).toEqual([path, 413, "PAYLOAD_TOO_LARGE"]);
      const chunked = await headersOnly(head("Transfer-Encoding: chunked"), `${partStart.length.toString(16)}\r\n${partStart}\r\n`);
      expect([path, chunked.status, JSON.parse(chunked.body).code]).toEqual([path, 401, "UNAUTHENTICATED"]);
    }
  });

  test("an admin's small multipart body on a route that takes none is refused unread, naming body", async () => {
    const form = new FormData();
    form.append("file", new Blob(["not read"]), "note.txt");
    const res = await call(world.server.url, `/v1/tenants/${tenant.tenant.id}/api-keys?label=multipart`, { method: "POST", headers: { authorization: "Bearer admin-token" }, body: form });
    expect(res.status).toBe(400);
    expect(json<{ code: string; errors: Array<{ field: string }> }>(res)).toMatchObject({ code: "VALIDATION_FAILED", errors: [{ field: "body" }] });
  });

  test(
    "an admin's upload of the real OFAC CSV set (over 4 MiB) is read and imported, its token verified before and after the body",
    async () => {
      const form = new FormData();
      let bytes = 0;
      for (const name of ["sdn.csv", "add.csv", "alt.csv", "sdn_comments.csv"]) {
        const file = Bun.file(sharedPath(`ofac/${name}`));
        bytes += file.size;
        form.append("file", new Blob([await file.arrayBuffer()]), name);
      }
      expect(bytes).toBeGreaterThan(JSON_LIMIT);
      verified.length = 0;
      const res = await call(world.server.url, "/v1/lists/import", { method: "POST", headers: { authorization: "Bearer admin-token" }, body: form });
      expect(res.status).toBe(201);
      const report = json<{ results: Array<{ source: string; status: string }> }>(res);
      expect(report.results.find((r) => r.source === "OFAC")?.status).toBe("imported");
      expect(verified).toEqual(["admin-token", "admin-token"]);
    },
    REAL_FILE_TIMEOUT,
  );
});
