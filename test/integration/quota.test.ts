import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import type { AppContext, CallMeta } from "@/context";
import { ServiceError } from "@/errors";
import { type Db, openDb, writeTx } from "@/storage/db";
import { setQuota } from "@/tenants/quota";
import { assertQuotaFits, chargeScreens, getUsage, precheckOneScreen, UNLIMITED_REMAINING, type Usage } from "@/usage/quota";
import { call, json } from "../helpers/api";
import { runCli } from "../helpers/cli";
import { startTestServer, type TestServer, tempDataDir } from "../helpers/server";
import { makeTenant } from "../helpers/tenants";

/** The monthly quota on real SQLite files: exact under concurrency across connections and processes. */
const REPO = join(import.meta.dir, "..", "..");
const CHARGER = join(REPO, "test/fixtures/quota/charge.ts");
const operator: CallMeta = { actor: { type: "cli", id: "quota-test" } };
const AT = new Date("2026-03-15T12:00:00.000Z");

let server: TestServer | null = null;
afterAll(async () => {
  await server?.close();
});

async function context(): Promise<AppContext> {
  server ??= await startTestServer();
  return server.ctx;
}

interface Outcome {
  ok: boolean;
  used: number;
  code?: string;
  status?: number;
  detail?: string;
  limit?: number;
  remaining?: number;
}

function charge(db: Db, tenantId: string, count: number, at: Date): Outcome {
  try {
    // recordsOnly, as the screening commit declares it: the charge then goes through the row cache.
    return { ok: true, used: writeTx(db, () => chargeScreens(db, tenantId, count, at), { recordsOnly: true }).used };
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    const extra = error.extensions as { used: number; limit: number; remaining: number };
    return { ok: false, code: error.code, status: error.status, detail: error.message, ...extra };
  }
}

function expectExactlyCapped(outcomes: Outcome[], cap: number, total: number): void {
  expect(outcomes.length).toBe(total);
  const won = outcomes.filter((o) => o.ok);
  const refused = outcomes.filter((o) => !o.ok);
  expect(won.length).toBe(cap);
  // Each success saw a distinct counter value: no two charges read the same "used".
  expect(won.map((o) => o.used).sort((x, y) => x - y)).toEqual(Array.from({ length: cap }, (_, i) => i + 1));
  expect(refused.length).toBe(total - cap);
  for (const r of refused) {
    expect(r).toMatchObject({ code: "QUOTA_EXCEEDED", status: 429, used: cap, limit: cap, remaining: 0 });
    expect(r.detail).toContain(`used ${cap} of limit ${cap}`);
  }
}

describe("429 wording", () => {
  const READS = "Reads and /v1/usage keep working.";
  const refusal = (db: Db, tenantId: string, count: number) => {
    try {
      assertQuotaFits(db, tenantId, count, AT);
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      return { detail: error.message, extensions: error.extensions, retryAfter: error.headers?.["retry-after"] ?? null };
    }
    throw new Error("no 429");
  };

  test("a normal cap: at the cap, a bulk that fits after the reset, a bulk larger than the whole limit (unchanged)", async () => {
    const ctx = await context();
    const tenant = makeTenant(ctx, { monthlyScreeningQuota: 3 });
    writeTx(ctx.db, () => chargeScreens(ctx.db, tenant.tenant.id, 2, AT));
    const counts = "used 2 of limit 3 for 2026-03";
    const needsTwo = refusal(ctx.db, tenant.tenant.id, 2);
    expect(needsTwo).toMatchObject({
      detail: `This request does not fit in the remaining monthly quota: it needs 2 screens but only 1 remains (${counts}; one screen per valid row). Nothing was screened: send at most 1 valid row now, or retry after the counter resets at the start of the next UTC month. ${READS}`,
      extensions: { used: 2, limit: 3, remaining: 1, period: "2026-03" },
    });
    expect(needsTwo.retryAfter).toBeString();
    expect(refusal(ctx.db, tenant.tenant.id, 4)).toEqual({
      detail: `This request does not fit in the monthly quota: it needs 4 screens, more than the whole limit (${counts}; one screen per valid row). Nothing was screened: split it into requests of at most 3 valid rows (1 remains this month). ${READS}`,
      extensions: { used: 2, limit: 3, remaining: 1, period: "2026-03" },
      retryAfter: null,
    });
    writeTx(ctx.db, () => chargeScreens(ctx.db, tenant.tenant.id, 1, AT));
    expect(refusal(ctx.db, tenant.tenant.id, 1)).toMatchObject({
      detail: `Monthly screening quota reached: used 3 of limit 3 for 2026-03. ${READS} The counter resets at the start of the next UTC month.`,
      extensions: { used: 3, limit: 3, remaining: 0, period: "2026-03" },
    });
  });

  test("a quota of 0: no screen until an operator raises it; no advice to split or wait, no Retry-After", async () => {
    const ctx = await context();
    const tenant = makeTenant(ctx, { monthlyScreeningQuota: 0 });
    const zero = "monthly screening quota is 0: no screen is allowed until an operator raises it (used 0 of limit 0 for 2026-03).";
    expect(refusal(ctx.db, tenant.tenant.id, 1)).toEqual({
      detail: `This tenant's ${zero} ${READS}`,
      extensions: { used: 0, limit: 0, remaining: 0, period: "2026-03" },
      retryAfter: null,
    });
    expect(refusal(ctx.db, tenant.tenant.id, 2)).toEqual({
      detail: `This request needs 2 screens (one per valid row), but this tenant's ${zero} Nothing was screened. ${READS}`,
      extensions: { used: 0, limit: 0, remaining: 0, period: "2026-03" },
      retryAfter: null,
    });
  });
});

