import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { DB_FILE } from "@/storage/db";
import { makeTenant } from "../helpers/tenants";
import { expectProblem, json } from "../helpers/api";
import { startScreeningWorld, type ScreeningWorld } from "./world";

let world: ScreeningWorld;
let screeningId: string;
beforeAll(async () => {
  world = await startScreeningWorld();
  screeningId = json<{ id: string }>(await world.post("/v1/screenings/check", { fullName: "Dmitri Korvalev" })).id;
});
afterAll(() => world.close());

describe("tenant isolation", () => {
  test("another tenant's screening is 404 on read and on rescreen, and the owner still reads it", async () => {
    const other = makeTenant(world.lists.server.ctx);
    expectProblem(await world.get(`/v1/screenings/${screeningId}`, { key: other.apiKey }), 404, "NOT_FOUND");
    expectProblem(await world.post(`/v1/screenings/${screeningId}/rescreen`, null, { key: other.apiKey }), 404, "NOT_FOUND");
    expect((await world.get(`/v1/screenings/${screeningId}`)).status).toBe(200);
  });
});

describe("policies", () => {
  test("an auditor key gets 403 on check, bulk and rescreen and 200 on read", async () => {
    const key = world.auditorKey;
    const before = world.usedThisMonth();
    expectProblem(await world.post("/v1/screenings/check", { fullName: "A B" }, { key }), 403, "FORBIDDEN");
    expectProblem(await world.post("/v1/screenings/bulk", [{ fullName: "A B" }], { key }), 403, "FORBIDDEN");
    expectProblem(await world.post(`/v1/screenings/${screeningId}/rescreen`, null, { key }), 403, "FORBIDDEN");
    expect((await world.get(`/v1/screenings/${screeningId}`, { key })).status).toBe(200);
    expect(world.usedThisMonth()).toBe(before);
  });

  test("no credential is 401 and a bad key is 401, before the body is looked at", async () => {
    expectProblem(await world.post("/v1/screenings/check", { nonsense: true }, { key: "" }), 401, "UNAUTHENTICATED");
    expectProblem(await world.post("/v1/screenings/check", { fullName: "A B" }, { key: "aml_live_bogus" }), 401, "UNAUTHENTICATED");
    expectProblem(await world.get(`/v1/screenings/${screeningId}`, { key: "aml_live_bogus" }), 401, "UNAUTHENTICATED");
  });
});

