// Admin HTTP API against the real IdP and the real server: a client_credentials admin token onboards
// tenants, manages keys and quotas; every action is audited with the token's sub; API keys and
// non-admin tokens are refused with 403.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Tenant } from "@/tenants/schemas";
import { call, type Credential, jwtPayload, type OidcStack, type Problem, startOidcStack } from "./harness";

let stack: OidcStack;
let admin: Credential;
let adminSub: string;

const CLIENTS = {
  analyst: { clientId: "analyst-svc", clientSecret: "analyst-secret" },
  auditor: { clientId: "auditor-svc", clientSecret: "auditor-secret" },
  noRoles: { clientId: "no-roles-svc", clientSecret: "no-roles-secret" },
} as const;

beforeAll(async () => {
  stack = await startOidcStack({
    clients: (seed) => [
      { ...CLIENTS.analyst, roles: ["compliance_analyst"], tenantId: seed.id },
      { ...CLIENTS.auditor, roles: ["auditor"], tenantId: seed.id },
      { ...CLIENTS.noRoles },
    ],
  });
  const token = await stack.token();
  admin = { bearer: token };
  adminSub = String(jwtPayload(token)["sub"]);
});
afterAll(() => stack?.close());

type Created = Tenant & { apiKey: string; apiKeyId: string; webhookSigningSecret: string | null };
type KeyInfo = { keyId: string; tenantId: string; role: string; label: string | null; revokedAt: string | null; apiKey?: string };
type AuditEntry = { action: string; targetType: string; actor: { type: string; id: string }; correlationId: string | null };
type Usage = { used: number; limit: number | null; unlimited: boolean };

let slugCounter = 0;
function tenantBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  slugCounter++;
  return {
    name: `Onboarded Bank ${slugCounter}`,
    slug: `onboarded-${process.pid}-${slugCounter}`,
    contactEmail: `kyc${slugCounter}@onboarded.example`,
    plan: "enterprise",
    enabledLists: ["OFAC", "EU"],
    ...overrides,
  };
}

const api = <T = Record<string, unknown>>(method: string, path: string, options: Parameters<typeof call>[3] = {}) =>
  call<T>(stack.server.url, method, path, options);

async function onboard(overrides: Record<string, unknown> = {}, headers: Record<string, string> = {}): Promise<Created> {
  const res = await api<Created>("POST", "/v1/tenants", { credential: admin, body: tenantBody(overrides), headers });
  expect(res.status).toBe(201);
  return res.body;
}