describe("chargeScreens under concurrency", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  test("5 processes x 10 charges on one SQLite file at a cap of 10: exactly 10 succeed, 40 get 429", async () => {
    const dataDir = tempDataDir("aml-quota-");
    dirs.push(dataDir);
    const db = openDb(dataDir);
    const ctx = { ...(await context()), db };
    const tenant = makeTenant(ctx, { monthlyScreeningQuota: 10 });
    db.close();

    const decoder = new TextDecoder();
    const procs = await Promise.all(
      Array.from({ length: 5 }, async () => {
        const proc = Bun.spawn([process.execPath, "run", CHARGER, dataDir, tenant.tenant.id, "10", AT.toISOString()], {
          cwd: REPO,
          stdin: "pipe",
          stdout: "pipe",
          stderr: "pipe",
        });
        const reader = proc.stdout.getReader();
        let text = "";
        while (!text.includes("ready\n")) {
          const chunk = await reader.read();
          if (chunk.done) throw new Error(`charger exited early: ${await new Response(proc.stderr).text()}`);
          text += decoder.decode(chunk.value);
        }
        return { proc, reader, text: text.replace("ready\n", "") };
      }),
    );
    // All five are connected and waiting: release them together.
    for (const { proc } of procs) {
      proc.stdin.write("go\n");
      proc.stdin.end();
    }
    const outcomes: Outcome[] = [];
    for (const p of procs) {
      let text = p.text;
      for (let chunk = await p.reader.read(); !chunk.done; chunk = await p.reader.read()) text += decoder.decode(chunk.value);
      expect(await p.proc.exited).toBe(0);
      outcomes.push(...text.trim().split("\n").map((line) => JSON.parse(line) as Outcome));
    }
    expectExactlyCapped(outcomes, 10, 50);

    const check = openDb(dataDir);
    expect(getUsage(check, tenant.tenant.id, AT)).toEqual({ used: 10, limit: 10, remaining: 0, unlimited: false });
    check.close();
  });

  test("in process: 50 interleaved charges over 5 connections to one file at a cap of 10", async () => {
    const dataDir = tempDataDir("aml-quota-");
    dirs.push(dataDir);
    const connections = Array.from({ length: 5 }, () => openDb(dataDir));
    const first = connections[0] as Db;
    const tenant = makeTenant({ ...(await context()), db: first }, { monthlyScreeningQuota: 10 });
    const outcomes = (
      await Promise.all(
        connections.map(async (db) => {
          const mine: Outcome[] = [];
          for (let i = 0; i < 10; i++) {
            await Bun.sleep(0);
            mine.push(charge(db, tenant.tenant.id, 1, AT));
          }
          return mine;
        }),
      )
    ).flat();
    expectExactlyCapped(outcomes, 10, 50);
    expect(getUsage(first, tenant.tenant.id, AT).used).toBe(10);
    for (const db of connections) db.close();
  });
});

