import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SetWebhookInput } from "@/tenants/schemas";
import { startIndex } from "@/matching/index";
import { watchlistExtension } from "@/watchlists/extension";
import { type Exchange, call, expectProblem, json } from "../helpers/api";
import { type OidcStack, startOidcStack } from "../oidc/harness";

/**
 * What the admin routes refuse in their inputs, against the real server and IdP: a body on a route
 * that takes its inputs as query parameters (or none), control characters in stored admin text, a
 * webhook URL that would be called as other than stored, a lone surrogate escaped in a JSON string,
 * a query value or path segment whose percent-encoding is not UTF-8, and a malformed upload form.
 * Each refusal writes nothing.
 */
let stack: OidcStack;
let bearer: string;
let tenantId: string;
let keyId: string;

const send = (path: string, options: { method?: string; headers?: Record<string, string>; body?: RequestInit["body"] } = {}): Promise<Exchange> =>
  call(stack.server.url, path, { ...options, headers: { authorization: `Bearer ${bearer}`, ...options.headers } });
const sendJson = (method: string, path: string, body: string): Promise<Exchange> =>
  send(path, { method, headers: { "content-type": "application/json" }, body });

let slugs = 0;
const tenantBody = (overrides: Record<string, unknown> = {}) => {
  slugs++;
  return { name: `Input Bank ${slugs}`, slug: `input-${process.pid}-${slugs}`, contactEmail: `kyc${slugs}@input.example`, plan: "enterprise", enabledLists: ["UN"], ...overrides };
};

beforeAll(async () => {
  stack = await startOidcStack({ extensions: async () => [watchlistExtension(startIndex, { pollMs: 200 })] });
  bearer = await stack.token();
  const created = await sendJson("POST", "/v1/tenants", JSON.stringify(tenantBody({ webhookUrl: "https://hooks.input.example/aml" })));
  expect(created.status).toBe(201);
  tenantId = json<{ id: string }>(created).id;
  const spare = await send(`/v1/tenants/${tenantId}/api-keys?label=spare`, { method: "POST" });
  expect(spare.status).toBe(201);
  keyId = json<{ keyId: string }>(spare).keyId;
});
afterAll(() => stack?.close());

/** Every row the admin routes write; a refused request leaves it as it was. */
function footprint() {
  const db = stack.server.ctx.db.sqlite;
  const all = (sql: string) => JSON.stringify(db.query(sql).all());
  return { tenants: all("SELECT * FROM tenants ORDER BY id"), apiKeys: all("SELECT * FROM api_keys ORDER BY id") };
}

describe("a route that takes no body refuses one", () => {
  test.each([
    ["issuing a key, JSON", "POST", () => `/v1/tenants/${tenantId}/api-keys`, '{"label":"read-only","role":"auditor"}', "application/json", "label and role"],
    ["issuing a key, a form", "POST", () => `/v1/tenants/${tenantId}/api-keys`, "role=auditor", "application/x-www-form-urlencoded", "label and role"],
    ["issuing a key, no Content-Type", "POST", () => `/v1/tenants/${tenantId}/api-keys?role=auditor`, "{}", null, "label and role"],
    ["revoking a key", "DELETE", () => `/v1/tenants/${tenantId}/api-keys/${keyId}`, '{"reason":"leaked"}', "application/json", "named by the path"],
    ["rotating the secret", "POST", () => `/v1/tenants/${tenantId}/webhook/secret`, '{"secret":"whsec_mine"}', "application/json", "named by the path"],
  ])("%s is 400 naming body and what to send, and nothing is written", async (_label, method, path, body, contentType, inputs) => {
    const before = footprint();
    const problem = expectProblem(await send(path(), { method, body, headers: contentType === null ? {} : { "content-type": contentType } }), 400, "VALIDATION_FAILED");
    expect(problem.errors?.map((e) => e.field)).toEqual(["body"]);
    expect(problem.detail).toContain("takes no body");
    expect(problem.detail).toContain(inputs);
    expect(footprint()).toEqual(before);
  });

  test("without a body, or with an empty one, the key is issued from the query", async () => {
    const res = await send(`/v1/tenants/${tenantId}/api-keys?label=read-only&role=auditor`, { method: "POST", headers: { "content-type": "application/json" }, body: "" });
    expect(res.status).toBe(201);
    expect(json<{ role: string; label: string }>(res)).toMatchObject({ role: "auditor", label: "read-only" });
  });
});