describe("onboarding over HTTP with a client_credentials admin token", () => {
  test("the token comes from the IdP's token endpoint and names the admin client as sub", () => {
    expect(adminSub).toBe("aml-admin-cli");
  });

  test("POST /v1/tenants → 201 with the API key and whsec_ secret once; GET never returns them", async () => {
    const body = tenantBody({ webhookUrl: "https://hooks.onboarded.example/aml" });
    const res = await api<Created>("POST", "/v1/tenants", { credential: admin, body });
    expect(res.status).toBe(201);
    expect(res.headers.get("content-type")).toStartWith("application/json");
    const created = res.body;
    expect(res.headers.get("location")).toBe(`/v1/tenants/${created.id}`);
    expect(created).toMatchObject({ slug: body["slug"], contactEmail: body["contactEmail"], enabledLists: ["OFAC", "EU"], status: "active" });
    expect(created.apiKey).toMatch(/^aml_live_/);
    expect(created.apiKeyId).toBeString();
    expect(created.webhookSigningSecret).toMatch(/^whsec_/);

    const shown = await api<Tenant>("GET", `/v1/tenants/${created.id}`, { credential: admin });
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({ id: created.id, slug: created.slug, webhookUrl: "https://hooks.onboarded.example/aml" });
    const listed = await api<{ items: Tenant[] }>("GET", "/v1/tenants", { credential: admin });
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((t) => t.id)).toContain(created.id);
    const keys = await api<{ items: KeyInfo[] }>("GET", `/v1/tenants/${created.id}/api-keys`, { credential: admin });
    expect(keys.status).toBe(200);
    expect(keys.body.items.map((k) => k.keyId)).toEqual([created.apiKeyId]);
    for (const text of [shown.text, listed.text, keys.text]) {
      expect(text).not.toContain(created.apiKey);
      expect(text).not.toContain(created.webhookSigningSecret ?? "whsec_");
      expect(text).not.toContain("whsec_");
      expect(text).not.toMatch(/"apiKey"|"webhookSigningSecret"/);
    }
  });

  test("the new API key works on GET /v1/usage, in X-Api-Key and as a bearer", async () => {
    const created = await onboard();
    // Issued without a webhookUrl too, as the contract says: a receiver can be set up first.
    expect(created.webhookSigningSecret).toMatch(/^whsec_[0-9A-Za-z]{40}$/);
    for (const credential of [{ apiKey: created.apiKey }, { bearer: created.apiKey }]) {
      const usage = await api<Usage>("GET", "/v1/usage", { credential });
      expect(usage.status).toBe(200);
      expect(usage.body).toMatchObject({ used: 0, limit: null, unlimited: true });
    }
  });

  test.each([
    ["invalid e-mail", { contactEmail: "not-an-email" }, "contactEmail"],
    ["invalid slug", { slug: "Not A Slug!" }, "slug"],
    ["unknown list", { enabledLists: ["OFAC", "NOPE"] }, "enabledLists"],
    ["no lists", { enabledLists: [] }, "enabledLists"],
  ])("400 on %s, naming the field in errors[]", async (_what, overrides, field) => {
    const res = await api<Problem>("POST", "/v1/tenants", { credential: admin, body: tenantBody(overrides) });
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toStartWith("application/problem+json");
    expect(res.body.code).toBe("VALIDATION_FAILED");
    expect(res.body.errors?.some((e) => e.field === field || e.field.startsWith(`${field}.`) || e.field.startsWith(`${field}[`))).toBe(true);
  });

  test("409 on a duplicate slug, and no second tenant appears", async () => {
    const first = await onboard();
    const res = await api<Problem>("POST", "/v1/tenants", { credential: admin, body: tenantBody({ slug: first.slug }) });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe("CONFLICT");
    const listed = await api<{ items: Tenant[] }>("GET", "/v1/tenants", { credential: admin });
    expect(listed.body.items.filter((t) => t.slug === first.slug)).toHaveLength(1);
  });
});

