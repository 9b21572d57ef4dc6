import { afterAll, afterEach, beforeEach, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { appendAudit } from "@/audit/append";
import { verifyAuditChain } from "@/audit/verify";
import { resolveApiKey } from "@/auth/resolve-api-key";
import { openContext } from "@/bootstrap";
import { loadConfig } from "@/config";
import type { AppContext, CallMeta } from "@/context";
import { writeTx } from "@/storage/db";
import { groupCommit } from "@/storage/group-commit";
import { advanceHead, cachedSetting, readHead } from "@/storage/row-cache";
import { revokeApiKey } from "@/tenants/keys";
import { setQuota } from "@/tenants/quota";
import { chargeScreens, getUsage } from "@/usage/quota";
import { tempDataDir } from "../../helpers/server";
import { makeTenant } from "../../helpers/tenants";
import { connectionPair } from "./connection-pair";

/**
 * The row cache (src/storage/row-cache.ts) on real file databases, with a second connection standing
 * in for the CLI in another process. A read function that counts its calls shows when the cache
 * answered and when it went to the database.
 */
const pair = connectionPair();

function countingRead(sql = "SELECT count(*) AS n FROM t") {
  let reads = 0;
  const read = () => {
    reads++;
    return pair.db.sqlite.query<{ n: number }, []>(sql).get()?.n ?? -1;
  };
  return { read, reads: () => reads };
}

describe("settings", () => {
  test("are read once, then answered from memory while nothing changes", () => {
    const { read, reads } = countingRead();
    expect(cachedSetting(pair.db.sqlite, "k", read)).toBe(0);
    expect(cachedSetting(pair.db.sqlite, "k", read)).toBe(0);
    writeTx(pair.db, () => cachedSetting(pair.db.sqlite, "k", read), { recordsOnly: true });
    expect(reads()).toBe(1);
  });

  test("another connection's commit is seen by the next read, outside and inside a transaction", () => {
    const { read, reads } = countingRead();
    cachedSetting(pair.db.sqlite, "k", read);
    pair.other.sqlite.run("INSERT INTO t (x) VALUES (1)");
    expect(cachedSetting(pair.db.sqlite, "k", read)).toBe(1);
    pair.other.sqlite.run("INSERT INTO t (x) VALUES (2)");
    expect(writeTx(pair.db, () => cachedSetting(pair.db.sqlite, "k", read), { recordsOnly: true })).toBe(2);
    expect(reads()).toBe(3);
  });

  test("a write transaction not declared recordsOnly empties the cache and bypasses it until it ends", () => {
    const { read, reads } = countingRead();
    cachedSetting(pair.db.sqlite, "k", read);
    writeTx(pair.db, () => {
      pair.db.sqlite.run("INSERT INTO t (x) VALUES (1)");
      expect(cachedSetting(pair.db.sqlite, "k", read)).toBe(1);
      expect(cachedSetting(pair.db.sqlite, "k", read)).toBe(1);
    });
    expect(reads()).toBe(3);
    expect(cachedSetting(pair.db.sqlite, "k", read)).toBe(1);
    expect(reads()).toBe(4);
  });

  test("a recordsOnly transaction keeps the cache, a nested unit that is not one drops it", () => {
    const { read, reads } = countingRead();
    cachedSetting(pair.db.sqlite, "k", read);
    writeTx(pair.db, () => pair.db.sqlite.run("INSERT INTO t (x) VALUES (1)"), { recordsOnly: true });
    expect(cachedSetting(pair.db.sqlite, "k", read)).toBe(0);
    expect(reads()).toBe(1);
    writeTx(pair.db, () => writeTx(pair.db, () => pair.db.sqlite.run("INSERT INTO t (x) VALUES (2)")), { recordsOnly: true });
    expect(cachedSetting(pair.db.sqlite, "k", read)).toBe(2);
    expect(reads()).toBe(2);
  });

  test("a value `keep` refuses is read again every time", () => {
    const { read, reads } = countingRead();
    cachedSetting(pair.db.sqlite, "k", read, (n) => n > 0);
    cachedSetting(pair.db.sqlite, "k", read, (n) => n > 0);
    expect(reads()).toBe(2);
  });

  test("a rolled-back unit empties the cache", async () => {
    const { read, reads } = countingRead();
    cachedSetting(pair.db.sqlite, "k", read);
    await groupCommit(pair.db)
      .run(() => {
        throw new Error("refused");
      }, { recordsOnly: true })
      .catch(() => undefined);
    cachedSetting(pair.db.sqlite, "k", read);
    expect(reads()).toBe(2);
  });

  test("a read in a transaction writeTx did not open is not kept: that transaction may roll back what it saw", () => {
    const { read } = countingRead("SELECT max(x) AS n FROM t");
    pair.db.sqlite.run("INSERT INTO t (x) VALUES (1)");
    expect(() =>
      pair.db.sqlite.transaction(() => {
        writeTx(pair.db, () => pair.db.sqlite.run("INSERT INTO t (x) VALUES (2)"));
        expect(cachedSetting(pair.db.sqlite, "k", read)).toBe(2);
        throw new Error("rolled back");
      })(),
    ).toThrow("rolled back");
    expect(cachedSetting(pair.db.sqlite, "k", read)).toBe(1);
  });

  test("a writeTx nested in a transaction it did not open (bun:sqlite's transaction()) neither reads nor fills the cache", () => {
    const { read, reads } = countingRead();
    pair.db.sqlite.transaction(() => {
      writeTx(pair.db, () => {
        cachedSetting(pair.db.sqlite, "k", read);
        cachedSetting(pair.db.sqlite, "k", read);
      }, { recordsOnly: true });
    })();
    cachedSetting(pair.db.sqlite, "k", read);
    expect(reads()).toBe(3);
  });
});

describe("heads", () => {
  const head = () => readHead(pair.db.sqlite, "h", () => pair.db.sqlite.query<{ n: number }, []>("SELECT max(x) AS n FROM t").get()?.n ?? 0);
  const bump = () => {
    const next = head() + 1;
    pair.db.sqlite.query<unknown, [number]>("INSERT INTO t (x) VALUES (?)").run(next);
    advanceHead(pair.db.sqlite, "h", next);
    return next;
  };

  test("are refused outside writeTx", () => {
    expect(() => readHead(pair.db.sqlite, "h", () => 0)).toThrow(/inside writeTx/);
    expect(() => advanceHead(pair.db.sqlite, "h", 1)).toThrow(/inside writeTx/);
  });

  test("an advance in a unit that rolls back is forgotten with the unit; the units around it keep theirs", async () => {
    const committer = groupCommit(pair.db);
    const results = await Promise.allSettled([
      committer.run(bump, { recordsOnly: true }),
      committer.run(() => {
        bump();
        throw new Error("this unit fails after advancing");
      }, { recordsOnly: true }),
      committer.run(bump, { recordsOnly: true }),
    ]);
    expect(results.map((r) => (r.status === "fulfilled" ? r.value : "failed"))).toEqual([1, "failed", 2]);
    expect(writeTx(pair.db, bump, { recordsOnly: true })).toBe(3);
  });

  test("an advance in a transaction that rolls back is forgotten", () => {
    writeTx(pair.db, bump, { recordsOnly: true });
    expect(() =>
      writeTx(pair.db, () => {
        bump();
        throw new Error("rolled back");
      }, { recordsOnly: true }),
    ).toThrow("rolled back");
    expect(writeTx(pair.db, bump, { recordsOnly: true })).toBe(2);
  });

  test("a unit that may change anything, in the middle of a batch, leaves the heads exact", async () => {
    const committer = groupCommit(pair.db);
    const results = await Promise.all([
      committer.run(bump, { recordsOnly: true }),
      committer.run(bump),
      committer.run(bump, { recordsOnly: true }),
    ]);
    expect(results).toEqual([1, 2, 3]);
    expect(writeTx(pair.db, bump, { recordsOnly: true })).toBe(4);
  });

  test("another connection's commit in between is read, not overwritten", () => {
    writeTx(pair.db, bump, { recordsOnly: true });
    pair.other.sqlite.run("INSERT INTO t (x) VALUES (2)");
    expect(writeTx(pair.db, bump, { recordsOnly: true })).toBe(3);
  });
});

/** The same on the real schema: two connections to one data folder, as the server and the CLI have. */
describe("on the real schema, beside another connection", () => {
  const dirs: string[] = [];
  let server: AppContext;
  let cli: AppContext;
  const meta: CallMeta = { actor: { type: "cli", id: "test" } };
  const at = new Date("2026-11-22T10:00:00Z");
  beforeEach(() => {
    const dataDir = tempDataDir();
    dirs.push(dataDir);
    const config = loadConfig({ env: {}, flags: { dataDir, logLevel: "silent" } });
    server = openContext(config);
    cli = openContext(config);
  });
  afterEach(() => {
    cli.db.close();
    server.db.close();
  });
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  const appendFrom = (ctx: AppContext, chain: string, action: string) =>
    writeTx(ctx.db, () => appendAudit(ctx.db, { chain, action, targetType: "test", at, meta }), { recordsOnly: true });

  test("an audit chain written by both connections, with a unit rolled back in between, stays intact", async () => {
    const { tenant } = makeTenant(server);
    appendFrom(server, tenant.id, "test.one");
    appendFrom(cli, tenant.id, "test.cli");
    const committer = groupCommit(server.db);
    await Promise.allSettled([
      committer.run(() => appendAudit(server.db, { chain: tenant.id, action: "test.two", targetType: "test", at, meta }), { recordsOnly: true }),
      committer.run(() => {
        appendAudit(server.db, { chain: tenant.id, action: "test.lost", targetType: "test", at, meta });
        throw new Error("fails after appending");
      }, { recordsOnly: true }),
    ]);
    appendFrom(server, tenant.id, "test.three");
    const verification = verifyAuditChain(cli.db, tenant.id);
    expect(verification.intact).toBe(true);
    const actions = cli.db.sqlite.query<{ action: string }, [string]>("SELECT action FROM audit_log WHERE chain = ? ORDER BY seq").all(tenant.id);
    expect(actions.map((a) => a.action).filter((a) => a.startsWith("test."))).toEqual(["test.one", "test.cli", "test.two", "test.three"]);
  });

  test("usage charged by both connections adds up, and a quota set by the other one applies to the next charge", () => {
    const { tenant } = makeTenant(server);
    const charge = (ctx: AppContext, n: number) => writeTx(ctx.db, () => chargeScreens(ctx.db, tenant.id, n, at), { recordsOnly: true });
    charge(server, 2);
    charge(cli, 3);
    expect(charge(server, 1).used).toBe(6);
    setQuota(cli, tenant.id, { monthlyScreeningQuota: 7 }, meta);
    expect(charge(server, 1).used).toBe(7);
    expect(() => charge(server, 1)).toThrow(/quota/i);
    expect(getUsage(cli.db, tenant.id, at).used).toBe(7);
  });

  test("a key revoked by the other connection stops resolving on the next request", () => {
    const created = makeTenant(server);
    expect(resolveApiKey(server.db, created.apiKey)?.tenantId).toBe(created.tenant.id);
    revokeApiKey(cli, { tenant: created.tenant.id, keyId: created.apiKeyId }, meta);
    expect(resolveApiKey(server.db, created.apiKey)).toBeNull();
  });

  test("a quota set on the same connection applies to its next charge", () => {
    const { tenant } = makeTenant(server);
    const charge = (n: number) => writeTx(server.db, () => chargeScreens(server.db, tenant.id, n, at), { recordsOnly: true });
    charge(2);
    setQuota(server, tenant.id, { monthlyScreeningQuota: 2 }, meta);
    expect(() => charge(1)).toThrow(/quota/i);
  });
});
