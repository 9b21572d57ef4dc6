// Bearer tokens on the real server: the authorization-code + PKCE flow yields tokens the appliance
// accepts; hostile tokens get 401 problem+json; tokens without a usable tenant get 403
// NO_USABLE_TENANT; with no issuer configured every JWT is refused while API keys keep working.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Tenant } from "@/tenants/schemas";
import { hostileTokens, validClaims } from "../helpers/hostile-tokens";
import { CONSOLE_SCOPE, pkceLogin } from "../helpers/pkce-login";
import { startTestServer, type TestServer } from "../helpers/server";
import { makeTenant } from "../helpers/tenants";
import { call, type Credential, jwtPayload, type OidcStack, type Problem, startOidcStack } from "./harness";

let stack: OidcStack;
const api = <T = Record<string, unknown>>(method: string, path: string, options: Parameters<typeof call>[3] = {}) =>
  call<T>(stack.server.url, method, path, options);

type Usage = { used: number; limit: number | null; unlimited: boolean };
type AuditPage = { items: Array<{ action: string; targetType: string }>; total: number };

beforeAll(async () => {
  stack = await startOidcStack({
    clients: () => [
      { clientId: "analyst-no-tenant", clientSecret: "s1", roles: ["compliance_analyst"] },
      { clientId: "analyst-ghost-tenant", clientSecret: "s2", roles: ["compliance_analyst"], tenantId: crypto.randomUUID() },
      { clientId: "analyst-ghost-slug", clientSecret: "s3", roles: ["compliance_analyst"], tenantId: "no-such-bank" },
      // IdP mappers that emit the claim as another type than a string.
      { clientId: "analyst-number-tenant", clientSecret: "s4", roles: ["compliance_analyst"], claims: { tenant_id: 5 } },
      { clientId: "analyst-list-tenant", clientSecret: "s5", roles: ["compliance_analyst"], claims: { tenant_id: ["a", "b"] } },
    ],
    accounts: (seed) => ({
      "alice-admin": { roles: ["admin"], email: "alice@appliance.example" },
      "bob-analyst": { roles: ["compliance_analyst"], tenantId: seed.id, email: "bob@bank.example" },
      "carol-auditor": { roles: ["auditor"], tenantId: seed.id },
      // An IdP that writes UUIDs in upper case (some directories do): the same tenant.
      "dave-upper-case": { roles: ["compliance_analyst"], tenantId: seed.id.toUpperCase() },
    }),
  });
});
afterAll(() => stack?.close());

describe("authorization code + PKCE (browserless console login)", () => {
  test("an admin account's token lists tenants", async () => {
    const login = await pkceLogin({
      issuer: stack.idp.issuer,
      clientId: "aml-admin-console",
      redirectUri: stack.idp.consoleRedirectUri,
      loginHint: "alice-admin",
      scope: CONSOLE_SCOPE,
    });
    expect(jwtPayload(login.accessToken)).toMatchObject({ sub: "alice-admin", aud: "aml-api", roles: ["admin"] });
    const res = await api<{ items: Tenant[] }>("GET", "/v1/tenants", { credential: { bearer: login.accessToken } });
    expect(res.status).toBe(200);
    expect(res.body.items.map((t) => t.id)).toContain(stack.seed.id);
  });

  test("an analyst account with tenant_id reads that tenant's usage and audit, but not the admin API", async () => {
    const token = await stack.idp.authCodePkceToken({ accountId: "bob-analyst" });
    const bearer = { bearer: token };
    await api("PUT", `/v1/tenants/${stack.seed.id}/quota`, {
      credential: { bearer: await stack.token() },
      body: { monthlyScreeningQuota: 777 },
    });
    const usage = await api<Usage>("GET", "/v1/usage", { credential: bearer });
    expect(usage.status).toBe(200);
    expect(usage.body).toMatchObject({ limit: 777, unlimited: false });
    const audit = await api<AuditPage>("GET", "/v1/audit", { credential: bearer });
    expect(audit.status).toBe(200);
    expect(audit.body.items.map((e) => e.action)).toContain("tenant.create");
    expect((await api("GET", "/v1/tenants", { credential: bearer })).status).toBe(403);
  });

  test("an auditor account reads the tenant's usage", async () => {
    const token = await stack.idp.authCodePkceToken({ accountId: "carol-auditor" });
    expect((await api("GET", "/v1/usage", { credential: { bearer: token } })).status).toBe(200);
  });
});