describe("tenants, keys and quotas", () => {
  test("GET /v1/tenants/{id}: unknown or malformed id → 404", async () => {
    for (const id of [crypto.randomUUID(), "not-a-uuid", "x".repeat(300)]) {
      const res = await api<Problem>("GET", `/v1/tenants/${id}`, { credential: admin });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe("NOT_FOUND");
    }
    const unknown = crypto.randomUUID();
    expect((await api("POST", `/v1/tenants/${unknown}/api-keys`, { credential: admin })).status).toBe(404);
    expect((await api("PUT", `/v1/tenants/${unknown}/quota`, { credential: admin, body: { monthlyScreeningQuota: 5 } })).status).toBe(404);
    expect((await api("DELETE", `/v1/tenants/${unknown}/api-keys/${crypto.randomUUID()}`, { credential: admin })).status).toBe(404);
    expect((await api("DELETE", `/v1/tenants/${unknown}/api-keys/${"k".repeat(300)}`, { credential: admin })).status).toBe(404);
  });

  test("issue → the key works; revoke → 401 from the next request; revoking again → 409", async () => {
    const tenant = await onboard();
    const issued = await api<KeyInfo>("POST", `/v1/tenants/${tenant.id}/api-keys?label=ci-runner&role=auditor`, { credential: admin });
    expect(issued.status).toBe(201);
    expect(issued.body).toMatchObject({ tenantId: tenant.id, role: "auditor", label: "ci-runner", revokedAt: null });
    const key = issued.body.apiKey ?? "";
    expect(key).toMatch(/^aml_live_/);
    expect((await api("GET", "/v1/usage", { credential: { apiKey: key } })).status).toBe(200);

    const listed = await api<{ items: KeyInfo[] }>("GET", `/v1/tenants/${tenant.id}/api-keys`, { credential: admin });
    expect(listed.body.items.map((k) => k.keyId).sort()).toEqual([tenant.apiKeyId, issued.body.keyId].sort());
    expect(listed.text).not.toContain(key);

    const revoked = await api<KeyInfo>("DELETE", `/v1/tenants/${tenant.id}/api-keys/${issued.body.keyId}`, { credential: admin });
    expect(revoked.status).toBe(200);
    expect(revoked.body.revokedAt).toBeString();
    const after = await api<Problem>("GET", "/v1/usage", { credential: { apiKey: key } });
    expect(after.status).toBe(401);
    expect(after.body.code).toBe("UNAUTHENTICATED");
    // The onboarding key is untouched.
    expect((await api("GET", "/v1/usage", { credential: { apiKey: tenant.apiKey } })).status).toBe(200);
    expect((await api("DELETE", `/v1/tenants/${tenant.id}/api-keys/${issued.body.keyId}`, { credential: admin })).status).toBe(409);
    // A key of another tenant is not found under this one.
    expect((await api("DELETE", `/v1/tenants/${tenant.id}/api-keys/${stack.seed.apiKeyId}`, { credential: admin })).status).toBe(404);
  });

  test("issue: an unknown role → 400 naming the field", async () => {
    const tenant = await onboard();
    const res = await api<Problem>("POST", `/v1/tenants/${tenant.id}/api-keys?role=admin`, { credential: admin });
    expect(res.status).toBe(400);
    expect(res.body.errors?.map((e) => e.field)).toContain("query.role");
  });

  test("PUT quota → /v1/usage shows the limit; null clears it; invalid → 400", async () => {
    const tenant = await onboard();
    const set = await api<Tenant>("PUT", `/v1/tenants/${tenant.id}/quota`, { credential: admin, body: { monthlyScreeningQuota: 250 } });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ id: tenant.id, monthlyScreeningQuota: 250 });
    const usage = await api<Usage>("GET", "/v1/usage", { credential: { apiKey: tenant.apiKey } });
    expect(usage.body).toMatchObject({ used: 0, limit: 250, unlimited: false });

    expect((await api("PUT", `/v1/tenants/${tenant.id}/quota`, { credential: admin, body: { monthlyScreeningQuota: null } })).status).toBe(200);
    expect((await api<Usage>("GET", "/v1/usage", { credential: { apiKey: tenant.apiKey } })).body).toMatchObject({ limit: null, unlimited: true });

    const bad = await api<Problem>("PUT", `/v1/tenants/${tenant.id}/quota`, { credential: admin, body: { monthlyScreeningQuota: -1 } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors?.map((e) => e.field)).toContain("monthlyScreeningQuota");
    // One message a value: a whole number beyond the bound is too large, not also "not a whole number".
    for (const [value, message] of [
      [1e20, "must be at most 1,000,000,000"],
      [1e300, "must be at most 1,000,000,000"],
      [-1, "must be 0 or more"],
      [2.5, "must be a whole number"],
    ] as const) {
      const refused = await api<Problem>("PUT", `/v1/tenants/${tenant.id}/quota`, { credential: admin, body: { monthlyScreeningQuota: value } });
      expect({ value, status: refused.status, errors: refused.body.errors }).toEqual({ value, status: 400, errors: [{ field: "monthlyScreeningQuota", message }] });
    }
  });

  test("suspend → every credential of the tenant gets 403 on tenant routes; resume restores them; audited with the reason", async () => {
    const seed = stack.seed;
    const analystToken = await stack.token(CLIENTS.analyst.clientId);
    const before = (await api<Usage>("GET", "/v1/usage", { credential: { apiKey: seed.apiKey } })).body.used;

    const suspended = await api<Tenant>("POST", `/v1/tenants/${seed.id}/suspend`, {
      credential: admin,
      body: { reason: "contract ended 2026-11-30" },
      headers: { "x-correlation-id": "suspend-1" },
    });
    expect(suspended.status).toBe(200);
    expect(suspended.body).toMatchObject({ id: seed.id, status: "suspended" });
    try {
      for (const credential of [{ apiKey: seed.apiKey }, { apiKey: seed.auditorApiKey }, { bearer: analystToken }] as Credential[]) {
        for (const path of ["/v1/usage", "/v1/audit", "/v1/audit/verify"]) {
          const answer = await api<Problem>("GET", path, { credential });
          expect({ path, status: answer.status }).toEqual({ path, status: 403 });
          expect(answer.body.code).toBe("NO_USABLE_TENANT");
          expect(answer.body.detail).toContain("suspended");
        }
      }
      const again = await api<Problem>("POST", `/v1/tenants/${seed.id}/suspend`, { credential: admin, body: { reason: "twice" } });
      expect(again.status).toBe(409);
      expect((await api<Tenant>("GET", `/v1/tenants/${seed.id}`, { credential: admin })).body.status).toBe("suspended");
    } finally {
      const resumed = await api<Tenant>("POST", `/v1/tenants/${seed.id}/resume`, { credential: admin, body: { reason: "renewed" } });
      expect(resumed.status).toBe(200);
      expect(resumed.body.status).toBe("active");
    }
    expect((await api<Usage>("GET", "/v1/usage", { credential: { apiKey: seed.apiKey } })).body.used).toBe(before);
    expect((await api("GET", "/v1/usage", { credential: { bearer: analystToken } })).status).toBe(200);
    expect((await api<Problem>("POST", `/v1/tenants/${seed.id}/resume`, { credential: admin, body: { reason: "twice" } })).status).toBe(409);

    const audit = await api<{ items: Array<AuditEntry & { details: Record<string, unknown> }> }>("GET", "/v1/audit?targetType=tenant", {
      credential: { apiKey: seed.apiKey },
    });
    const changes = audit.body.items.filter((e) => e.action === "tenant.suspend" || e.action === "tenant.resume").reverse();
    expect(changes.map((e) => [e.action, e.details["reason"], e.details["status"]])).toEqual([
      ["tenant.suspend", "contract ended 2026-11-30", "suspended"],
      ["tenant.resume", "renewed", "active"],
    ]);
    expect(changes[0]?.actor).toEqual({ type: "oidc", id: adminSub });
    expect(changes[0]?.correlationId).toBe("suspend-1");
  });

  test("suspend and resume: a reason is required; an unknown tenant → 404", async () => {
    const tenant = await onboard();
    for (const body of [{}, { reason: "" }, { reason: "x".repeat(501) }, { reason: "a\u0007b" }, { reason: "ok", extra: 1 }]) {
      const res = await api<Problem>("POST", `/v1/tenants/${tenant.id}/suspend`, { credential: admin, body });
      expect(res.status).toBe(400);
    }
    expect((await api("POST", `/v1/tenants/${tenant.id}/suspend`, { credential: admin })).status).toBe(400);
    expect((await api<Tenant>("GET", `/v1/tenants/${tenant.id}`, { credential: admin })).body.status).toBe("active");
    expect((await api("POST", `/v1/tenants/${crypto.randomUUID()}/suspend`, { credential: admin, body: { reason: "x" } })).status).toBe(404);
    expect((await api("POST", `/v1/tenants/${crypto.randomUUID()}/resume`, { credential: admin, body: { reason: "x" } })).status).toBe(404);
  });

  test("every admin action lands in the tenant's audit log with actor oidc:<sub> and the request's correlation id", async () => {
    const tenant = await onboard({}, { "x-correlation-id": "onboard-audit-1" });
    const issued = await api<KeyInfo>("POST", `/v1/tenants/${tenant.id}/api-keys?label=rotation`, { credential: admin });
    await api("DELETE", `/v1/tenants/${tenant.id}/api-keys/${issued.body.keyId}`, { credential: admin });
    await api("PUT", `/v1/tenants/${tenant.id}/quota`, { credential: admin, body: { monthlyScreeningQuota: 10 } });

    const audit = await api<{ items: AuditEntry[]; total: number }>("GET", "/v1/audit", { credential: { apiKey: tenant.apiKey } });
    expect(audit.status).toBe(200);
    const actions = audit.body.items.map((e) => e.action).reverse();
    expect(actions).toEqual(["tenant.create", "api_key.issue", "api_key.issue", "api_key.revoke", "quota.set"]);
    for (const entry of audit.body.items) expect(entry.actor).toEqual({ type: "oidc", id: adminSub });
    expect(audit.body.items.filter((e) => e.correlationId === "onboard-audit-1").map((e) => e.action).sort()).toEqual([
      "api_key.issue",
      "tenant.create",
    ]);
    const verify = await api<{ intact: boolean }>("GET", "/v1/audit/verify", { credential: { apiKey: tenant.apiKey } });
    expect(verify.body.intact).toBe(true);
    // Another tenant's log shows none of it.
    const seedAudit = await api<{ items: Array<AuditEntry & { targetId: string }> }>("GET", "/v1/audit?take=500", { credential: { apiKey: stack.seed.apiKey } });
    expect(seedAudit.body.items.length).toBeGreaterThan(0);
    expect(seedAudit.body.items.some((e) => e.targetId === tenant.id || e.correlationId === "onboard-audit-1")).toBe(false);
  });
});

