import { afterAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { importListFiles } from "@/watchlists/import";
import { openDb } from "@/storage/db";
import { allExtensions, fixtureFiles } from "../helpers/lists";
import { startTestServer, type TestServer, tempDataDir } from "../helpers/server";
import { makeTenant } from "../helpers/tenants";
import { duplicateIds, startWebhookReceiver } from "../helpers/webhook-receiver";

/**
 * The first Must-show in one run, with real screening traffic: check, rescreen and bulk while
 * the tenant's receiver is down, the appliance restarted in between, then the receiver back. Every
 * successful screen's event arrives exactly once, signed and without personal data, and nothing
 * arrives for the failed bulk row or for the read.
 */
const PERSONAL = ["Dmitri", "Korvalev", "KORVALEV", "Ottoline", "Vanderloop", "VANDERLOOP", "Aldous", "Quentrell", "QUENTRELL"];
/** Retries every 200-400 ms for up to 300 attempts (a minute or more): the outage below is well inside the window, however slow the machine. */
const WEBHOOKS = { retryDelaysMs: [400], maxAttempts: 300, intervalMs: 25, leaseMs: 5_000 };
const FLAGS = { webhooks: { allowPrivateNetworks: ["127.0.0.1"], timeoutMs: 2_000 } };

const dataDir = tempDataDir("aml-outage-restart-");
const running: TestServer[] = [];
afterAll(async () => {
  for (const server of running.splice(0)) await server.close().catch(() => undefined);
  rmSync(dataDir, { recursive: true, force: true });
});

async function appliance(): Promise<TestServer> {
  const server = await startTestServer({ dataDir, extensions: allExtensions({ webhooks: WEBHOOKS }).extensions, flags: FLAGS });
  running.push(server);
  return server;
}

test("receiver down, appliance restarted, receiver back: one event per successful screen, none lost or duplicated", async () => {
  const seed = openDb(dataDir);
  try {
    await importListFiles(seed, fixtureFiles(), { actor: { type: "cli", id: "test" } });
  } finally {
    seed.close();
  }
  const receiver = await startWebhookReceiver();
  await receiver.stop();

  const first = await appliance();
  const tenant = makeTenant(first.ctx, { webhookUrl: receiver.url });
  receiver.secret = tenant.webhookSigningSecret ?? "";
  const post = (path: string, body: unknown) =>
    fetch(`${first.url}${path}`, { method: "POST", headers: { "x-api-key": tenant.apiKey, "content-type": "application/json" }, body: JSON.stringify(body) });

  const check = await post("/v1/screenings/check", { fullName: "Dmitri Korvalev", userReference: "outage-1" });
  expect(check.status).toBe(200);
  const checkId = ((await check.json()) as { id: string }).id;
  const read = await fetch(`${first.url}/v1/screenings/${checkId}`, { headers: { "x-api-key": tenant.apiKey } });
  expect(read.status).toBe(200);
  const rescreen = await post(`/v1/screenings/${checkId}/rescreen`, null);
  expect(rescreen.status).toBe(200);
  const rescreenId = ((await rescreen.json()) as { id: string }).id;
  const bulk = await post("/v1/screenings/bulk", [{ fullName: "Ottoline Vanderloop" }, { fullName: "" }, { fullName: "Aldous Quentrell" }]);
  expect(bulk.status).toBe(200);
  const bulkBody = (await bulk.json()) as { rows: Array<{ screeningId: string | null }>; summary: { screened: number; failed: number } };
  expect(bulkBody.summary).toMatchObject({ screened: 2, failed: 1 });
  const expected = [checkId, rescreenId, ...bulkBody.rows.flatMap((r) => (r.screeningId ? [r.screeningId] : []))].sort();
  expect(expected).toHaveLength(4);

  // Every event has failed at least once against the stopped receiver before the appliance stops.
  const failedOnce = () =>
    first.ctx.db.sqlite.query<{ n: number }, []>("SELECT count(DISTINCT outbox_id) AS n FROM webhook_attempts WHERE status_code IS NULL").get()?.n ?? 0;
  for (let waited = 0; failedOnce() < expected.length && waited < 10_000; waited += 25) await Bun.sleep(25);
  expect(failedOnce()).toBe(expected.length);
  // A clean stop (SIGTERM's path); the data folder stays, as it was given.
  await first.close();
  running.splice(running.indexOf(first), 1);

  const second = await appliance();
  await receiver.start();
  await receiver.waitUntil(() => receiver.delivered.length >= expected.length, 15_000);
  // Long enough for a stray duplicate (a retry, a second dispatcher) to show up.
  await Bun.sleep(1_000);

  expect(receiver.rejected).toEqual([]);
  expect(duplicateIds(receiver.delivered)).toEqual([]);
  expect(receiver.delivered.map((d) => String(d.body["screeningId"])).sort()).toEqual(expected);
  for (const delivery of receiver.delivered) {
    expect(delivery.event).toBe("screening.completed");
    for (const text of PERSONAL) expect(delivery.rawBody).not.toContain(text);
  }
  const statuses = second.ctx.db.sqlite
    .query<{ status: string; n: number }, [string]>("SELECT status, count(*) AS n FROM webhook_outbox WHERE tenant_id = ? GROUP BY status")
    .all(tenant.tenant.id);
  expect(statuses).toEqual([{ status: "delivered", n: 4 }]);
});