describe("control characters in admin text", () => {
  test.each([
    ["name, ESC", { name: "Evil\u001b[2J Bank" }, "name"],
    ["name, a line break", { name: "Evil\nBank" }, "name"],
    ["name, NUL", { name: "Evil\u0000Bank" }, "name"],
    ["name, tab", { name: "Evil\tBank" }, "name"],
    ["name, C1", { name: "Evil\u009bBank" }, "name"],
    ["plan, DEL", { plan: "gold\u007f" + "x" }, "plan"],
    ["slug, NUL", { slug: "evil\u0000bank" }, "slug"],
    ["webhookUrl, tab and NUL", { webhookUrl: "https://x.exa\tmple/\u0000 a" }, "webhookUrl"],
    ["webhookUrl, a space", { webhookUrl: "https://hooks.input.example/a b" }, "webhookUrl"],
  ])("onboarding with %s is 400 naming the field, and nothing is written", async (_label, overrides, field) => {
    const before = footprint();
    const problem = expectProblem(await sendJson("POST", "/v1/tenants", JSON.stringify(tenantBody(overrides))), 400, "VALIDATION_FAILED");
    expect(problem.errors?.map((e) => e.field)).toEqual([field]);
    expect(footprint()).toEqual(before);
  });

  test("surrounding whitespace is trimmed, as before", async () => {
    const res = await sendJson("POST", "/v1/tenants", JSON.stringify(tenantBody({ name: "  Calm Bank\n" })));
    expect(res.status).toBe(201);
    expect(json<{ name: string }>(res).name).toBe("Calm Bank");
  });

  test("setting a webhookUrl with control characters, spaces or invisible characters is 400 naming it, and the URL is unchanged", async () => {
    const before = footprint();
    const invisible = [
      "https://hooks.exam\u00ADple.com/", // soft hyphen: the parser calls example.com
      "https://hooks.exam\u200Bple.com/", // zero-width space, dropped the same way
      "https://hooks.input.example/a\u202Eb", // a bidirectional override in the path
      "https://hooks.input.example/\u2066x\u2069",
      "https://hooks.input.example/\uFEFFx",
    ];
    for (const webhookUrl of ["https://x.exa\tmple/\u0000 a", "https://hooks.input.example/new path", ...invisible]) {
      const problem = expectProblem(await sendJson("PUT", `/v1/tenants/${tenantId}/webhook`, JSON.stringify({ webhookUrl })), 400, "VALIDATION_FAILED");
      expect(problem.errors).toEqual([{ field: "webhookUrl", message: "must not contain control characters, invisible characters or spaces (percent-encode a space as %20)" }]);
    }
    expect(footprint()).toEqual(before);
  });

  test("a webhookUrl whose host is percent-encoded (an invisible character the parser would decode) is 400; a percent-encoded path is fine", async () => {
    const before = footprint();
    for (const webhookUrl of ["https://exam%C2%ADple.com/hook", "https://exam%E2%80%8Bple.com/", "https://hooks%2Einput.example/"]) {
      const problem = expectProblem(await sendJson("PUT", `/v1/tenants/${tenantId}/webhook`, JSON.stringify({ webhookUrl })), 400, "VALIDATION_FAILED");
      expect(problem.errors).toEqual([{ field: "webhookUrl", message: "must not percent-encode its host: write the host name as it is" }]);
    }
    expect(footprint()).toEqual(before);
    // Percent-encoding after the host (path, query) is ordinary and stays accepted.
    for (const webhookUrl of ["https://hooks.input.example/a%20b", "https://hooks.input.example:8443/x?token=%41%42", "https://hooks.input.example"]) {
      expect(SetWebhookInput.safeParse({ webhookUrl }).success).toBe(true);
    }
  });

  test.each([
    ["NUL", "%00"],
    ["ESC", "ok%1B%5B2J"],
    ["a line break inside", "read%0Aonly"],
  ])("a key label with %s is 400 naming query.label, and no key is issued", async (_label, encoded) => {
    const before = footprint();
    const problem = expectProblem(await send(`/v1/tenants/${tenantId}/api-keys?label=${encoded}`, { method: "POST" }), 400, "VALIDATION_FAILED");
    expect(problem.errors?.map((e) => e.field)).toEqual(["query.label"]);
    expect(footprint()).toEqual(before);
  });

  test("a key label whose percent-encoding is not UTF-8 is 400 naming query.label, and no key is issued", async () => {
    const before = footprint();
    const problem = expectProblem(await send(`/v1/tenants/${tenantId}/api-keys?label=%ED%A0%80`, { method: "POST" }), 400, "VALIDATION_FAILED");
    expect(problem.errors?.map((e) => e.field)).toEqual(["query.label"]);
    expect(footprint()).toEqual(before);
  });
});

describe("a lone surrogate escaped in an admin JSON body", () => {
  test("onboarding is 400 MALFORMED_JSON naming the field, and nothing is written", async () => {
    const before = footprint();
    const body = JSON.stringify(tenantBody({ name: "Quill PLACEHOLDER Bank" })).replace("PLACEHOLDER", "\\ud800");
    const problem = expectProblem(await sendJson("POST", "/v1/tenants", body), 400, "MALFORMED_JSON");
    expect(problem.detail).toContain("name escapes half a UTF-16 surrogate pair");
    expect(footprint()).toEqual(before);
  });

  test("in a list, it is named by its index", async () => {
    const before = footprint();
    const body = JSON.stringify(tenantBody({ enabledLists: ["UN", "PLACEHOLDER"] })).replace("PLACEHOLDER", "OF\\uDFFFAC");
    const problem = expectProblem(await sendJson("POST", "/v1/tenants", body), 400, "MALFORMED_JSON");
    expect(problem.detail).toContain("enabledLists[1] escapes half");
    expect(footprint()).toEqual(before);
  });
});

describe("a path segment whose percent-encoding is not UTF-8", () => {
  test.each(["/v1/tenants/%FF", "/v1/tenants/%FF/api-keys", "/problems/%FF"])("GET %s is 404 NOT_FOUND, as an unknown id", async (path) => {
    const problem = expectProblem(await send(path), 404, "NOT_FOUND");
    expect(problem.detail).toContain("not percent-encoded UTF-8");
  });
});

describe("a malformed multipart body on the list upload", () => {
  test("is 400 INVALID_INPUT about the form, not MALFORMED_JSON", async () => {
    const body = "--nope\r\nContent-Disposition: form-data; name=\"file\"; filename=\"x.xml\"\r\n\r\n<truncated";
    const res = await send("/v1/lists/import", { method: "POST", headers: { "content-type": "multipart/form-data; boundary=other" }, body });
    const problem = expectProblem(res, 400, "INVALID_INPUT");
    expect(problem.detail).toContain("multipart/form-data");
  });
});
