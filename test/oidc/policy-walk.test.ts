// Walks the whole policy table the appliance serves at GET /docs/policies (derived from the routes
// themselves, so routes added later are covered without touching this file) and calls every route
// as every role, by bearer token and by API key: a role the policy allows never gets 401/403, one
// it does not allow gets exactly 403 FORBIDDEN, and no credential gets 401.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { serverExtensions } from "@/cli/extensions";
import { secured } from "@/http/guard";
import { createApp } from "@/http/app";
import { type PolicyRow, policyTable, rolesFor } from "@/http/policy-table";
import { POLICIES_DOC, policiesDocument, servedPolicyTable } from "../../scripts/gen-policy-table";
import { makeTenant } from "../helpers/tenants";
import { call, type Credential, type OidcStack, type Problem, startOidcStack } from "./harness";

let stack: OidcStack;
/** Path parameter {id} of the admin routes: a tenant of its own, so destructive calls never touch the callers' tenant. */
let targetTenantId: string;
let served: PolicyRow[];

type Caller = { name: string; credential: Credential; roles: readonly string[]; bearer: boolean };
let callers: Caller[];

beforeAll(async () => {
  stack = await startOidcStack({
    clients: (seed) => [
      { clientId: "walk-analyst", clientSecret: "w1", roles: ["compliance_analyst"], tenantId: seed.id },
      { clientId: "walk-auditor", clientSecret: "w2", roles: ["auditor"], tenantId: seed.id },
      { clientId: "walk-admin", clientSecret: "w3", roles: ["admin"], tenantId: seed.id },
    ],
    // The same capabilities `aml serve` runs, so their routes are walked too.
    extensions: serverExtensions,
  });
  targetTenantId = makeTenant(stack.server.ctx).tenant.id;
  callers = [
    { name: "analyst token", credential: { bearer: await stack.token("walk-analyst") }, roles: ["compliance_analyst"], bearer: true },
    { name: "auditor token", credential: { bearer: await stack.token("walk-auditor") }, roles: ["auditor"], bearer: true },
    { name: "admin token", credential: { bearer: await stack.token("walk-admin") }, roles: ["admin"], bearer: true },
    { name: "analyst API key", credential: { apiKey: stack.seed.apiKey }, roles: ["compliance_analyst"], bearer: false },
    { name: "auditor API key", credential: { apiKey: stack.seed.auditorApiKey }, roles: ["auditor"], bearer: false },
  ];
  const res = await call<{ items: PolicyRow[] }>(stack.server.url, "GET", "/docs/policies");
  expect(res.status).toBe(200);
  served = res.body.items;
});
afterAll(() => stack?.close());

/** Fills path parameters: {id} under /v1/tenants is the target tenant, anything else a fresh UUID. */
function concretePath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, (_m, name: string) =>
    name === "id" && path.startsWith("/v1/tenants/") ? targetTenantId : crypto.randomUUID(),
  );
}

function allows(row: PolicyRow, caller: Caller): boolean {
  if (row.policy === "public") return true;
  if (row.credentials === "bearer only" && !caller.bearer) return false;
  return rolesFor(row.policy).some((role) => caller.roles.includes(role));
}

async function hit(row: PolicyRow, credential: Credential) {
  const body = ["POST", "PUT", "PATCH"].includes(row.method) ? {} : undefined;
  return call<Problem>(stack.server.url, row.method, concretePath(row.path), { credential, body });
}