describe("quota semantics", () => {
  test("a null quota is unlimited: large charges pass and remaining stays at 2^53-1", async () => {
    const ctx = await context();
    const { tenant } = makeTenant(ctx);
    expect(charge(ctx.db, tenant.id, 5000, AT)).toEqual({ ok: true, used: 5000 });
    expect(charge(ctx.db, tenant.id, 1, AT)).toEqual({ ok: true, used: 5001 });
    expect(getUsage(ctx.db, tenant.id, AT)).toEqual({ used: 5001, limit: null, remaining: UNLIMITED_REMAINING, unlimited: true });
  });

  test("a quota of 0 refuses the first screen", async () => {
    const ctx = await context();
    const { tenant } = makeTenant(ctx, { monthlyScreeningQuota: 0 });
    expect(charge(ctx.db, tenant.id, 1, AT)).toMatchObject({ ok: false, status: 429, used: 0, limit: 0 });
    expect(getUsage(ctx.db, tenant.id, AT)).toEqual({ used: 0, limit: 0, remaining: 0, unlimited: false });
  });

  test("a multi-screen charge is all or nothing", async () => {
    const ctx = await context();
    const { tenant } = makeTenant(ctx, { monthlyScreeningQuota: 5 });
    expect(charge(ctx.db, tenant.id, 3, AT)).toEqual({ ok: true, used: 3 });
    const refused = charge(ctx.db, tenant.id, 3, AT);
    expect(refused).toMatchObject({ ok: false, status: 429, used: 3, limit: 5, remaining: 2 });
    expect(refused.detail).toContain("needs 3 screens but only 2 remain");
    expect(getUsage(ctx.db, tenant.id, AT).used).toBe(3);
    expect(charge(ctx.db, tenant.id, 2, AT)).toEqual({ ok: true, used: 5 });
    expect(getUsage(ctx.db, tenant.id, AT)).toEqual({ used: 5, limit: 5, remaining: 0, unlimited: false });
  });

  test("assertQuotaFits checks without charging", async () => {
    const ctx = await context();
    const { tenant } = makeTenant(ctx, { monthlyScreeningQuota: 2 });
    expect(assertQuotaFits(ctx.db, tenant.id, 2, AT).remaining).toBe(2);
    expect(() => assertQuotaFits(ctx.db, tenant.id, 3, AT)).toThrow(ServiceError);
    expect(getUsage(ctx.db, tenant.id, AT).used).toBe(0);
  });

  test("the one-screen pre-check remembers room, never its absence: the commit's charge stays the judge", async () => {
    const ctx = await context();
    const { tenant } = makeTenant(ctx, { monthlyScreeningQuota: 3 });
    expect(charge(ctx.db, tenant.id, 1, AT)).toEqual({ ok: true, used: 1 });
    // Lowered behind this connection's back, from another connection (as the CLI does from its own process).
    const cli = openDb(dirname(ctx.db.path), { migrate: false });
    const setCap = (quota: number) => cli.sqlite.run("UPDATE tenants SET monthly_quota = ? WHERE id = ?", [quota, tenant.id]);
    try {
      setCap(1);
      // The remembered room lets the pre-check pass; the charge sees the new cap (the other
      // connection's commit emptied the row cache) and refuses.
      expect(() => precheckOneScreen(ctx.db, tenant.id, AT)).not.toThrow();
      expect(charge(ctx.db, tenant.id, 1, AT)).toMatchObject({ ok: false, status: 429, used: 1, limit: 1 });
      // The refusal is not remembered as room: the pre-check now reads and refuses before any matching.
      expect(() => precheckOneScreen(ctx.db, tenant.id, AT)).toThrow("used 1 of limit 1");
      // Raised again: nothing remembered the cap, so the very next pre-check passes.
      setCap(5);
    } finally {
      cli.close();
    }
    expect(() => precheckOneScreen(ctx.db, tenant.id, AT)).not.toThrow();
    // The memory is per month: a new month reads again (and finds room, the counter being new).
    expect(() => precheckOneScreen(ctx.db, tenant.id, new Date("2026-04-01T00:00:00.000Z"))).not.toThrow();
    expect(getUsage(ctx.db, tenant.id, AT)).toEqual({ used: 1, limit: 5, remaining: 4, unlimited: false });
  });

  test("remaining never goes negative when the quota is lowered below what was used", async () => {
    const ctx = await context();
    const { tenant } = makeTenant(ctx, { monthlyScreeningQuota: 10 });
    charge(ctx.db, tenant.id, 6, AT);
    setQuota(ctx, tenant.id, { monthlyScreeningQuota: 4 }, operator);
    expect(getUsage(ctx.db, tenant.id, AT)).toEqual({ used: 6, limit: 4, remaining: 0, unlimited: false });
    expect(charge(ctx.db, tenant.id, 1, AT)).toMatchObject({ ok: false, used: 6, limit: 4, remaining: 0 });
    setQuota(ctx, tenant.id, { monthlyScreeningQuota: 7 }, operator);
    expect(charge(ctx.db, tenant.id, 1, AT)).toEqual({ ok: true, used: 7 });
  });

  test.each([
    ["a month", "2026-03-31T23:59:59.999Z", "2026-04-01T00:00:00.000Z", "2026-03"],
    ["a year", "2026-12-31T23:59:59.999Z", "2027-01-01T00:00:00.000Z", "2026-12"],
  ])("usage resets at the start of the next UTC calendar month (across %s end)", async (_n, lastMoment, nextMonth, period) => {
    const ctx = await context();
    const { tenant } = makeTenant(ctx, { monthlyScreeningQuota: 2 });
    const before = new Date(lastMoment);
    const after = new Date(nextMonth);
    charge(ctx.db, tenant.id, 2, before);
    const refused = charge(ctx.db, tenant.id, 1, before);
    expect(refused).toMatchObject({ ok: false, used: 2, limit: 2 });
    expect(refused.detail).toContain(period);
    expect(charge(ctx.db, tenant.id, 1, after)).toEqual({ ok: true, used: 1 });
    expect(getUsage(ctx.db, tenant.id, before).used).toBe(2);
    expect(getUsage(ctx.db, tenant.id, after)).toEqual({ used: 1, limit: 2, remaining: 1, unlimited: false });
  });

  test("chargeScreens refuses to run outside a write transaction or with a bad count", async () => {
    const ctx = await context();
    const { tenant } = makeTenant(ctx);
    expect(() => chargeScreens(ctx.db, tenant.id, 1, AT)).toThrow("inside a write transaction");
    for (const count of [0, -1, 1.5]) {
      expect(() => writeTx(ctx.db, () => chargeScreens(ctx.db, tenant.id, count, AT))).toThrow("positive integer");
    }
    expect(getUsage(ctx.db, tenant.id, AT).used).toBe(0);
  });
});