describe("immutability", () => {
  test("the database refuses UPDATE and DELETE of a screening; its case can be updated", () => {
    const db = world.lists.server.ctx.db.sqlite;
    expect(() => db.run("UPDATE screenings SET decision = 'Clear' WHERE id = ?", [screeningId])).toThrow("a screening is immutable once written");
    expect(() => db.run("DELETE FROM screenings WHERE id = ?", [screeningId])).toThrow("a screening is immutable once written");
    db.run("UPDATE cases SET review_status = 'closed', disposition = 'false_positive' WHERE screening_id = ?", [screeningId]);
    const row = db.query<{ decision: string }, [string]>("SELECT decision FROM screenings WHERE id = ?").get(screeningId);
    expect(row?.decision).not.toBe("Clear");
  });

  test("the database refuses INSERT OR REPLACE and REPLACE INTO over a stored screening, on any connection", () => {
    const db = world.lists.server.ctx.db.sqlite;
    const before = db.query<Record<string, unknown>, [string]>("SELECT * FROM screenings WHERE id = ?").get(screeningId);
    // The same row, rewritten as Clear: REPLACE deletes the old row without firing DELETE triggers.
    const rewrite = (verb: string) =>
      db.run(
        `${verb} screenings SELECT id, tenant_id, created_at, correlation_id, user_reference, subject, options, snapshot_id,
           list_versions, 'Clear', 0, 0, 0, 'Low', NULL, '[]', '[]', 0, '[]', suppressed_matches, adverse_media_status,
           rescreen_of, origin, charged FROM screenings WHERE id = ?`,
        [screeningId],
      );
    expect(() => rewrite("INSERT OR REPLACE INTO")).toThrow("a screening is immutable once written");
    expect(() => rewrite("REPLACE INTO")).toThrow("a screening is immutable once written");
    expect(db.query<Record<string, unknown>, [string]>("SELECT * FROM screenings WHERE id = ?").get(screeningId)).toEqual(before);
  });

  test("a replace through the hidden rowid is refused too, on a connection without foreign keys (a sqlite3 shell)", () => {
    // Two statements rewrote a screening before 0008: a new id on the stored row's rowid (REPLACE
    // deletes the row it meets there without a DELETE trigger), then the old id back with other data.
    const shell = new Database(join(world.lists.server.dataDir, DB_FILE));
    try {
      shell.run("PRAGMA foreign_keys = OFF");
      const guarded: Record<string, { message: string; changed: Record<string, string> }> = {
        screenings: { message: "a screening is immutable once written", changed: { id: "'rewritten'", decision: "'Clear'" } },
        audit_log: { message: "audit_log is append-only", changed: { id: "'rewritten'", seq: "seq + 1000000" } },
        list_versions: { message: "list versions are immutable", changed: { id: "'rewritten'" } },
        list_snapshots: { message: "list snapshots are immutable", changed: { id: "'rewritten'" } },
      };
      for (const [table, { message, changed }] of Object.entries(guarded)) {
        const columns = shell.query<{ name: string }, []>(`PRAGMA table_info(${table})`).all().map((c) => c.name);
        const values = columns.map((c) => changed[c] ?? c).join(", ");
        const snapshot = () => shell.query<Record<string, unknown>, []>(`SELECT rowid AS rid, * FROM ${table} ORDER BY rowid`).all();
        const before = snapshot();
        expect(before.length).toBeGreaterThan(0);
        const replace = `INSERT OR REPLACE INTO ${table} (rowid, ${columns.join(", ")}) SELECT rowid, ${values} FROM ${table} ORDER BY rowid LIMIT 1`;
        expect(() => shell.run(replace)).toThrow(message);
        expect(snapshot()).toEqual(before);
      }
    } finally {
      shell.close();
    }
  });

  test("a usage counter only grows, and a committed version's change rows are kept (a sqlite3 shell)", async () => {
    await world.post("/v1/screenings/check", { fullName: "Counter Growth" });
    const shell = new Database(join(world.lists.server.dataDir, DB_FILE));
    try {
      const used = () => shell.query<{ n: number }, []>("SELECT sum(used) AS n FROM usage_counters").get()?.n ?? 0;
      const before = used();
      expect(before).toBeGreaterThan(0);
      expect(() => shell.run("UPDATE usage_counters SET used = 0")).toThrow("usage counters only grow");
      expect(() => shell.run("UPDATE usage_counters SET period = '1999-01'")).toThrow("usage counters only grow");
      expect(() => shell.run("DELETE FROM usage_counters")).toThrow("usage counters are kept");
      // REPLACE removes the row it meets without a DELETE trigger; an upsert is an insert first.
      for (const verb of ["REPLACE INTO", "INSERT OR REPLACE INTO"]) {
        expect(() => shell.run(`${verb} usage_counters (tenant_id, period, used) SELECT tenant_id, period, 0 FROM usage_counters`)).toThrow("usage counters only grow");
      }
      expect(() =>
        shell.run("INSERT INTO usage_counters SELECT tenant_id, period, 0 FROM usage_counters WHERE true ON CONFLICT DO UPDATE SET used = 0"),
      ).toThrow("usage counters only grow");
      // NULL compared as unknown, then OR REPLACE filled in the default 0; text sorts above any number.
      expect(() => shell.run("UPDATE OR REPLACE usage_counters SET used = NULL")).toThrow("usage counters only grow");
      expect(() => shell.run("UPDATE usage_counters SET used = 'lots'")).toThrow("usage counters only grow");
      expect(used()).toBe(before);
      // Growing is what a charge does.
      shell.run("UPDATE usage_counters SET used = used + 1");
      expect(used()).toBeGreaterThan(before);

      const changes = () => shell.query<{ n: number }, []>("SELECT count(*) AS n FROM list_changes").get()?.n ?? 0;
      const kept = changes();
      expect(kept).toBeGreaterThan(0);
      expect(() => shell.run("DELETE FROM list_changes")).toThrow("changes of a committed list version are kept");
      expect(() => shell.run("UPDATE list_changes SET change = 'removed'")).toThrow("list changes are immutable");
      expect(changes()).toBe(kept);
      // A version not committed yet (an import that stopped) leaves orphans, which may go.
      shell.run("INSERT INTO list_changes (version_id, external_id, change) VALUES ('uncommitted', 'x', 'added')");
      expect(shell.run("DELETE FROM list_changes WHERE version_id = 'uncommitted'").changes).toBe(1);
    } finally {
      shell.close();
    }
  });

  test("an Idempotency-Key row cannot be repointed, and a delivery attempt cannot be changed or removed (a sqlite3 shell)", async () => {
    const keyed = await world.post("/v1/screenings/check", { fullName: "Keyed Subject" }, { headers: { "idempotency-key": "kept-key" } });
    const keyedId = json<{ id: string }>(keyed).id;
    await world.receiver.waitUntil(() => world.receiver.delivered.some((d) => d.body.screeningId === keyedId), 10_000);
    const shell = new Database(join(world.lists.server.dataDir, DB_FILE));
    try {
      shell.run("PRAGMA foreign_keys = OFF");
      const keyRow = () => shell.query<Record<string, unknown>, []>("SELECT * FROM idempotency_keys WHERE key = 'kept-key'").get();
      const before = keyRow();
      expect(before?.screening_id).toBe(keyedId);
      // A replay answers whatever screening the row names: pointing it elsewhere is refused, however written.
      expect(() => shell.run("UPDATE idempotency_keys SET screening_id = ? WHERE key = 'kept-key'", [screeningId])).toThrow(
        "idempotency keys are immutable",
      );
      expect(() =>
        shell.run(
          `INSERT OR REPLACE INTO idempotency_keys SELECT tenant_id, key, request_hash, ?, created_at, expires_at
             FROM idempotency_keys WHERE key = 'kept-key'`,
          [screeningId],
        ),
      ).toThrow("idempotency keys are immutable");
      // Nor deleted and inserted again while it is live, in one transaction or two.
      expect(() =>
        shell.transaction(() => {
          shell.run("CREATE TEMP TABLE live_key AS SELECT * FROM idempotency_keys WHERE key = 'kept-key'");
          shell.run("DELETE FROM idempotency_keys WHERE key = 'kept-key'");
          shell.run("INSERT INTO idempotency_keys SELECT tenant_id, key, request_hash, ?, created_at, expires_at FROM live_key", [screeningId]);
        })(),
      ).toThrow("an idempotency key is kept until it expires");
      expect(keyRow()).toEqual(before);

      const attempts = () => shell.query<Record<string, unknown>, []>("SELECT rowid AS rid, * FROM webhook_attempts ORDER BY rowid").all();
      // The dispatcher records an attempt once the receiver has answered: the receiver can see the
      // delivery a moment before the row is committed (a fresh-clone CI run read 0 rows here).
      for (let waited = 0; attempts().length === 0 && waited < 5_000; waited += 20) await Bun.sleep(20);
      const logged = attempts();
      expect(logged.length).toBeGreaterThan(0);
      expect(() => shell.run("UPDATE webhook_attempts SET status_code = 500, error = 'forged'")).toThrow("webhook attempts are append-only");
      expect(() => shell.run("DELETE FROM webhook_attempts")).toThrow("webhook attempts are append-only");
      expect(() =>
        shell.run(
          `INSERT OR REPLACE INTO webhook_attempts (rowid, id, outbox_id, series, attempt, started_at, duration_ms, status_code, error, url)
             SELECT rowid, 'rewritten', outbox_id, series, attempt, started_at, duration_ms, 500, 'forged', url FROM webhook_attempts LIMIT 1`,
        ),
      ).toThrow("webhook attempts are append-only");
      expect(attempts()).toEqual(logged);
    } finally {
      shell.close();
    }
    // The key still replays the screening it was given.
    const replay = await world.post("/v1/screenings/check", { fullName: "Keyed Subject" }, { headers: { "idempotency-key": "kept-key" } });
    expect(json<{ id: string }>(replay).id).toBe(keyedId);
  });

  test("each screening has one case, open unless the screening is Clear", async () => {
    const clear = json<{ id: string }>(await world.post("/v1/screenings/check", { fullName: "Penelope Whitcombe-Arden" })).id;
    const db = world.lists.server.ctx.db.sqlite;
    const status = (id: string) => db.query<{ review_status: string }, [string]>("SELECT review_status FROM cases WHERE screening_id = ?").all(id);
    expect(status(clear)).toEqual([{ review_status: "not_required" }]);
    const match = json<{ id: string }>(await world.post("/v1/screenings/check", { fullName: "Aldous Quentrell" })).id;
    expect(status(match)).toEqual([{ review_status: "open" }]);
  });

  test("the audit entry holds ids and the decision, no personal data", async () => {
    const id = json<{ id: string }>(await world.post("/v1/screenings/check", { fullName: "Ottoline Vanderloop", userReference: "ref-audit" })).id;
    const entry = world.lists.server.ctx.db.sqlite
      .query<{ action: string; details: string; chain: string }, [string]>("SELECT action, details, chain FROM audit_log WHERE target_id = ?")
      .get(id);
    expect(entry?.action).toBe("screening.create");
    expect(entry?.chain).toBe(world.tenant.tenant.id);
    expect(entry?.details.toLowerCase()).not.toContain("vanderloop");
    expect(entry?.details).not.toContain("ref-audit");
    expect(JSON.parse(entry?.details ?? "{}")).toMatchObject({ origin: "check" });
  });
});
