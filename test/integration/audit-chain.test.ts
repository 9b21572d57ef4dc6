import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { entryHash } from "@/audit/chain";
import type { AuditEntry, AuditRow } from "@/audit/rows";
import { appendAudit } from "@/audit/append";
import { type AuditVerification, verifyAuditChain, verifyAuditChainPaced } from "@/audit/verify";
import { writeTx } from "@/storage/db";
import type { CallMeta } from "@/context";
import type { CreatedTenant } from "@/tenants/create";
import { issueApiKey } from "@/tenants/keys";
import { setQuota } from "@/tenants/quota";
import { call, json } from "../helpers/api";
import { tamperAuditLog } from "../helpers/audit";
import { runCli } from "../helpers/cli";
import { startTestServer, type TestServer } from "../helpers/server";
import { makeTenant } from "../helpers/tenants";

/** The per-tenant SHA-256 audit chain: what is recorded, and that tampering with the file is detected. */
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});

/** A tenant with five entries: tenant.create, api_key.issue, api_key.issue, quota.set, api_key.issue. */
function busyTenant(): { tenant: CreatedTenant; rows: AuditRow[] } {
  const tenant = makeTenant(server.ctx);
  const meta: CallMeta = { actor: { type: "system", id: "chain-test" } };
  issueApiKey(server.ctx, { tenant: tenant.tenant.id, label: "second" }, meta);
  setQuota(server.ctx, tenant.tenant.id, { monthlyScreeningQuota: 40 }, meta);
  issueApiKey(server.ctx, { tenant: tenant.tenant.id, label: "third" }, meta);
  const rows = server.ctx.db.sqlite
    .query<AuditRow, [string]>("SELECT * FROM audit_log WHERE chain = ? ORDER BY seq")
    .all(tenant.tenant.id);
  expect(rows.length).toBe(5);
  return { tenant, rows };
}

async function verifyOverHttp(tenant: CreatedTenant): Promise<AuditVerification> {
  const res = await call(server.url, "/v1/audit/verify", { key: tenant.apiKey });
  expect(res.status).toBe(200);
  return json<AuditVerification>(res);
}

async function verifyAnchoredOverHttp(tenant: CreatedTenant, sequence: number, hash: string): Promise<AuditVerification> {
  const res = await call(server.url, `/v1/audit/verify?sequence=${sequence}&hash=${hash}`, { key: tenant.apiKey });
  expect(res.status).toBe(200);
  return json<AuditVerification>(res);
}

async function verifyWithCli(tenant: CreatedTenant): Promise<{ code: number; result: AuditVerification & { tenant: string } }> {
  const cli = await runCli(["--json", "audit", "verify", tenant.tenant.slug], { dataDir: server.dataDir });
  return { code: cli.code, result: JSON.parse(cli.stdout) as AuditVerification & { tenant: string } };
}