describe("quota set by the CLI while the server runs", () => {
  test("the next /v1/usage shows the new limit; at the cap usage still reads; unlimited clears it", async () => {
    await context();
    const running = server as TestServer;
    const tenant = makeTenant(running.ctx);
    writeTx(running.ctx.db, () => chargeScreens(running.ctx.db, tenant.tenant.id, 3, new Date()));
    const read = async () => json<Usage>(await call(running.url, "/v1/usage", { key: tenant.apiKey }));

    const set = await runCli(["quota", "set", tenant.tenant.slug, "3"], { dataDir: running.dataDir });
    expect(set.code).toBe(0);
    expect(await read()).toMatchObject({ used: 3, limit: 3, remaining: 0, unlimited: false });

    const cleared = await runCli(["quota", "set", tenant.tenant.id, "unlimited"], { dataDir: running.dataDir });
    expect(cleared.code).toBe(0);
    expect(await read()).toMatchObject({ used: 3, limit: null, remaining: UNLIMITED_REMAINING, unlimited: true });
  });

  test("a rejected quota value leaves the limit the server reads unchanged", async () => {
    await context();
    const running = server as TestServer;
    const tenant = makeTenant(running.ctx, { monthlyScreeningQuota: 9 });
    const bad = await runCli(["quota", "set", tenant.tenant.slug, "-3"], { dataDir: running.dataDir });
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("whole number");
    expect(json<Usage>(await call(running.url, "/v1/usage", { key: tenant.apiKey })).limit).toBe(9);
  });
});
