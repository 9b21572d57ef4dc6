import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { conforms, expectDocumentedResponses, type OpenApiPaths, servedPaths, strictDeep } from "../helpers/openapi";
import { z } from "zod";
import { AuditPageResponse, AuditVerificationResponse } from "@/http/routes/audit";
import { startIndex } from "@/matching/index";
import { RiskProfileResponse } from "@/profiles/routes";
import { screeningExtension } from "@/screening/extension";
import { ApiKeyResponse, CreatedTenantResponse, IssuedApiKeyResponse, TenantResponse, TenantWithSecretResponse } from "@/tenants/response-schemas";
import { watchlistExtension } from "@/watchlists/extension";
import { ImportReportResponse, ListsVersionResponse } from "@/watchlists/response-schemas";
import { type Exchange, call, expectProblem, json } from "../helpers/api";
import { fixtureFiles } from "../helpers/lists";
import { waitFor } from "../helpers/wait";
import { type OidcStack, startOidcStack } from "../oidc/harness";

/**
 * The admin, list and audit routes settle media types before any work, as the screening routes do:
 * a 406 (Accept allows no JSON type) or 415 (a body that is not JSON) writes nothing, unknown query
 * parameters are 400 naming them, the list upload stays multipart, the audit log keeps its CSV export
 * (format, else Accept), and the OpenAPI document declares each route's problem responses and schemas.
 */
let stack: OidcStack;
let bearer: string;
/** A tenant onboarded over HTTP, with a webhook URL (so it has a signing secret) and a second key. */
let tenantId: string;
let tenantKey: string;
let spareKeyId: string;

const send = (path: string, options: { method?: string; headers?: Record<string, string>; body?: RequestInit["body"] } = {}): Promise<Exchange> =>
  call(stack.server.url, path, { ...options, headers: { authorization: `Bearer ${bearer}`, ...options.headers } });
const sendJson = (method: string, path: string, value: unknown, headers: Record<string, string> = {}): Promise<Exchange> =>
  send(path, { method, headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(value) });

let slugs = 0;
const tenantBody = () => {
  slugs++;
  return {
    name: `Media Bank ${slugs}`,
    slug: `media-${process.pid}-${slugs}`,
    contactEmail: `kyc${slugs}@media.example`,
    plan: "enterprise",
    enabledLists: ["OFAC", "UN"],
  };
};

function upload(files = fixtureFiles(), headers: Record<string, string> = {}): Promise<Exchange> {
  const form = new FormData();
  for (const file of files) form.append("file", new Blob([file.bytes]), file.name);
  return send("/v1/lists/import", { method: "POST", headers, body: form });
}

beforeAll(async () => {
  stack = await startOidcStack({
    extensions: async () => {
      const watchlists = watchlistExtension(startIndex, { pollMs: 100 });
      return [watchlists, screeningExtension(watchlists)];
    },
  });
  bearer = await stack.token();
  const imported = await upload();
  expect(imported.status).toBe(201);
  const created = await sendJson("POST", "/v1/tenants", { ...tenantBody(), webhookUrl: "https://hooks.media.example/aml" });
  expect(created.status).toBe(201);
  const tenant = json<{ id: string; apiKey: string }>(created);
  tenantId = tenant.id;
  tenantKey = tenant.apiKey;
  const spare = await send(`/v1/tenants/${tenantId}/api-keys?label=spare`, { method: "POST" });
  expect(spare.status).toBe(201);
  spareKeyId = json<{ keyId: string }>(spare).keyId;
});
afterAll(() => stack?.close());

/** Everything a refused request must leave as it was: every row the admin and list routes write. */
function footprint() {
  const db = stack.server.ctx.db.sqlite;
  const all = (sql: string) => JSON.stringify(db.query(sql).all());
  return {
    tenants: all("SELECT * FROM tenants ORDER BY id"),
    apiKeys: all("SELECT * FROM api_keys ORDER BY id"),
    profiles: all("SELECT * FROM risk_profiles ORDER BY tenant_id"),
    audit: all("SELECT count(*) AS n FROM audit_log"),
    snapshots: all("SELECT count(*) AS n FROM list_snapshots"),
    versions: all("SELECT count(*) AS n FROM list_versions"),
  };
}

async function unchangedBy(request: () => Promise<Exchange>): Promise<Exchange> {
  const before = footprint();
  const res = await request();
  expect(footprint()).toEqual(before);
  return res;
}

