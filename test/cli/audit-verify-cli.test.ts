import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { appendAudit } from "@/audit/append";
import { SYSTEM_CHAIN } from "@/audit/chain";
import type { AuditRow } from "@/audit/rows";
import type { AuditVerification } from "@/audit/verify";
import type { ChainResult } from "@/cli/commands/audit";
import { writeTx } from "@/storage/db";
import { tamperAuditLog } from "../helpers/audit";
import type { CliResult } from "../helpers/cli";
import { type CliFolder, cliFolder } from "../helpers/cli-folder";
import { ofacFilesWith } from "../helpers/lists";
import { makeTenant } from "../helpers/tenants";

/**
 * `aml audit verify --system` and `--all`, run as an operator runs them (a separate process on a real
 * data folder), against chains built by real commands and tampered with the way an attacker with write
 * access to aml.db would: their own SQLite connection, the append-only trigger dropped, a row edited.
 */

interface AllJson {
  intact: boolean;
  chainsChecked: number;
  brokenChains: number;
  chains: ChainResult[];
}

/** Edits exactly one audit_log row the way an attacker would (tamperAuditLog). */
function tamper(folder: CliFolder, sql: string, params: string[]): void {
  tamperAuditLog(folder.dataDir, "audit_log_no_update", (db) => {
    expect(db.run(sql, params).changes).toBe(1);
  });
}

function chainRows(folder: CliFolder, chain: string): AuditRow[] {
  return folder.ctx.db.sqlite.query<AuditRow, [string]>("SELECT * FROM audit_log WHERE chain = ? ORDER BY seq").all(chain);
}

/** `aml lists import` of an OFAC file set with `n` extra fictional people: a new version, one system-chain entry. */
async function importVersion(folder: CliFolder, n: number): Promise<void> {
  const dir = join(folder.dataDir, `import-${n}`);
  mkdirSync(dir);
  const extra = Array.from({ length: n }, (_, i) => ({ id: 990_000 + i, name: `Fictional Person ${n}-${i}` }));
  for (const file of ofacFilesWith(extra)) writeFileSync(join(dir, file.name), file.bytes);
  const result = await folder.aml(["lists", "import", dir]);
  expect(result.code).toBe(0);
}

async function verifyJson<T>(folder: CliFolder, args: string[]): Promise<{ code: number; body: T }> {
  const result = await folder.aml(["--json", "audit", "verify", ...args]);
  expect(result.stderr).toBe("");
  return { code: result.code, body: JSON.parse(result.stdout) as T };
}

describe("aml audit verify --system", () => {
  let folder: CliFolder;
  let rows: AuditRow[];
  beforeAll(async () => {
    folder = cliFolder("aml-audit-system-");
    // Three operator imports, each a new version of the list: three list.import entries on the system chain.
    for (const n of [1, 2, 3]) await importVersion(folder, n);
    // A tenant's actions go to the tenant's own chain, not the system chain.
    makeTenant(folder.ctx);
    rows = chainRows(folder, SYSTEM_CHAIN);
  });
  afterAll(() => folder.close());

  test("an intact system chain verifies (exit 0) in JSON and in the human record", async () => {
    expect(rows.map((r) => [r.seq, r.action, r.actor_type])).toEqual([
      [1, "list.import", "cli"],
      [2, "list.import", "cli"],
      [3, "list.import", "cli"],
    ]);
    const json = await verifyJson<ChainResult>(folder, ["--system"]);
    expect(json.code).toBe(0);
    expect(json.body).toEqual({ chain: "system", tenant: null, tenantStatus: null, intact: true, entriesChecked: 3, firstBrokenEntryId: null, reason: null, lastHash: rows[2]?.hash ?? "", anchor: null });

    const human = await folder.aml(["audit", "verify", "--system"]);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^chain\s+system$/m);
    expect(human.stdout).toMatch(/^intact\s+true$/m);
    expect(human.stdout).toMatch(/^entriesChecked\s+3$/m);
  });

  test("an edited system-chain entry makes --system exit 3 and name it as the first broken entry", async () => {
    const middle = rows[1] as AuditRow;
    tamper(folder, "UPDATE audit_log SET actor_id = ? WHERE id = ?", ["someone-else", middle.id]);

    const json = await verifyJson<ChainResult>(folder, ["--system"]);
    expect(json.code).toBe(3);
    expect(json.body).toEqual({ chain: "system", tenant: null, tenantStatus: null, intact: false, entriesChecked: 2, firstBrokenEntryId: middle.id, reason: "hash_mismatch", lastHash: null, anchor: null });

    const human = await folder.aml(["audit", "verify", "--system"]);
    expect(human.code).toBe(3);
    expect(human.stdout).toMatch(/^intact\s+false$/m);
    expect(human.stdout).toMatch(new RegExp(`^firstBrokenEntryId\\s+${middle.id}$`, "m"));
    expect(human.stdout).toMatch(/^reason\s+hash_mismatch$/m);
  });
});