describe("what the chain records", () => {
  test("tenant creation, key issue/revoke and quota changes, each with the acting principal", async () => {
    const tenant = makeTenant(server.ctx, { webhookUrl: "https://hooks.example.com/aml" });
    const admin: CallMeta = { actor: { type: "oidc", id: "admin-sub-7" }, correlationId: "corr-issue-1" };
    const issued = issueApiKey(server.ctx, { tenant: tenant.tenant.id, label: "batch robot", role: "auditor" }, admin);
    setQuota(server.ctx, tenant.tenant.id, { monthlyScreeningQuota: 25 }, { actor: { type: "system", id: "ops" } });
    // The person behind `sudo -u aml` is the one recorded (SUDO_USER), not the service account.
    const revoked = await runCli(["key", "revoke", tenant.tenant.id, issued.key.keyId], {
      dataDir: server.dataDir,
      env: { SUDO_USER: "alice", LOGNAME: "aml", USER: "aml" },
    });
    expect(revoked.code).toBe(0);

    const page = json<{ items: AuditEntry[] }>(await call(server.url, "/v1/audit", { key: tenant.apiKey }));
    const oldestFirst = [...page.items].reverse();
    expect(oldestFirst.map((e) => [e.sequence, e.action, e.targetType, e.targetId, e.actor])).toEqual([
      [1, "tenant.create", "tenant", tenant.tenant.id, { type: "cli", id: "test" }],
      [2, "api_key.issue", "api_key", tenant.apiKeyId, { type: "cli", id: "test" }],
      [3, "api_key.issue", "api_key", issued.key.keyId, { type: "oidc", id: "admin-sub-7" }],
      [4, "quota.set", "tenant", tenant.tenant.id, { type: "system", id: "ops" }],
      [5, "api_key.revoke", "api_key", issued.key.keyId, { type: "cli", id: "alice" }],
    ]);
    expect(oldestFirst[2]?.correlationId).toBe("corr-issue-1");
    expect(oldestFirst[2]?.details).toMatchObject({ label: "batch robot", role: "auditor" });
    expect(oldestFirst[3]?.details).toEqual({ previous: null, monthlyScreeningQuota: 25 });
    for (let i = 1; i < oldestFirst.length; i++) expect(oldestFirst[i]?.prevHash).toBe(oldestFirst[i - 1]?.hash ?? "");
    // Snapshots carry no secret: neither the API key nor the webhook signing secret.
    const everything = JSON.stringify(page.items);
    expect(everything).not.toContain(tenant.apiKey);
    expect(everything).not.toContain(issued.apiKey);
    expect(everything).not.toContain(tenant.webhookSigningSecret ?? "whsec_");
    expect(everything).not.toContain("whsec_");
  });

  test("an intact chain verifies in the domain, over HTTP and with `aml audit verify` (exit 0)", async () => {
    const { tenant, rows } = busyTenant();
    const expected = { intact: true, entriesChecked: 5, firstBrokenEntryId: null, reason: null, lastHash: rows[4]?.hash, anchor: null };
    expect(verifyAuditChain(server.ctx.db, tenant.tenant.id)).toEqual(expected as AuditVerification);
    expect(await verifyOverHttp(tenant)).toMatchObject(expected);
    const cli = await verifyWithCli(tenant);
    expect(cli.code).toBe(0);
    expect(cli.result).toMatchObject({ tenant: tenant.tenant.slug, ...expected });
  });

  test("the table refuses UPDATE and DELETE through its triggers", () => {
    const { tenant } = busyTenant();
    const sqlite = server.ctx.db.sqlite;
    expect(() => sqlite.run("UPDATE audit_log SET action = 'tenant.delete' WHERE chain = ?", [tenant.tenant.id])).toThrow(
      "audit_log is append-only",
    );
    expect(() => sqlite.run("DELETE FROM audit_log WHERE chain = ?", [tenant.tenant.id])).toThrow("audit_log is append-only");
    expect(verifyAuditChain(server.ctx.db, tenant.tenant.id)).toMatchObject({ intact: true, entriesChecked: 5 });
  });

  test("the table refuses a replace of an entry, whether it meets the id or the (chain, seq) position", () => {
    const { tenant, rows } = busyTenant();
    const sqlite = server.ctx.db.sqlite;
    const target = rows[2] as AuditRow;
    const columns = "chain, seq, at, action, target_type, target_id, actor_type, actor_id, correlation_id, prev_hash, hash";
    // Same id, other details; then a new id at the same (chain, seq).
    expect(() =>
      sqlite.run(`INSERT OR REPLACE INTO audit_log (id, details, ${columns}) SELECT id, '{}', ${columns} FROM audit_log WHERE id = ?`, [target.id]),
    ).toThrow("audit_log is append-only");
    expect(() =>
      sqlite.run(`REPLACE INTO audit_log (id, details, ${columns}) SELECT 'forged-id', '{}', ${columns} FROM audit_log WHERE id = ?`, [target.id]),
    ).toThrow("audit_log is append-only");
    expect(verifyAuditChain(server.ctx.db, tenant.tenant.id)).toMatchObject({ intact: true, entriesChecked: 5 });
  });
});

