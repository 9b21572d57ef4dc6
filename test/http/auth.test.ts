import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { AuditVerification } from "@/audit/verify";
import type { CallMeta } from "@/context";
import { DB_FILE } from "@/storage/db";
import { issueApiKey, revokeApiKey } from "@/tenants/keys";
import type { Usage } from "@/usage/quota";
import { call, expectProblem, json } from "../helpers/api";
import { runCli } from "../helpers/cli";
import { startTestServer, type TestServer } from "../helpers/server";
import { makeTenant } from "../helpers/tenants";

/** Credentials on tenant routes: 401 for anything that is not a live key, 403 when the tenant is unusable. */
let server: TestServer;
const operator: CallMeta = { actor: { type: "cli", id: "auth-test" } };

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});

const usage = (headers: Record<string, string>) => call(server.url, "/v1/usage", { headers });

describe("401 for missing or unusable credentials", () => {
  test("no credential at all", async () => {
    const body = expectProblem(await usage({}), 401, "UNAUTHENTICATED", "/v1/usage");
    expect(body.detail).toContain("No credential");
  });

  test.each([
    ["Bearer without a token", { authorization: "Bearer" }],
    ["Bearer with only spaces", { authorization: "Bearer    " }],
    ["Basic scheme", { authorization: "Basic dXNlcjpwYXNz" }],
    ["a garbage X-Api-Key", { "x-api-key": "not-a-key" }],
    ["an empty X-Api-Key", { "x-api-key": "" }],
    ["a key with the right prefix and a short tail", { "x-api-key": "aml_live_abc" }],
    ["a well-formed key nobody issued", { "x-api-key": `aml_live_${"Z".repeat(40)}` }],
    ["a well-formed unknown key as Bearer", { authorization: `Bearer aml_live_${"Q".repeat(40)}` }],
  ])("%s", async (_name, headers) => {
    expectProblem(await usage(headers), 401, "UNAUTHENTICATED", "/v1/usage");
  });

  test("a key that shares the lookup prefix of a real key but differs in its tail", async () => {
    const { apiKey } = makeTenant(server.ctx);
    const last = apiKey.at(-1) === "a" ? "b" : "a";
    const forged = `${apiKey.slice(0, -1)}${last}`;
    expect((await usage({ "x-api-key": apiKey })).status).toBe(200);
    expectProblem(await usage({ "x-api-key": forged }), 401, "UNAUTHENTICATED");
  });

  test("a JWT-looking bearer token is refused when no OpenID issuer is configured", async () => {
    const jwt = "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJhZG1pbiIsInJvbGVzIjpbImFkbWluIl19.c2lnbmF0dXJl";
    const body = expectProblem(await usage({ authorization: `Bearer ${jwt}` }), 401, "UNAUTHENTICATED");
    expect(body.detail).toContain("no OpenID issuer");
  });

  test("X-Api-Key and Authorization: Bearer together are refused, whichever of them is good", async () => {
    const a = makeTenant(server.ctx);
    const b = makeTenant(server.ctx);
    for (const headers of [
      { "x-api-key": "nope", authorization: `Bearer ${a.apiKey}` },
      { "x-api-key": a.apiKey, authorization: "Bearer garbage" },
      // Two good keys of two tenants: acting for either would be a guess.
      { "x-api-key": a.apiKey, authorization: `Bearer ${b.apiKey}` },
      { "x-api-key": a.apiKey, authorization: `bearer ${a.apiKey}` },
    ]) {
      const body = expectProblem(await usage(headers), 401, "UNAUTHENTICATED");
      expect(body.detail).toBe("Two credentials were sent, X-Api-Key and Authorization: Bearer; send exactly one.");
    }
  });

  test("an Authorization of another scheme (Basic, for a proxy in front) beside X-Api-Key is left to the proxy", async () => {
    const { apiKey } = makeTenant(server.ctx);
    expect((await usage({ "x-api-key": apiKey, authorization: "Basic dXNlcjpwYXNz" })).status).toBe(200);
  });
});