/** Each write route with a valid request: what it would write if it ran. */
const WRITES: Array<[string, (headers: Record<string, string>, query?: string) => Promise<Exchange>]> = [
  ["POST /v1/tenants", (h, q = "") => sendJson("POST", `/v1/tenants${q}`, tenantBody(), h)],
  ["PUT /v1/tenants/{id}/quota", (h, q = "") => sendJson("PUT", `/v1/tenants/${tenantId}/quota${q}`, { monthlyScreeningQuota: 7 }, h)],
  ["PUT /v1/tenants/{id}/webhook", (h, q = "") => sendJson("PUT", `/v1/tenants/${tenantId}/webhook${q}`, { webhookUrl: "https://other.media.example/aml" }, h)],
  ["POST /v1/tenants/{id}/webhook/secret", (h, q = "") => send(`/v1/tenants/${tenantId}/webhook/secret${q}`, { method: "POST", headers: h })],
  ["POST /v1/tenants/{id}/api-keys", (h, q = "") => send(`/v1/tenants/${tenantId}/api-keys${q}`, { method: "POST", headers: h })],
  ["DELETE /v1/tenants/{id}/api-keys/{keyId}", (h, q = "") => send(`/v1/tenants/${tenantId}/api-keys/${spareKeyId}${q}`, { method: "DELETE", headers: h })],
  ["PUT /v1/tenants/{id}/risk-profile", (h, q = "") => sendJson("PUT", `/v1/tenants/${tenantId}/risk-profile${q}`, { threshold: 0.9 }, h)],
  ["POST /v1/lists/import", (h, q = "") => send(`/v1/lists/import${q}`, { method: "POST", headers: h, body: multipartOfficialFile() })],
];

/** A list upload that would record a new version (a new OFAC file) if it ran. */
function multipartOfficialFile(): FormData {
  const form = new FormData();
  const [sdn, alt] = fixtureFiles();
  if (!sdn || !alt) throw new Error("fixtures missing");
  form.append("file", new Blob([sdn.bytes, new TextEncoder().encode('99999,"NEW, Person","individual","[SDGT]",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- \r\n')]), "sdn.csv");
  form.append("file", new Blob([alt.bytes]), "alt.csv");
  return form;
}

/** Reads: the admin routes with the admin token, the tenant-scoped ones with the tenant's API key. */
const read = (path: string, headers: Record<string, string> = {}): Promise<Exchange> =>
  path.startsWith("/v1/tenants") ? send(path, { headers }) : call(stack.server.url, path, { key: tenantKey, headers });
const READS: Array<[string, () => string]> = [
  ["GET /v1/tenants", () => "/v1/tenants"],
  ["GET /v1/tenants/{id}", () => `/v1/tenants/${tenantId}`],
  ["GET /v1/tenants/{id}/api-keys", () => `/v1/tenants/${tenantId}/api-keys`],
  ["GET /v1/tenants/{id}/risk-profile", () => `/v1/tenants/${tenantId}/risk-profile`],
  ["GET /v1/lists/version", () => "/v1/lists/version"],
  ["GET /v1/audit/verify", () => "/v1/audit/verify"],
  ["GET /v1/audit", () => "/v1/audit"],
];