describe("only an admin bearer token passes the Admin policy", () => {
  const adminRoutes = (tenantId: string, keyId: string): Array<[string, string, unknown?]> => [
    ["GET", "/v1/tenants"],
    ["POST", "/v1/tenants", tenantBody()],
    ["GET", `/v1/tenants/${tenantId}`],
    ["GET", `/v1/tenants/${tenantId}/api-keys`],
    ["POST", `/v1/tenants/${tenantId}/api-keys?label=x`],
    ["DELETE", `/v1/tenants/${tenantId}/api-keys/${keyId}`],
    ["PUT", `/v1/tenants/${tenantId}/quota`, { monthlyScreeningQuota: 1 }],
    ["POST", `/v1/tenants/${tenantId}/suspend`, { reason: "x" }],
    ["POST", `/v1/tenants/${tenantId}/resume`, { reason: "x" }],
  ];

  async function expectForbiddenEverywhere(credential: Credential): Promise<void> {
    const { id, apiKeyId } = stack.seed;
    for (const [method, path, body] of adminRoutes(id, apiKeyId)) {
      const res = await api<Problem>(method, path, { credential, body });
      expect({ route: `${method} ${path}`, status: res.status, code: res.body.code }).toEqual({
        route: `${method} ${path}`,
        status: 403,
        code: "FORBIDDEN",
      });
      expect(res.headers.get("content-type")).toStartWith("application/problem+json");
    }
  }

  test("a valid tenant API key → 403 on every admin route (X-Api-Key and bearer form)", async () => {
    expect((await api("GET", "/v1/usage", { credential: { apiKey: stack.seed.apiKey } })).status).toBe(200);
    await expectForbiddenEverywhere({ apiKey: stack.seed.apiKey });
    await expectForbiddenEverywhere({ bearer: stack.seed.apiKey });
    await expectForbiddenEverywhere({ apiKey: stack.seed.auditorApiKey });
  });

  test("tokens without the admin role (analyst, auditor, no roles) → 403, and nothing changes", async () => {
    const before = (await api<{ items: Tenant[] }>("GET", "/v1/tenants", { credential: admin })).body.items.length;
    for (const client of Object.values(CLIENTS)) {
      const token = await stack.token(client.clientId);
      await expectForbiddenEverywhere({ bearer: token });
    }
    expect((await api<{ items: Tenant[] }>("GET", "/v1/tenants", { credential: admin })).body.items).toHaveLength(before);
    // The seed key survived the DELETE attempts.
    expect((await api("GET", "/v1/usage", { credential: { apiKey: stack.seed.apiKey } })).status).toBe(200);
  });

  test("no credential → 401 with WWW-Authenticate", async () => {
    const res = await api<Problem>("GET", "/v1/tenants");
    expect(res.status).toBe(401);
    expect(res.body.code).toBe("UNAUTHENTICATED");
    expect(res.headers.get("www-authenticate")).toContain("Bearer");
  });
});