describe("accepted credentials", () => {
  test("an API key works in X-Api-Key and as Authorization: Bearer (any scheme case)", async () => {
    const { apiKey } = makeTenant(server.ctx, { monthlyScreeningQuota: 12 });
    const variants: Array<Record<string, string>> = [
      { "x-api-key": apiKey },
      { "x-api-key": `  ${apiKey}  ` },
      { authorization: `Bearer ${apiKey}` },
      { authorization: `bearer ${apiKey}` },
    ];
    for (const headers of variants) {
      const res = await usage(headers);
      expect(res.status).toBe(200);
      expect(json<Usage>(res)).toMatchObject({ used: 0, limit: 12, remaining: 12, unlimited: false });
    }
  });

  test("an auditor key reads usage, the audit log and its verification", async () => {
    const tenant = makeTenant(server.ctx);
    const auditor = issueApiKey(server.ctx, { tenant: tenant.tenant.id, role: "auditor", label: "audit team" }, operator);
    expect(auditor.key.role).toBe("auditor");
    expect((await call(server.url, "/v1/usage", { key: auditor.apiKey })).status).toBe(200);
    const audit = await call(server.url, "/v1/audit", { key: auditor.apiKey });
    expect(audit.status).toBe(200);
    expect(json<{ total: number }>(audit).total).toBe(3);
    const verify = await call(server.url, "/v1/audit/verify", { key: auditor.apiKey });
    expect(verify.status).toBe(200);
    expect(json<AuditVerification>(verify).intact).toBe(true);
  });
});

describe("revocation takes effect on the next request", () => {
  test("revoked through the domain verb in this process", async () => {
    const tenant = makeTenant(server.ctx);
    expect((await call(server.url, "/v1/usage", { key: tenant.apiKey })).status).toBe(200);
    revokeApiKey(server.ctx, { tenant: tenant.tenant.id, keyId: tenant.apiKeyId }, operator);
    const body = expectProblem(await call(server.url, "/v1/usage", { key: tenant.apiKey }), 401, "UNAUTHENTICATED");
    expect(body.detail).toContain("revoked");
  });

  test("revoked by `aml key revoke` in another process while the server runs", async () => {
    const tenant = makeTenant(server.ctx);
    const spare = issueApiKey(server.ctx, { tenant: tenant.tenant.id, label: "spare" }, operator);
    expect((await call(server.url, "/v1/usage", { key: tenant.apiKey })).status).toBe(200);

    const cli = await runCli(["key", "revoke", tenant.tenant.slug, tenant.apiKeyId], { dataDir: server.dataDir });
    expect(cli.stderr).toBe("");
    expect(cli.code).toBe(0);

    expectProblem(await call(server.url, "/v1/usage", { key: tenant.apiKey }), 401, "UNAUTHENTICATED");
    expectProblem(await call(server.url, "/v1/usage", { headers: { authorization: `Bearer ${tenant.apiKey}` } }), 401, "UNAUTHENTICATED");
    expect((await call(server.url, "/v1/usage", { key: spare.apiKey })).status).toBe(200);
  });
});

describe("403 NO_USABLE_TENANT", () => {
  test("a suspended tenant's keys are refused until it is reactivated", async () => {
    const tenant = makeTenant(server.ctx);
    const admin = new Database(`${server.dataDir}/${DB_FILE}`);
    try {
      admin.run("UPDATE tenants SET status = 'suspended' WHERE id = ?", [tenant.tenant.id]);
      for (const path of ["/v1/usage", "/v1/audit", "/v1/audit/verify"]) {
        expectProblem(await call(server.url, path, { key: tenant.apiKey }), 403, "NO_USABLE_TENANT", path);
      }
      admin.run("UPDATE tenants SET status = 'active' WHERE id = ?", [tenant.tenant.id]);
      expect((await call(server.url, "/v1/usage", { key: tenant.apiKey })).status).toBe(200);
    } finally {
      admin.close();
    }
  });
});