describe("406 is answered before anything is written", () => {
  test.each(WRITES)("%s with Accept: application/xml writes nothing", async (_route, request) => {
    const res = await unchangedBy(() => request({ accept: "application/xml" }));
    const problem = expectProblem(res, 406, "NOT_ACCEPTABLE");
    expect(problem.detail).toContain("application/xml");
    expect(res.headers.get("location")).toBeNull();
  });

  test("POST /v1/tenants with Accept: text/csv or application/json;q=0 onboards nobody", async () => {
    for (const accept of ["text/csv", "application/json;q=0"]) {
      expectProblem(await unchangedBy(() => sendJson("POST", "/v1/tenants", tenantBody(), { accept })), 406, "NOT_ACCEPTABLE", "/v1/tenants");
    }
  });

  test("the refused writes still work afterwards with an acceptable Accept, served under the negotiated JSON type", async () => {
    const quota = await sendJson("PUT", `/v1/tenants/${tenantId}/quota`, { monthlyScreeningQuota: 7 }, { accept: "text/plain" });
    expect(quota.status).toBe(200);
    expect(quota.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(json<{ monthlyScreeningQuota: number }>(quota).monthlyScreeningQuota).toBe(7);
    const profile = await sendJson("PUT", `/v1/tenants/${tenantId}/risk-profile`, { threshold: 0.9 }, { accept: "application/json, */*;q=0.1" });
    expect(profile.status).toBe(200);
    expect(json<{ options: { threshold: number } }>(profile).options.threshold).toBe(0.9);
  });

  test.each(READS)("%s with Accept: image/png is 406", async (_route, path) => {
    expectProblem(await read(path(), { accept: "image/png" }), 406, "NOT_ACCEPTABLE", path());
  });

  test("a credential problem comes first: 401 without a token, 403 for an API key, whatever Accept says", async () => {
    const anonymous = await call(stack.server.url, "/v1/tenants", { method: "POST", headers: { accept: "application/xml", "content-type": "text/plain" }, body: "x" });
    expectProblem(anonymous, 401, "UNAUTHENTICATED");
    const withKey = await call(stack.server.url, `/v1/tenants/${tenantId}/quota`, { method: "PUT", key: tenantKey, headers: { accept: "application/xml" }, body: "{}" });
    expectProblem(withKey, 403, "FORBIDDEN");
  });
});

describe("415 for a body that is not JSON, before anything is written", () => {
  const JSON_WRITES: Array<[string, string, () => string, unknown]> = [
    ["POST", "/v1/tenants", () => "/v1/tenants", null],
    ["PUT", "/v1/tenants/{id}/quota", () => `/v1/tenants/${tenantId}/quota`, { monthlyScreeningQuota: 3 }],
    ["PUT", "/v1/tenants/{id}/webhook", () => `/v1/tenants/${tenantId}/webhook`, { webhookUrl: null }],
    ["PUT", "/v1/tenants/{id}/risk-profile", () => `/v1/tenants/${tenantId}/risk-profile`, { threshold: 0.95 }],
  ];
  const bodyOf = (value: unknown) => JSON.stringify(value ?? tenantBody());

  test.each(JSON_WRITES)("%s %s with text/plain, form-urlencoded, CSV and multipart writes nothing", async (method, _route, path, value) => {
    const form = new FormData();
    form.set("monthlyScreeningQuota", "3");
    const bodies: Array<[Record<string, string>, RequestInit["body"]]> = [
      [{ "content-type": "text/plain" }, bodyOf(value)],
      [{ "content-type": "application/x-www-form-urlencoded" }, "monthlyScreeningQuota=3"],
      [{ "content-type": "text/csv" }, "monthlyScreeningQuota\n3\n"],
      [{}, form],
    ];
    for (const [headers, body] of bodies) {
      const res = await unchangedBy(() => send(path(), { method, headers, body }));
      const problem = expectProblem(res, 415, "UNSUPPORTED_MEDIA_TYPE", path());
      expect(problem.detail).toContain("send application/json");
    }
  });

  test("a JSON body without a Content-Type is read as JSON; application/*+json is JSON", async () => {
    const bare = await send(`/v1/tenants/${tenantId}/quota`, { method: "PUT", body: new TextEncoder().encode('{"monthlyScreeningQuota":11}') });
    expect(bare.status).toBe(200);
    expect(json<{ monthlyScreeningQuota: number }>(bare).monthlyScreeningQuota).toBe(11);
    const merge = await send(`/v1/tenants/${tenantId}/quota`, {
      method: "PUT",
      headers: { "content-type": "application/merge-patch+json; charset=utf-8" },
      body: '{"monthlyScreeningQuota":null}',
    });
    expect(merge.status).toBe(200);
    expect(json<{ monthlyScreeningQuota: number | null }>(merge).monthlyScreeningQuota).toBeNull();
  });

  test("an empty body is 400 saying so; a body that is not JSON without a Content-Type is 400 MALFORMED_JSON", async () => {
    const empty = await unchangedBy(() => send(`/v1/tenants/${tenantId}/quota`, { method: "PUT", headers: { "content-type": "application/json" } }));
    expect(expectProblem(empty, 400, "VALIDATION_FAILED").errors).toEqual([{ field: "", message: "is empty; send a JSON object" }]);
    const notJson = await unchangedBy(() => send(`/v1/tenants/${tenantId}/risk-profile`, { method: "PUT", body: new TextEncoder().encode("threshold=0.9") }));
    expectProblem(notJson, 400, "MALFORMED_JSON");
  });

  test("invalid and unknown body fields are still 400 naming each", async () => {
    const res = await unchangedBy(() => sendJson("PUT", `/v1/tenants/${tenantId}/quota`, { monthlyScreeningQuota: -1, colour: "red" }));
    const fields = expectProblem(res, 400, "VALIDATION_FAILED").errors?.map((e) => e.field).sort();
    expect(fields).toEqual(["colour", "monthlyScreeningQuota"]);
  });

  test("the list upload is multipart: a JSON body is 415 naming multipart, and nothing is imported", async () => {
    const res = await unchangedBy(() => sendJson("POST", "/v1/lists/import", { file: "sdn.csv" }));
    expect(expectProblem(res, 415, "UNSUPPORTED_MEDIA_TYPE", "/v1/lists/import").detail).toContain("multipart/form-data");
  });

  test("a gzipped multipart upload is 415 for its content coding, not read as a malformed upload, and nothing is imported", async () => {
    const encoded = new Response(multipartOfficialFile());
    const type = encoded.headers.get("content-type") ?? "";
    const body = Bun.gzipSync(new Uint8Array(await encoded.arrayBuffer()));
    const res = await unchangedBy(() => send("/v1/lists/import", { method: "POST", headers: { "content-type": type, "content-encoding": "gzip" }, body }));
    expect(expectProblem(res, 415, "UNSUPPORTED_MEDIA_TYPE", "/v1/lists/import").detail).toContain("Content-Encoding");
    expect(res.headers.get("accept-encoding")).toBe("identity");
  });
});

describe("unknown query parameters are refused, not ignored", () => {
  test.each(WRITES)("%s?foo=1 is 400 naming query.foo, and writes nothing", async (_route, request) => {
    const res = await unchangedBy(() => request({}, "?foo=1"));
    expect(expectProblem(res, 400, "VALIDATION_FAILED").errors).toEqual([{ field: "query.foo", message: "is not a known field" }]);
  });

  test.each(READS)("%s?foo=1 is 400 naming query.foo", async (_route, path) => {
    const res = await read(`${path()}?foo=1`);
    expect(expectProblem(res, 400, "VALIDATION_FAILED").errors).toEqual([{ field: "query.foo", message: "is not a known field" }]);
  });

  test("a tenant id in upper case names the same tenant, as screening ids do", async () => {
    const upper = await send(`/v1/tenants/${tenantId.toUpperCase()}`);
    expect(upper.status).toBe(200);
    expect(json<{ id: string }>(upper).id).toBe(tenantId);
    const quota = await sendJson("PUT", `/v1/tenants/${tenantId.toUpperCase()}/quota`, { monthlyScreeningQuota: 9 });
    expect(quota.status).toBe(200);
    expect(json<{ monthlyScreeningQuota: number }>(await send(`/v1/tenants/${tenantId}`)).monthlyScreeningQuota).toBe(9);
  });

  test("GET /v1/tenants?take=10 is 400: the tenant list is not paged", async () => {
    expect(expectProblem(await send("/v1/tenants?take=10"), 400, "VALIDATION_FAILED").errors?.[0]?.field).toBe("query.take");
  });

  test("documented parameters keep working: api-key label and role, audit filters and paging", async () => {
    const issued = await send(`/v1/tenants/${tenantId}/api-keys?label=reporting&role=auditor`, { method: "POST" });
    expect(issued.status).toBe(201);
    expect(json<{ label: string; role: string }>(issued)).toMatchObject({ label: "reporting", role: "auditor" });
    const page = await call(stack.server.url, "/v1/audit?action=api_key.issue&targetType=api_key&take=1&skip=0&format=json", { key: tenantKey });
    expect(page.status).toBe(200);
    const body = json<{ items: Array<{ action: string }>; total: number; take: number }>(page);
    expect(body.items.map((i) => i.action)).toEqual(["api_key.issue"]);
    expect(body.take).toBe(1);
    expect(body.total).toBeGreaterThanOrEqual(2);
  });
});

describe("audit: CSV by format or Accept, decided before the log is read", () => {
  const audit = (query: string, accept?: string) => call(stack.server.url, `/v1/audit${query}`, { key: tenantKey, ...(accept ? { headers: { accept } } : {}) });
  const isCsv = (res: Exchange) => res.headers.get("content-type") === "text/csv; charset=utf-8";

  test.each([
    ["", undefined, false],
    ["?format=csv", undefined, true],
    ["?format=csv", "application/xml", true],
    ["?format=json", "text/csv", false],
    ["", "text/csv", true],
    ["", "text/csv;q=0, application/json", false],
    ["", "application/json;q=0.5, text/csv", true],
    ["", "*/*", false],
  ])("GET /v1/audit%s with Accept: %s gives CSV: %p", async (query, accept, csv) => {
    const res = await audit(query, accept);
    expect(res.status).toBe(200);
    expect(isCsv(res)).toBe(csv);
    if (csv) {
      expect(res.text.split("\r\n")[0]).toBe("id,sequence,at,action,targetType,targetId,actorType,actorId,correlationId,details,prevHash,hash");
      expect(Number(res.headers.get("x-export-row-count"))).toBeGreaterThan(0);
      expect(res.headers.get("content-disposition")).toStartWith('attachment; filename="audit-');
    } else {
      expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
      expect(json<{ items: unknown[] }>(res).items.length).toBeGreaterThan(0);
    }
  });

  test("format=json keeps a JSON type Accept prefers; an Accept allowing neither JSON nor CSV is 406", async () => {
    expect((await audit("?format=json", "text/plain")).headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expectProblem(await audit("", "application/xml"), 406, "NOT_ACCEPTABLE", "/v1/audit");
    expectProblem(await audit("?format=xml"), 400, "VALIDATION_FAILED");
  });
});

describe("multipart upload keeps working", () => {
  test("a new OFAC file is imported (201) and served", async () => {
    const report = await conforms(ImportReportResponse, send("/v1/lists/import", { method: "POST", body: multipartOfficialFile() }), 201);
    expect(report.results.find((r) => r.source === "OFAC")?.status).toBe("imported");
    await waitFor(async () => {
      const version = json<{ versionId: string }>(await call(stack.server.url, "/v1/lists/version", { key: tenantKey }));
      return version.versionId === report.snapshot?.id;
    });
  });

  test("an upload without a file is still 400", async () => {
    const form = new FormData();
    form.append("note", "no file");
    const res = await unchangedBy(() => send("/v1/lists/import", { method: "POST", body: form }));
    expect(expectProblem(res, 400, "VALIDATION_FAILED").errors).toEqual([{ field: "file", message: "is required" }]);
  });
});

describe("strictDeep", () => {
  const Published = z.object({ id: z.string(), nested: z.array(z.object({ a: z.number() }).nullable()), options: z.object({ x: z.number().default(1) }) });
  test("refuses a member the schema does not name, at any depth, and a member left to a default", () => {
    const strict = strictDeep(Published);
    const answer = { id: "t", nested: [{ a: 1 }, null], options: { x: 2 } };
    expect(strict.safeParse(answer).success).toBe(true);
    expect(Published.safeParse({ ...answer, secret: "whsec_x" }).success).toBe(true);
    expect(strict.safeParse({ ...answer, secret: "whsec_x" }).success).toBe(false);
    expect(strict.safeParse({ ...answer, nested: [{ a: 1, secret: "whsec_x" }] }).success).toBe(false);
    expect(strict.safeParse({ ...answer, options: { x: 2, secret: "whsec_x" } }).success).toBe(false);
    expect(strict.safeParse({ ...answer, options: {} }).success).toBe(false);
  });
});

describe("answers match the schemas the OpenAPI document publishes", () => {
  const withCorrelationId = <S extends z.ZodObject>(schema: S) => schema.extend({ correlationId: z.string() });

  test("tenant, key, profile, list and audit answers", async () => {
    const created = await conforms(CreatedTenantResponse, sendJson("POST", "/v1/tenants", tenantBody()), 201);
    // Strict: the onboarding answer, with its API key, does not pass for a tenant, which never carries one.
    expect(strictDeep(withCorrelationId(TenantResponse)).safeParse(created).success).toBe(false);
    await conforms(withCorrelationId(TenantResponse), send(`/v1/tenants/${tenantId}`));
    await conforms(withCorrelationId(TenantResponse), sendJson("PUT", `/v1/tenants/${tenantId}/quota`, { monthlyScreeningQuota: null }));
    const tenants = await conforms(z.object({ items: z.array(TenantResponse), correlationId: z.string() }), send("/v1/tenants"));
    expect(tenants.items.map((t) => t.id)).toContain(tenantId);
    await conforms(TenantWithSecretResponse, sendJson("PUT", `/v1/tenants/${tenantId}/webhook`, { webhookUrl: "https://hooks.media.example/v2" }));
    const rotated = await conforms(TenantWithSecretResponse, send(`/v1/tenants/${tenantId}/webhook/secret`, { method: "POST" }));
    expect(rotated.webhookSigningSecret).toStartWith("whsec_");
    const issued = await conforms(IssuedApiKeyResponse, send(`/v1/tenants/${tenantId}/api-keys?label=schema`, { method: "POST" }), 201);
    const revoked = await conforms(withCorrelationId(ApiKeyResponse), send(`/v1/tenants/${tenantId}/api-keys/${issued.keyId}`, { method: "DELETE" }));
    expect(revoked.revokedAt).not.toBeNull();
    await conforms(z.object({ items: z.array(ApiKeyResponse), correlationId: z.string() }), send(`/v1/tenants/${tenantId}/api-keys`));
    await conforms(RiskProfileResponse, send(`/v1/tenants/${tenantId}/risk-profile`));
    await conforms(ListsVersionResponse, call(stack.server.url, "/v1/lists/version", { key: tenantKey }));
    await conforms(AuditPageResponse, call(stack.server.url, "/v1/audit", { key: tenantKey }));
    await conforms(AuditVerificationResponse, call(stack.server.url, "/v1/audit/verify", { key: tenantKey }));
  });
});

describe("OpenAPI", () => {
  let paths: OpenApiPaths;
  beforeAll(async () => {
    paths = await servedPaths(stack.server.url);
  });

  const ROUTES: Array<[string, string, string, string[], string | null]> = [
    ["/v1/tenants", "post", "201", ["400", "401", "403", "406", "409", "413", "415", "503"], "application/json"],
    ["/v1/tenants", "get", "200", ["400", "401", "403", "406", "503"], null],
    ["/v1/tenants/{id}", "get", "200", ["400", "401", "403", "404", "406", "503"], null],
    ["/v1/tenants/{id}/api-keys", "get", "200", ["400", "401", "403", "404", "406", "503"], null],
    ["/v1/tenants/{id}/api-keys", "post", "201", ["400", "401", "403", "404", "406", "503"], null],
    ["/v1/tenants/{id}/api-keys/{keyId}", "delete", "200", ["400", "401", "403", "404", "406", "409", "503"], null],
    ["/v1/tenants/{id}/quota", "put", "200", ["400", "401", "403", "404", "406", "413", "415", "503"], "application/json"],
    ["/v1/tenants/{id}/webhook", "put", "200", ["400", "401", "403", "404", "406", "413", "415", "503"], "application/json"],
    ["/v1/tenants/{id}/webhook/secret", "post", "200", ["400", "401", "403", "404", "406", "503"], null],
    ["/v1/tenants/{id}/risk-profile", "get", "200", ["400", "401", "403", "404", "406", "503"], null],
    ["/v1/tenants/{id}/risk-profile", "put", "200", ["400", "401", "403", "404", "406", "413", "415", "503"], "application/json"],
    ["/v1/lists/version", "get", "200", ["400", "401", "403", "406", "503"], null],
    ["/v1/lists/import", "post", "201", ["400", "401", "403", "406", "409", "413", "415", "503"], "multipart/form-data"],
    ["/v1/audit", "get", "200", ["400", "401", "403", "406", "503"], null],
    ["/v1/audit/verify", "get", "200", ["400", "401", "403", "406", "503"], null],
  ];

  test.each(ROUTES)("%s %s: %s with a shared JSON schema, problem responses by reference, its request body", (path, method, ok, problems, bodyType) => {
    const operation = paths[path]?.[method];
    expectDocumentedResponses(operation, ok, problems);
    if (bodyType === null) expect(operation?.requestBody).toBeUndefined();
    else expect(Object.keys(operation?.requestBody?.content ?? {})).toEqual([bodyType]);
  });

  test("the audit log documents its CSV export, format parameter and export headers", () => {
    const operation = paths["/v1/audit"]?.get;
    expect(operation?.responses?.["200"]?.content?.["text/csv"]).toBeDefined();
    expect(Object.keys(operation?.responses?.["200"]?.headers ?? {})).toEqual(expect.arrayContaining(["X-Export-Row-Count", "X-Export-Truncated"]));
    expect(operation?.parameters?.map((p) => p.name)).toEqual(expect.arrayContaining(["format", "skip", "take", "action", "targetType", "from", "to"]));
    expect(paths["/v1/tenants"]?.post?.responses?.["201"]?.headers?.["Location"]).toBeDefined();
  });
});