describe("aml audit verify --all", () => {
  let folder: CliFolder;
  let active: string;
  let suspended: string;
  let named: string;
  const orphan = "01900000-0000-7000-8000-00000000dead";
  beforeAll(async () => {
    folder = cliFolder("aml-audit-all-");
    await importVersion(folder, 1);
    active = makeTenant(folder.ctx).tenant.id;
    suspended = makeTenant(folder.ctx).tenant.id;
    folder.ctx.db.sqlite.run("UPDATE tenants SET status = 'suspended' WHERE id = ?", [suspended]);
    // A slug that reads like the system chain's key: still a tenant, with its own chain.
    named = makeTenant(folder.ctx, { slug: "system" }).tenant.id;
    // A chain in the log whose tenant row is gone (the log has no foreign keys: it outlives what it describes).
    const at = new Date();
    writeTx(folder.ctx.db, () =>
      appendAudit(folder.ctx.db, { chain: orphan, action: "tenant.create", targetType: "tenant", targetId: orphan, at, meta: { actor: { type: "cli", id: "test" } } }),
    );
  });
  afterAll(() => folder.close());

  test("reports every chain, suspended tenants and tenant-less chains included; exit 0 when all are intact, 3 after one is edited", async () => {
    const before = await verifyJson<AllJson>(folder, ["--all"]);
    expect(before.code).toBe(0);
    expect(before.body.intact).toBe(true);
    expect(before.body.chainsChecked).toBe(5);
    expect(before.body.brokenChains).toBe(0);
    const brief = (r: ChainResult) => [r.chain, r.tenant, r.tenantStatus, r.intact, r.entriesChecked];
    expect(before.body.chains.map(brief)).toEqual([
      ["system", null, null, true, 1],
      [active, expect.any(String), "active", true, 2],
      [suspended, expect.any(String), "suspended", true, 2],
      [named, "system", "active", true, 2],
      [orphan, null, null, true, 1],
    ]);
    for (const chain of before.body.chains) expect(chain.lastHash).toBe(chainRows(folder, chain.chain).at(-1)?.hash ?? "");

    // The suspended tenant's chain: --all must really walk it.
    const target = chainRows(folder, suspended)[1] as AuditRow;
    tamper(folder, "UPDATE audit_log SET details = ? WHERE id = ?", ['{"label":"forged"}', target.id]);

    const after = await verifyJson<AllJson>(folder, ["--all"]);
    expect(after.code).toBe(3);
    expect(after.body).toMatchObject({ intact: false, chainsChecked: 5, brokenChains: 1 });
    expect(after.body.chains.map((r) => [r.chain, r.intact, r.firstBrokenEntryId, r.reason])).toEqual([
      ["system", true, null, null],
      [active, true, null, null],
      [suspended, false, target.id, "hash_mismatch"],
      [named, true, null, null],
      [orphan, true, null, null],
    ]);

    const human = await folder.aml(["audit", "verify", "--all"]);
    expect(human.code).toBe(3);
    const lines = human.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^chain\s+tenant\s+status\s+intact\s+entries\s+firstBrokenEntryId\s+reason\s+lastHash$/);
    expect(lines.slice(2, 7).map((l) => l.split(/\s+/).slice(0, 5))).toEqual([
      ["system", "-", "-", "true", "1"],
      [active, expect.any(String), "active", "true", "2"],
      [suspended, expect.any(String), "suspended", "false", "2"],
      [named, "system", "active", "true", "2"],
      [orphan, "(no", "tenant)", "-", "true"],
    ]);
    expect(lines[4]).toContain(`${target.id}  hash_mismatch`);
    expect(lines.at(-1)).toBe("1 of 5 chains broken");
  });

  test("a tenant slugged `system` is a tenant: `verify system` reads its chain, `--system` the system chain", async () => {
    const tenant = await verifyJson<AuditVerification & { tenant: string }>(folder, ["system"]);
    expect(tenant.code).toBe(0);
    expect(tenant.body).toMatchObject({ tenant: "system", entriesChecked: 2, lastHash: chainRows(folder, named).at(-1)?.hash ?? "" });
    const system = await verifyJson<ChainResult>(folder, ["--system"]);
    expect(system.code).toBe(0);
    expect(system.body).toMatchObject({ chain: "system", entriesChecked: 1, lastHash: chainRows(folder, SYSTEM_CHAIN).at(-1)?.hash ?? "" });
  });
});

