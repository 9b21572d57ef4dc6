import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { AuditEntry } from "@/audit/rows";
import type { AuditVerification } from "@/audit/verify";
import type { CallMeta } from "@/context";
import { writeTx } from "@/storage/db";
import type { CreatedTenant } from "@/tenants/create";
import { issueApiKey, revokeApiKey } from "@/tenants/keys";
import { setQuota } from "@/tenants/quota";
import { chargeScreens, type Usage } from "@/usage/quota";
import { call, json } from "../helpers/api";
import { tamperAuditLog } from "../helpers/audit";
import { startTestServer, type TestServer } from "../helpers/server";
import { makeTenant } from "../helpers/tenants";

/** Two tenants on one appliance: each key sees only its own tenant's audit chain, usage and verification. */
let server: TestServer;
let a: CreatedTenant;
let b: CreatedTenant;
const operator: CallMeta = { actor: { type: "cli", id: "isolation-test" } };

interface AuditPage {
  items: AuditEntry[];
  total: number;
}

beforeAll(async () => {
  server = await startTestServer();
  a = makeTenant(server.ctx);
  b = makeTenant(server.ctx);
  // B gets a busier history than A, so a leak would show up in counts as well as in ids.
  const extra = issueApiKey(server.ctx, { tenant: b.tenant.id, label: "b-extra" }, operator);
  revokeApiKey(server.ctx, { tenant: b.tenant.id, keyId: extra.key.keyId }, operator);
  setQuota(server.ctx, b.tenant.id, { monthlyScreeningQuota: 100 }, operator);
  writeTx(server.ctx.db, () => chargeScreens(server.ctx.db, b.tenant.id, 7, new Date()));
});
afterAll(async () => {
  await server.close();
});

async function auditOf(tenant: CreatedTenant, query = ""): Promise<AuditPage> {
  const res = await call(server.url, `/v1/audit${query}`, { key: tenant.apiKey });
  expect(res.status).toBe(200);
  return json<AuditPage>(res);
}

describe("tenant isolation", () => {
  test("A's audit log holds only A's entries, B's only B's", async () => {
    const pageA = await auditOf(a);
    const pageB = await auditOf(b);
    expect(pageA.items.map((e) => e.action)).toEqual(["api_key.issue", "tenant.create"]);
    expect(pageB.items.map((e) => e.action)).toEqual(["quota.set", "api_key.revoke", "api_key.issue", "api_key.issue", "tenant.create"]);
    const idsB = new Set(pageB.items.map((e) => e.id));
    expect(pageA.items.some((e) => idsB.has(e.id))).toBe(false);
    expect(pageA.items.find((e) => e.action === "tenant.create")?.targetId).toBe(a.tenant.id);
    expect(pageA.items.some((e) => e.targetId === b.tenant.id || e.targetId === b.apiKeyId)).toBe(false);
  });

  test("filters cannot reach across: A asking for quota.set or api_key.revoke sees nothing", async () => {
    expect((await auditOf(a, "?action=quota.set")).total).toBe(0);
    expect((await auditOf(a, "?action=api_key.revoke")).items).toEqual([]);
    expect((await auditOf(b, "?action=quota.set")).total).toBe(1);
  });

  test("A's CSV export carries none of B's ids", async () => {
    const res = await call(server.url, "/v1/audit?format=csv", { key: a.apiKey });
    expect(res.status).toBe(200);
    expect(res.text).toContain(a.tenant.id);
    expect(res.text).not.toContain(b.tenant.id);
    expect(res.text).not.toContain(b.apiKeyId);
  });

  test("usage is per tenant: B's charges do not show on A", async () => {
    const usageA = json<Usage>(await call(server.url, "/v1/usage", { key: a.apiKey }));
    const usageB = json<Usage>(await call(server.url, "/v1/usage", { key: b.apiKey }));
    expect(usageA).toMatchObject({ used: 0, limit: null, unlimited: true });
    expect(usageB).toMatchObject({ used: 7, limit: 100, remaining: 93, unlimited: false });
  });

  test("verification walks only the caller's chain", async () => {
    const verifyA = json<AuditVerification>(await call(server.url, "/v1/audit/verify", { key: a.apiKey }));
    const verifyB = json<AuditVerification>(await call(server.url, "/v1/audit/verify", { key: b.apiKey }));
    const newestA = (await auditOf(a)).items[0];
    const newestB = (await auditOf(b)).items[0];
    expect(verifyA).toMatchObject({ intact: true, entriesChecked: 2, lastHash: newestA?.hash });
    expect(verifyB).toMatchObject({ intact: true, entriesChecked: 5, lastHash: newestB?.hash });
  });

  test("tampering with B's chain does not make A's verification fail, and is invisible to A", async () => {
    tamperAuditLog(server.dataDir, "audit_log_no_update", (db) =>
      db.run("UPDATE audit_log SET details = '{}' WHERE chain = ? AND seq = 1", [b.tenant.id]),
    );
    const verifyA = json<AuditVerification>(await call(server.url, "/v1/audit/verify", { key: a.apiKey }));
    const verifyB = json<AuditVerification>(await call(server.url, "/v1/audit/verify", { key: b.apiKey }));
    expect(verifyA.intact).toBe(true);
    expect(verifyB).toMatchObject({ intact: false, reason: "hash_mismatch" });
  });
});