describe("GET /docs/policies", () => {
  test("is public and lists the known routes with their policies", () => {
    const find = (method: string, path: string) => served.find((r) => r.method === method && r.path === path);
    expect(find("GET", "/v1/usage")).toEqual({ method: "GET", path: "/v1/usage", policy: "Screening.Read", credentials: "api key or bearer" });
    expect(find("GET", "/v1/audit")?.policy).toBe("Screening.Read");
    expect(find("POST", "/v1/tenants")).toEqual({ method: "POST", path: "/v1/tenants", policy: "Admin", credentials: "bearer only" });
    expect(find("DELETE", "/v1/tenants/{id}/api-keys/{keyId}")?.policy).toBe("Admin");
    expect(find("PUT", "/v1/tenants/{id}/quota")?.policy).toBe("Admin");
    expect(find("GET", "/docs/policies")).toEqual({ method: "GET", path: "/docs/policies", policy: "public", credentials: "none" });
    expect(find("GET", "/healthz")?.policy).toBe("public");
  });

  test("leaves out hidden routes (explorer, its assets, the OpenAPI document) and is sorted", () => {
    expect(served.some((r) => r.path.startsWith("/swagger-ui") || r.path === "/openapi.json")).toBe(false);
    const keys = served.map((r) => `${r.path} ${r.method}`);
    expect(new Set(keys).size).toBe(keys.length);
    const paths = served.map((r) => r.path);
    expect(paths).toEqual([...paths].sort());
  });

  test("equals policyTable() of the same app built in-process", () => {
    const app = createApp({ ...stack.server.ctx, bearer: null, readiness: { checks: () => [] }, extraRoutes: [] });
    const core = policyTable(app);
    // The served table has the extensions' routes on top of the core ones.
    for (const row of core) expect(served).toContainEqual(row);
  });

  test("every guarded route's x-policy agrees with the OpenAPI document's security", async () => {
    const doc = await call<{ paths: Record<string, Record<string, { "x-policy"?: string; security?: unknown[] }>> }>(
      stack.server.url,
      "GET",
      "/openapi.json",
    );
    for (const row of served) {
      const op = doc.body.paths[row.path]?.[row.method.toLowerCase()];
      expect({ route: `${row.method} ${row.path}`, documented: op !== undefined }).toEqual({ route: `${row.method} ${row.path}`, documented: true });
      expect(op?.["x-policy"] ?? "public").toBe(row.policy);
    }
  });

  test("docs/policies.md is what scripts/gen-policy-table.ts generates (regenerate it after adding a route)", async () => {
    const expected = policiesDocument(await servedPolicyTable());
    expect(readFileSync(POLICIES_DOC, "utf8")).toBe(expected);
    // And the script's table is the one the running appliance serves.
    expect(await servedPolicyTable()).toEqual(served);
  });
});

describe("walking the policy table", () => {
  test("every route × every role: allowed → never 401/403; not allowed → exactly 403 FORBIDDEN", async () => {
    expect(served.length).toBeGreaterThanOrEqual(14);
    const mismatches: string[] = [];
    for (const row of served) {
      for (const caller of callers) {
        const res = await hit(row, caller.credential);
        const expectAllowed = allows(row, caller);
        const ok = expectAllowed ? res.status !== 401 && res.status !== 403 : res.status === 403 && res.body?.code === "FORBIDDEN";
        if (!ok) {
          mismatches.push(
            `${row.method} ${row.path} [${row.policy}] as ${caller.name}: expected ${expectAllowed ? "not 401/403" : "403 FORBIDDEN"}, got ${res.status} ${res.body?.code ?? ""}`,
          );
        }
      }
    }
    expect(mismatches).toEqual([]);
  });

  test("every route without a credential: public → not 401/403, guarded → 401", async () => {
    const mismatches: string[] = [];
    for (const row of served) {
      const res = await hit(row, null);
      const ok = row.policy === "public" ? res.status !== 401 && res.status !== 403 : res.status === 401;
      if (!ok) mismatches.push(`${row.method} ${row.path} [${row.policy}] without credential: got ${res.status}`);
    }
    expect(mismatches).toEqual([]);
  });

  test("the callers' tenant and keys survived the walk", async () => {
    expect((await call(stack.server.url, "GET", "/v1/usage", { credential: { apiKey: stack.seed.apiKey } })).status).toBe(200);
  });
});

describe("policyTable()", () => {
  test("reads x-policy from secured(), treats routes without one as public, skips hidden ones", () => {
    const app = new Elysia()
      .get("/b", () => "b", { detail: secured("Screening.Write", { summary: "b", tags: [] }) })
      .post("/a/:thing", () => "a", { detail: secured("Admin", { summary: "a", tags: [] }) })
      .get("/a/:thing", () => "a", { detail: secured("Screening.Read", { summary: "a", tags: [] }) })
      .get("/open", () => "o")
      .get("/hidden", () => "h", { detail: { hide: true } });
    expect(policyTable(app)).toEqual([
      { method: "GET", path: "/a/{thing}", policy: "Screening.Read", credentials: "api key or bearer" },
      { method: "POST", path: "/a/{thing}", policy: "Admin", credentials: "bearer only" },
      { method: "GET", path: "/b", policy: "Screening.Write", credentials: "api key or bearer" },
      { method: "GET", path: "/open", policy: "public", credentials: "none" },
    ]);
  });

  test("an unknown x-policy is a programming error, not a silently public route", () => {
    const detail = { summary: "x", "x-policy": "Screening.Everything" };
    const app = new Elysia().get("/x", () => "x", { detail });
    expect(() => policyTable(app)).toThrow(/unknown x-policy/);
  });
});