describe("hostile tokens → 401 problem+json on the real server", () => {
  let tokens: ReturnType<typeof hostileTokens>;
  beforeAll(() => {
    tokens = hostileTokens(stack.idp);
  });

  async function expectUnauthenticated(token: string): Promise<void> {
    for (const [method, path] of [
      ["GET", "/v1/tenants"],
      ["GET", "/v1/usage"],
    ] as const) {
      const res = await api<Problem>(method, path, { credential: { bearer: token } });
      expect({ path, status: res.status, code: res.body?.code }).toEqual({ path, status: 401, code: "UNAUTHENTICATED" });
      expect(res.headers.get("content-type")).toStartWith("application/problem+json");
      expect(res.headers.get("www-authenticate")).toContain("Bearer");
      expect(res.body.correlationId).toBeString();
      expect(res.text).not.toContain(token);
    }
  }

  test("control: the same claims, correctly signed, are accepted", async () => {
    const token = await tokens.valid({ tenant_id: stack.seed.id });
    expect((await api("GET", "/v1/tenants", { credential: { bearer: token } })).status).toBe(200);
    expect((await api("GET", "/v1/usage", { credential: { bearer: token } })).status).toBe(200);
  });

  const cases: Array<[string, (t: ReturnType<typeof hostileTokens>) => Promise<string> | string]> = [
    ["expired", (t) => t.expired()],
    ["not yet valid", (t) => t.notYetValid()],
    ["wrong audience", (t) => t.wrongAudience()],
    ["wrong issuer", (t) => t.wrongIssuer()],
    ["tampered signature", (t) => t.tamperedSignature()],
    ["tampered payload (self-promoted role)", (t) => t.tamperedPayload()],
    ["alg none", (t) => t.algNone()],
    ["HS256 keyed with the public key PEM", (t) => t.hs256WithPublicKeyPem()],
    ["HS256 keyed with the public JWK JSON", (t) => t.hs256WithPublicJwkJson()],
    ["header alg differs from the key's alg", (t) => t.algMismatch()],
    ["signed by an unpublished key", (t) => t.unknownKey()],
    ["foreign key under the real kid", (t) => t.foreignKeyWithRealKid()],
    ["no sub", (t) => t.withoutSubject()],
    ["no exp", (t) => t.withoutExp()],
  ];
  test.each(cases)("%s", async (_name, make) => {
    await expectUnauthenticated(await make(tokens));
  });

  test("garbage and a wrong scheme → 401", async () => {
    await expectUnauthenticated("not.a.jwt");
    const res = await api<Problem>("GET", "/v1/usage", { headers: { authorization: `Basic ${btoa("a:b")}` } });
    expect(res.status).toBe(401);
  });
});

describe("a roles claim written as one string", () => {
  test("is one role name: \"not admin\" or a group name ending in admin is not the admin role", async () => {
    for (const roles of ["not admin", "auditor-but-not admin", "viewer admin"]) {
      const token = await stack.idp.mintRaw(validClaims(stack.idp, { roles }));
      const res = await api<Problem>("POST", "/v1/tenants", {
        credential: { bearer: token },
        body: { name: "Forged Bank", slug: `forged-${crypto.randomUUID().slice(0, 8)}`, contactEmail: "x@forged.example" },
      });
      expect({ roles, status: res.status, code: res.body.code }).toEqual({ roles, status: 403, code: "FORBIDDEN" });
    }
    const admin = await stack.idp.mintRaw(validClaims(stack.idp, { roles: "admin" }));
    expect((await api("GET", "/v1/tenants", { credential: { bearer: admin } })).status).toBe(200);
  });
});

describe("tenant-scoped endpoints need a usable tenant in the token", () => {
  test("no tenant_id → 403 NO_USABLE_TENANT (analyst and admin alike)", async () => {
    for (const clientId of ["analyst-no-tenant", "aml-admin-cli"]) {
      const res = await api<Problem>("GET", "/v1/usage", { credential: { bearer: await stack.token(clientId) } });
      expect({ clientId, status: res.status, code: res.body.code }).toEqual({ clientId, status: 403, code: "NO_USABLE_TENANT" });
      expect(res.headers.get("content-type")).toStartWith("application/problem+json");
    }
  });

  test("a tenant_id UUID in upper case names the same tenant", async () => {
    const token = await stack.idp.authCodePkceToken({ accountId: "dave-upper-case" });
    expect(jwtPayload(token).tenant_id).toBe(stack.seed.id.toUpperCase());
    const res = await api<Usage>("GET", "/v1/usage", { credential: { bearer: token } });
    expect(res.status).toBe(200);
    const audit = await api<AuditPage>("GET", "/v1/audit", { credential: { bearer: token } });
    expect(audit.status).toBe(200);
  });

  test("a tenant_id of another type than a string → 403 NO_USABLE_TENANT saying what the claim is", async () => {
    for (const [clientId, kind] of [
      ["analyst-number-tenant", "a number"],
      ["analyst-list-tenant", "a list of 2 values"],
    ] as const) {
      const res = await api<Problem>("GET", "/v1/usage", { credential: { bearer: await stack.token(clientId) } });
      expect({ clientId, status: res.status, code: res.body.code }).toEqual({ clientId, status: 403, code: "NO_USABLE_TENANT" });
      expect(res.body.detail).toBe(`The credential carries no usable tenant: its tenant_id claim is ${kind}, not one tenant id or slug (a string).`);
    }
  });

  test("a tenant_id naming no tenant (id or slug) → 403 NO_USABLE_TENANT", async () => {
    for (const clientId of ["analyst-ghost-tenant", "analyst-ghost-slug"]) {
      const res = await api<Problem>("GET", "/v1/audit", { credential: { bearer: await stack.token(clientId) } });
      expect({ clientId, status: res.status, code: res.body.code }).toEqual({ clientId, status: 403, code: "NO_USABLE_TENANT" });
    }
  });
});

describe("no issuer configured", () => {
  let plain: TestServer;
  let seedKey: string;
  beforeAll(async () => {
    plain = await startTestServer();
    seedKey = makeTenant(plain.ctx).apiKey;
  });
  afterAll(() => plain?.close());

  test("any bearer JWT → 401, even one the IdP really issued; API keys still work", async () => {
    const issued = await stack.token();
    const crafted = await hostileTokens(stack.idp).valid();
    for (const token of [issued, crafted]) {
      for (const path of ["/v1/tenants", "/v1/usage"]) {
        const res = await call<Problem>(plain.url, "GET", path, { credential: { bearer: token } });
        expect({ path, status: res.status, code: res.body.code }).toEqual({ path, status: 401, code: "UNAUTHENTICATED" });
        expect(res.body.detail).toContain("no OpenID issuer is configured");
      }
    }
    const credentials: Credential[] = [{ apiKey: seedKey }, { bearer: seedKey }];
    for (const credential of credentials) {
      expect((await call(plain.url, "GET", "/v1/usage", { credential })).status).toBe(200);
    }
  });
});