describe("tampering is detected", () => {
  test("an edited middle entry is reported as the first broken entry; the CLI exits 3", async () => {
    const { tenant, rows } = busyTenant();
    const middle = rows[2] as AuditRow;
    tamperAuditLog(server.dataDir, "audit_log_no_update", (db) =>
      db.run("UPDATE audit_log SET details = ? WHERE id = ?", ['{"hint":"aml_live_XXXX…","label":"innocent","role":"auditor"}', middle.id]),
    );
    const expected = { intact: false, firstBrokenEntryId: middle.id, reason: "hash_mismatch", entriesChecked: 3 };
    expect(verifyAuditChain(server.ctx.db, tenant.tenant.id)).toMatchObject(expected);
    expect(await verifyOverHttp(tenant)).toMatchObject(expected);
    const cli = await verifyWithCli(tenant);
    expect(cli.code).toBe(3);
    expect(cli.result).toMatchObject(expected);
  });

  test("details rewritten to parse to the same value are still a broken entry: respaced, or a key given twice", async () => {
    for (const rewrite of [
      (stored: string) => stored.replaceAll('":"', '": "'),
      // JSON.parse reads the last of two keys, SQLite's json_extract the first: one row, two readings.
      (stored: string) => stored.replace('{"', '{"role":"compliance_analyst","'),
    ]) {
      const { tenant, rows } = busyTenant();
      const middle = rows[2] as AuditRow;
      const rewritten = rewrite(middle.details);
      expect(rewritten).not.toBe(middle.details);
      expect(JSON.parse(rewritten)).toEqual(JSON.parse(middle.details));
      tamperAuditLog(server.dataDir, "audit_log_no_update", (db) => db.run("UPDATE audit_log SET details = ? WHERE id = ?", [rewritten, middle.id]));
      const expected = { intact: false, firstBrokenEntryId: middle.id, reason: "hash_mismatch", entriesChecked: 3 };
      expect(verifyAuditChain(server.ctx.db, tenant.tenant.id)).toMatchObject(expected);
      expect(await verifyOverHttp(tenant)).toMatchObject(expected);
    }
  });

  test("an edit whose hash was recomputed breaks the link from the next entry", async () => {
    const { tenant, rows } = busyTenant();
    const middle = rows[2] as AuditRow;
    const forgedDetails = { label: "forged", role: "compliance_analyst" };
    const forgedHash = entryHash(middle.prev_hash, {
      id: middle.id,
      chain: middle.chain,
      seq: middle.seq,
      at: middle.at,
      action: middle.action,
      targetType: middle.target_type,
      targetId: middle.target_id,
      actorType: middle.actor_type,
      actorId: middle.actor_id,
      correlationId: middle.correlation_id,
      details: forgedDetails,
    });
    tamperAuditLog(server.dataDir, "audit_log_no_update", (db) =>
      db.run("UPDATE audit_log SET details = ?, hash = ? WHERE id = ?", [JSON.stringify(forgedDetails), forgedHash, middle.id]),
    );
    expect(await verifyOverHttp(tenant)).toMatchObject({ intact: false, firstBrokenEntryId: rows[3]?.id, reason: "link_mismatch" });
  });

  test("a deleted middle entry is reported as a sequence gap at the entry after it", async () => {
    const { tenant, rows } = busyTenant();
    tamperAuditLog(server.dataDir, "audit_log_no_delete", (db) => db.run("DELETE FROM audit_log WHERE id = ?", [rows[2]?.id ?? ""]));
    const expected = { intact: false, firstBrokenEntryId: rows[3]?.id, reason: "sequence_gap" };
    expect(await verifyOverHttp(tenant)).toMatchObject(expected);
    const cli = await verifyWithCli(tenant);
    expect(cli.code).toBe(3);
    expect(cli.result).toMatchObject(expected);
  });

  test("a chain of many pages is walked whole over HTTP, letting other work in between, and a break past the first page is found", async () => {
    const { tenant } = busyTenant();
    const meta: CallMeta = { actor: { type: "system", id: "chain-test" } };
    writeTx(server.ctx.db, () => {
      for (let i = 0; i < 4_000; i++) appendAudit(server.ctx.db, { chain: tenant.tenant.id, action: "test.entry", targetType: "test", details: { i }, at: new Date(), meta });
    });
    const whole = verifyAuditChain(server.ctx.db, tenant.tenant.id);
    expect(whole).toMatchObject({ intact: true, entriesChecked: 4_005 });
    // The serving process's walk pauses for requests: a timer set as it starts runs before it ends.
    let timerRan = false;
    setTimeout(() => {
      timerRan = true;
    }, 0);
    const paced = verifyAuditChainPaced(server.ctx.db, tenant.tenant.id);
    expect(timerRan).toBe(false);
    expect(await paced).toEqual(whole);
    expect(timerRan).toBe(true);
    expect(await verifyOverHttp(tenant)).toMatchObject(whole);

    const row = server.ctx.db.sqlite.query<AuditRow, [string]>("SELECT * FROM audit_log WHERE chain = ? AND seq = 3210").get(tenant.tenant.id);
    tamperAuditLog(server.dataDir, "audit_log_no_update", (db) => db.run("UPDATE audit_log SET details = ? WHERE id = ?", ['{"i":-1}', row?.id ?? ""]));
    const expected = { intact: false, firstBrokenEntryId: row?.id, reason: "hash_mismatch", entriesChecked: 3_210 };
    expect(verifyAuditChain(server.ctx.db, tenant.tenant.id)).toMatchObject(expected);
    expect(await verifyOverHttp(tenant)).toMatchObject(expected);
    expect((await verifyWithCli(tenant)).result).toMatchObject(expected);
  });

  test("an entry moved to the lowest sequence SQLite holds is still read, and reported as a gap", async () => {
    const { tenant, rows } = busyTenant();
    const last = rows[4] as AuditRow;
    tamperAuditLog(server.dataDir, "audit_log_no_update", (db) => db.run("UPDATE audit_log SET seq = -9223372036854775808 WHERE id = ?", [last.id]));
    const expected = { intact: false, firstBrokenEntryId: last.id, reason: "sequence_gap", entriesChecked: 1 };
    expect(verifyAuditChain(server.ctx.db, tenant.tenant.id)).toMatchObject(expected);
    expect(await verifyOverHttp(tenant)).toMatchObject(expected);
  });

  test("details that are no longer JSON are reported as unreadable", async () => {
    const { tenant, rows } = busyTenant();
    tamperAuditLog(server.dataDir, "audit_log_no_update", (db) => db.run("UPDATE audit_log SET details = 'not json' WHERE id = ?", [rows[1]?.id ?? ""]));
    expect(await verifyOverHttp(tenant)).toMatchObject({ intact: false, firstBrokenEntryId: rows[1]?.id, reason: "unreadable_details" });
  });
});

