// Admin writes while another process holds SQLite's write lock (an `aml lists import` or a CLI
// command mid-transaction). A write waits for the lock in the group commit's lane, up to the
// connection's busy_timeout; a request that can never be written (a bad body, an unknown tenant or
// delivery) must not wait with it: it is refused at once, and nothing is written.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { startIndex } from "@/matching/index";
import { screeningExtension } from "@/screening/extension";
import { DB_FILE } from "@/storage/db";
import { watchlistExtension } from "@/watchlists/extension";
import { webhookExtension } from "@/webhooks/extension";
import { type CallResult, call, type Credential, type OidcStack, type Problem, startOidcStack } from "./harness";

/** Long enough that a request waiting for the lock is still waiting when the refusals are checked. */
const SERVER_BUSY_TIMEOUT_MS = 20_000;
const UNKNOWN_ID = "00000000-0000-4000-8000-000000000000";

let stack: OidcStack;
let admin: Credential;
let other: Database;

beforeAll(async () => {
  stack = await startOidcStack({
    extensions: async () => {
      const watchlists = watchlistExtension(startIndex, { pollMs: 100 });
      return [watchlists, screeningExtension(watchlists), webhookExtension()];
    },
  });
  admin = { bearer: await stack.token() };
  stack.server.ctx.db.sqlite.run(`PRAGMA busy_timeout = ${SERVER_BUSY_TIMEOUT_MS}`);
  other = new Database(join(stack.server.dataDir, DB_FILE));
});
afterAll(async () => {
  if (other?.inTransaction) other.run("ROLLBACK");
  other?.close();
  await stack?.close();
});

const tenantPath = `/v1/tenants/${"{id}"}`;
const path = (template: string, id: string) => template.replace("{id}", id);

/** Every row an admin write or a redelivery changes. */
function footprint(): string {
  const db = stack.server.ctx.db.sqlite;
  const all = (sql: string) => db.query(sql).all();
  return JSON.stringify([
    all("SELECT * FROM tenants ORDER BY id"),
    all("SELECT * FROM api_keys ORDER BY id"),
    all("SELECT * FROM risk_profiles ORDER BY tenant_id"),
    all("SELECT * FROM webhook_outbox ORDER BY id"),
    all("SELECT count(*) AS n FROM audit_log"),
  ]);
}

test("while another process holds the write lock, admin requests that cannot be written are refused at once, and a valid one waits and then commits", async () => {
  const tenant = stack.seed.id;
  const api = (method: string, route: string, body?: unknown, credential: Credential = admin) =>
    call(stack.server.url, method, route, { credential, ...(body === undefined ? {} : { body }) });
  const before = footprint();

  other.run("BEGIN IMMEDIATE");
  let refusals: Array<{ name: string; expected: number; result: CallResult }>;
  let quota: Promise<CallResult>;
  let quotaSettled = false;
  try {
    const cases: Array<{ name: string; expected: number; send: () => Promise<CallResult> }> = [
      { name: "quota: negative", expected: 400, send: () => api("PUT", `${path(tenantPath, tenant)}/quota`, { monthlyScreeningQuota: -1 }) },
      { name: "quota: unknown tenant", expected: 404, send: () => api("PUT", `${path(tenantPath, UNKNOWN_ID)}/quota`, { monthlyScreeningQuota: 5 }) },
      { name: "risk profile: out of range", expected: 400, send: () => api("PUT", `${path(tenantPath, tenant)}/risk-profile`, { threshold: 7 }) },
      { name: "risk profile: unknown tenant", expected: 404, send: () => api("PUT", `${path(tenantPath, UNKNOWN_ID)}/risk-profile`, {}) },
      { name: "suspend: no reason", expected: 400, send: () => api("POST", `${path(tenantPath, tenant)}/suspend`, {}) },
      { name: "resume: unknown tenant", expected: 404, send: () => api("POST", `${path(tenantPath, UNKNOWN_ID)}/resume`, { reason: "back" }) },
      { name: "api key: unknown tenant", expected: 404, send: () => api("POST", `${path(tenantPath, UNKNOWN_ID)}/api-keys?label=x`) },
      { name: "revoke: unknown tenant", expected: 404, send: () => api("DELETE", `${path(tenantPath, UNKNOWN_ID)}/api-keys/${stack.seed.apiKeyId}`) },
      { name: "revoke: unknown key", expected: 404, send: () => api("DELETE", `${path(tenantPath, tenant)}/api-keys/${UNKNOWN_ID}`) },
      { name: "secret rotation: unknown tenant", expected: 404, send: () => api("POST", `${path(tenantPath, UNKNOWN_ID)}/webhook/secret`) },
      {
        name: "bulk redelivery: bad status",
        expected: 400,
        send: () => api("POST", "/v1/webhooks/deliveries/redeliver", { status: "lost" }, { apiKey: stack.seed.apiKey }),
      },
      {
        name: "redelivery: unknown delivery",
        expected: 404,
        send: () => api("POST", `/v1/webhooks/deliveries/${UNKNOWN_ID}/redeliver`, undefined, { apiKey: stack.seed.apiKey }),
      },
    ];
    quota = api("PUT", `${path(tenantPath, tenant)}/quota`, { monthlyScreeningQuota: 77 }).finally(() => {
      quotaSettled = true;
    });
    // Awaited with the lock still held: a refusal that waited for it would take busy_timeout (20 s).
    refusals = await Promise.all(cases.map(async (c) => ({ name: c.name, expected: c.expected, result: await c.send() })));
    expect(quotaSettled).toBe(false);
  } finally {
    other.run("ROLLBACK");
  }

  for (const { name, expected, result } of refusals) {
    expect({ name, status: result.status }).toEqual({ name, status: expected });
    expect((result.body as unknown as Problem).code).toBe(expected === 400 ? "VALIDATION_FAILED" : "NOT_FOUND");
  }
  expect(footprint()).toBe(before);

  const set = await quota;
  expect(set.status).toBe(200);
  expect(set.body["monthlyScreeningQuota"]).toBe(77);
});