describe("anchors: an earlier run's entriesChecked and lastHash", () => {
  let folder: CliFolder;
  let kept: string;
  let cut: string;
  let emptied: string;
  let slug: string;
  const file = (name: string) => join(folder.dataDir, "..", `${name}-${process.pid}.json`);
  beforeAll(async () => {
    folder = cliFolder("aml-audit-anchor-");
    await importVersion(folder, 1);
    kept = makeTenant(folder.ctx).tenant.id;
    const created = makeTenant(folder.ctx);
    cut = created.tenant.id;
    slug = created.tenant.slug;
    emptied = makeTenant(folder.ctx).tenant.id;
    const at = new Date();
    for (const n of [1, 2, 3]) {
      writeTx(folder.ctx.db, () =>
        appendAudit(folder.ctx.db, { chain: cut, action: "quota.set", targetType: "tenant", targetId: cut, at, details: { n }, meta: { actor: { type: "cli", id: "test" } } }),
      );
    }
  });
  afterAll(() => folder.close());

  /** Runs `--json audit verify args` and keeps its output where an operator's cron would. */
  async function keep(name: string, args: string[]): Promise<string> {
    const result = await folder.aml(["--json", "audit", "verify", ...args]);
    expect(result.code).toBe(0);
    writeFileSync(file(name), result.stdout);
    return file(name);
  }

  test("entries cut from a chain's end, or a whole chain removed, are truncated against an earlier run; the rest stay intact", async () => {
    const one = await keep("one", [slug]);
    const all = await keep("all", ["--all"]);
    const anchor = { sequence: 5, hash: chainRows(folder, cut)[4]?.hash ?? "" };
    expect((await verifyJson<ChainResult>(folder, [slug, "--against", one])).body).toMatchObject({ chain: cut, intact: true, anchor });
    // One chain's object is the same as one of --all's chains, its tenant's status included.
    const single = (await verifyJson<ChainResult>(folder, [slug])).body;
    const inAll = (JSON.parse(readFileSync(all, "utf8")) as { chains: ChainResult[] }).chains.find((c) => c.chain === cut);
    expect(Object.keys(single).sort()).toEqual(Object.keys(inAll ?? {}).sort());
    expect(single).toMatchObject({ chain: cut, tenant: slug, tenantStatus: "active" });
    expect((await verifyJson<ChainResult>(folder, [slug, "--expect", `5:${anchor.hash}`])).body).toMatchObject({ intact: true, anchor });
    const systemHead = chainRows(folder, SYSTEM_CHAIN).at(-1) as AuditRow;
    const system = await verifyJson<ChainResult>(folder, ["--system", "--expect", `${systemHead.seq}:${systemHead.hash}`]);
    expect(system.body).toMatchObject({ chain: "system", intact: true, anchor: { sequence: systemHead.seq, hash: systemHead.hash } });
    // One entry further than the system chain has: truncated.
    const beyond = await verifyJson<ChainResult>(folder, ["--system", "--expect", `${systemHead.seq + 1}:${systemHead.hash}`]);
    expect(beyond.code).toBe(3);
    expect(beyond.body).toMatchObject({ chain: "system", intact: false, reason: "truncated" });

    tamperAuditLog(folder.dataDir, "audit_log_no_delete", (db) => {
      expect(db.run("DELETE FROM audit_log WHERE chain = ? AND seq > 3", [cut]).changes).toBe(2);
      expect(db.run("DELETE FROM audit_log WHERE chain = ?", [emptied]).changes).toBe(2);
    });
    // Without an anchor the cut chain still verifies: nothing in it shows the cut.
    expect((await verifyJson<ChainResult>(folder, [slug])).code).toBe(0);

    for (const args of [[slug, "--against", one], [slug, "--expect", `5:${anchor.hash}`]]) {
      const result = await verifyJson<ChainResult>(folder, args);
      expect(result.code).toBe(3);
      expect(result.body).toMatchObject({ chain: cut, intact: false, entriesChecked: 3, firstBrokenEntryId: null, reason: "truncated", anchor });
    }
    const after = await verifyJson<AllJson>(folder, ["--all", "--against", all]);
    expect(after.code).toBe(3);
    expect(after.body.chains.map((r) => [r.chain, r.intact, r.entriesChecked, r.reason])).toEqual([
      ["system", true, 1, null],
      [kept, true, 2, null],
      [cut, false, 3, "truncated"],
      [emptied, false, 0, "truncated"],
    ]);
    const human = await folder.aml(["audit", "verify", "--all", "--against", all]);
    expect(human.code).toBe(3);
    expect(human.stdout.trimEnd().split("\n").at(-1)).toBe("2 of 4 chains broken");
  });

  test("a chain rebuilt past the anchor is anchor_mismatch at the anchor's entry", async () => {
    const before = await keep("rebuilt", [slug]);
    const anchorRow = chainRows(folder, cut).at(-1) as AuditRow;
    tamperAuditLog(folder.dataDir, "audit_log_no_delete", (db) => {
      expect(db.run("DELETE FROM audit_log WHERE id = ?", [anchorRow.id]).changes).toBe(1);
    });
    writeTx(folder.ctx.db, () =>
      appendAudit(folder.ctx.db, { chain: cut, action: "quota.set", targetType: "tenant", targetId: cut, at: new Date(), details: { n: "forged" }, meta: { actor: { type: "cli", id: "x" } } }),
    );
    const forged = chainRows(folder, cut).at(-1) as AuditRow;
    expect(forged.seq).toBe(anchorRow.seq);
    const result = await verifyJson<ChainResult>(folder, [slug, "--against", before]);
    expect(result.code).toBe(3);
    expect(result.body).toMatchObject({ intact: false, firstBrokenEntryId: forged.id, reason: "anchor_mismatch" });
  });

  test("an anchor that cannot be read is a usage error (exit 2), never a verification without it", async () => {
    const garbage = file("garbage");
    writeFileSync(garbage, '{"hello": "world"}');
    const hash = "a".repeat(64);
    // An earlier run's output with its anchor edited: a sequence no entry has, a hash no entry can have.
    const edited = (entriesChecked: number, lastHash: string) => {
      const path = file(`edited-${entriesChecked}-${lastHash.length}`);
      writeFileSync(path, JSON.stringify({ chain: "x", tenant: slug, intact: true, entriesChecked, lastHash, firstBrokenEntryId: null, reason: null, anchor: null }));
      return path;
    };
    for (const [args, message] of [
      [[slug, "--expect", "5"], /^error: --expect must be <sequence>:<hash>/],
      [[slug, "--expect", `0:${hash}`], /^error: --expect must be <sequence>:<hash>/],
      [["--all", "--expect", `5:${hash}`], /^error: --expect names one chain's entry: with --all, give --against <file>/],
      [[slug, "--expect", `5:${hash}`, "--against", garbage], /^error: give --expect or --against, not both\./],
      [[slug, "--against", join(tmpdir(), "no-such-anchor-file.json")], /^error: --against: cannot read /],
      [[slug, "--against", garbage], /^error: --against: .* is not the --json output of `aml audit verify`/],
      [[slug, "--against", edited(4.5, hash)], /^error: --against: .* is not the --json output of `aml audit verify`/],
      [[slug, "--against", edited(4, "not-a-hash")], /^error: --against: .* is not the --json output of `aml audit verify`/],
      [[slug, "--against", edited(4, hash.toUpperCase())], /^error: --against: .* is not the --json output of `aml audit verify`/],
    ] as const) {
      const result = await folder.aml(["audit", "verify", ...args]);
      expect({ args, code: result.code, stdout: result.stdout }).toEqual({ args, code: 2, stdout: "" });
      expect(result.stderr.split("\n")[0]).toMatch(message);
    }
  });
});

describe("usage errors", () => {
  let folder: CliFolder;
  beforeAll(() => {
    folder = cliFolder("aml-audit-usage-");
  });
  afterAll(() => folder.close());

  /** Commander's error: exit 2, nothing on stdout, the message first on stderr (the command's help follows it). */
  function expectUsageError(result: CliResult, message: RegExp): void {
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr.split("\n")[0]).toMatch(message);
    expect(result.stderr).toContain("Usage: aml audit verify [options] [tenant]");
  }

  const FORMS = /`aml audit verify <tenant>` \(id or slug\), `aml audit verify --system` or `aml audit verify --all`/;

  test.concurrent.each([
    ["neither a tenant nor a flag", [], /^error: say which chain to verify: /],
    ["a tenant and --system", ["some-bank", "--system"], /^error: give a tenant or --system, not both\. /],
    ["--all and a tenant", ["--all", "some-bank"], /^error: give a tenant or --all, not both\. /],
    ["--system and --all", ["--system", "--all"], /^error: --all already includes the system chain: give --system or --all, not both\. /],
  ])("%s", async (_what, args, message) => {
    const result = await folder.aml(["audit", "verify", ...args]);
    expectUsageError(result, message);
    expect(result.stderr.split("\n")[0]).toMatch(FORMS);
  });

  test("an unknown option exits 2 as well", async () => {
    expectUsageError(await folder.aml(["audit", "verify", "--sytem"]), /^error: unknown option '--sytem'/);
  });
});