describe("an anchor from an earlier verification shows what the chain alone cannot", () => {
  /** Cuts the chain's last `n` entries, as an attacker with write access to aml.db would. */
  function cutLast(tenant: CreatedTenant, n: number): void {
    tamperAuditLog(server.dataDir, "audit_log_no_delete", (db) => {
      const cut = db.run("DELETE FROM audit_log WHERE chain = ? AND seq > (SELECT max(seq) FROM audit_log WHERE chain = ?) - ?", [tenant.tenant.id, tenant.tenant.id, n]);
      expect(cut.changes).toBe(n);
    });
  }

  test("entries cut from the end: intact on its own, truncated against the anchor", async () => {
    const { tenant, rows } = busyTenant();
    const anchor = { sequence: 5, hash: rows[4]?.hash ?? "" };
    expect(await verifyAnchoredOverHttp(tenant, anchor.sequence, anchor.hash)).toMatchObject({ intact: true, entriesChecked: 5, reason: null, lastHash: anchor.hash, anchor });
    cutLast(tenant, 2);
    // The walk alone cannot tell: what is left links and hashes.
    expect(await verifyOverHttp(tenant)).toMatchObject({ intact: true, entriesChecked: 3, lastHash: rows[2]?.hash });
    const truncated = { intact: false, entriesChecked: 3, firstBrokenEntryId: null, reason: "truncated", lastHash: null, anchor };
    expect(await verifyAnchoredOverHttp(tenant, anchor.sequence, anchor.hash)).toMatchObject(truncated);
    expect(verifyAuditChain(server.ctx.db, tenant.tenant.id, anchor)).toEqual(truncated as AuditVerification);
  });

  test("a chain rebuilt after a cut links and hashes, but not to the anchor's hash", async () => {
    const { tenant, rows } = busyTenant();
    const anchor = { sequence: 5, hash: rows[4]?.hash ?? "" };
    cutLast(tenant, 2);
    // New entries appended where the cut ones were: a valid chain of 6, rewritten from sequence 4.
    const meta: CallMeta = { actor: { type: "system", id: "rewriter" } };
    for (const label of ["a", "b", "c"]) issueApiKey(server.ctx, { tenant: tenant.tenant.id, label }, meta);
    expect(await verifyOverHttp(tenant)).toMatchObject({ intact: true, entriesChecked: 6 });
    const fifth = server.ctx.db.sqlite.query<{ id: string }, [string]>("SELECT id FROM audit_log WHERE chain = ? AND seq = 5").get(tenant.tenant.id);
    expect(await verifyAnchoredOverHttp(tenant, anchor.sequence, anchor.hash)).toMatchObject({
      intact: false,
      entriesChecked: 5,
      firstBrokenEntryId: fifth?.id,
      reason: "anchor_mismatch",
    });
    // An earlier anchor the rewrite did not reach still holds.
    expect(await verifyAnchoredOverHttp(tenant, 3, rows[2]?.hash ?? "")).toMatchObject({ intact: true, entriesChecked: 6 });
  });

  test("half an anchor, or a malformed one, is 400 naming the field", async () => {
    const { tenant, rows } = busyTenant();
    const hash = rows[4]?.hash ?? "";
    for (const [query, field] of [
      [`sequence=5`, "query.hash"],
      [`hash=${hash}`, "query.sequence"],
      [`sequence=0&hash=${hash}`, "query.sequence"],
      [`sequence=5&hash=${hash.toUpperCase()}`, "query.hash"],
      [`sequence=5&hash=abc`, "query.hash"],
      [`sequence=5&hash=${hash}&extra=1`, "query.extra"],
    ] as const) {
      const res = await call(server.url, `/v1/audit/verify?${query}`, { key: tenant.apiKey });
      expect({ query, status: res.status }).toEqual({ query, status: 400 });
      expect(json<{ errors: Array<{ field: string }> }>(res).errors.map((e) => e.field)).toContain(field);
    }
  });
});
