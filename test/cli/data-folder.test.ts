import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { chmodSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { verifyAuditChain } from "@/audit/verify";
import { resolveApiKey } from "@/auth/resolve-api-key";
import { sha256Hex } from "@/lib/hash";
import { createSecretBox, readMasterKey } from "@/lib/secret-box";
import { PARTIAL_BACKUP_FILE } from "@/storage/backup";
import { DB_FILE, openDb } from "@/storage/db";
import { EMBEDDED_MIGRATIONS } from "@/storage/migrations";
import { setQuota } from "@/tenants/quota";
import { runCli } from "../helpers/cli";
import { expectCleanFailure } from "../helpers/cli-folder";
import { startTestServer, tempDirsRemovedAfterAll } from "../helpers/server";
import { makeTenant } from "../helpers/tenants";

/** `aml migrate` and `aml backup` on real data folders. */
const freshDir = tempDirsRemovedAfterAll("aml-folder-");

describe("aml migrate", () => {
  test("creates the schema in a new folder, and a second run applies nothing", async () => {
    const dataDir = freshDir();
    const names = EMBEDDED_MIGRATIONS.map((m) => m.name);
    const first = await runCli(["migrate"], { dataDir });
    expect(first.code).toBe(0);
    expect(first.stdout.trim()).toBe(`${join(dataDir, DB_FILE)}: applied ${names.length} migration(s), 0 already applied`);

    const second = await runCli(["--json", "migrate"], { dataDir });
    expect(second.code).toBe(0);
    expect(JSON.parse(second.stdout)).toEqual({ database: join(dataDir, DB_FILE), applied: [], alreadyApplied: names.length });

    const db = new Database(join(dataDir, DB_FILE), { readonly: true });
    const recorded = db.query<{ name: string; sha256: string }, []>("SELECT name, sha256 FROM schema_migrations ORDER BY name").all();
    db.close();
    expect(recorded).toEqual(EMBEDDED_MIGRATIONS.map((m) => ({ name: m.name, sha256: sha256Hex(m.sql) })));
  });

  test("refuses a folder migrated by a newer binary, for migrate and for every other command", async () => {
    const dataDir = freshDir();
    expect((await runCli(["migrate"], { dataDir })).code).toBe(0);
    const db = new Database(join(dataDir, DB_FILE));
    db.run("INSERT INTO schema_migrations (name, sha256, applied_at) VALUES ('9999_from_the_future', 'x', '2099-01-01T00:00:00Z')");
    db.close();
    const [migrate, list] = await Promise.all([runCli(["migrate"], { dataDir }), runCli(["tenant", "list"], { dataDir })]);
    expectCleanFailure(migrate, 1, /migrated by a newer aml \(it has migration 9999_from_the_future/);
    expectCleanFailure(list, 1, /Upgrade the binary/);
  });
});

describe("aml backup", () => {
  test("an online backup beside the running server opens, verifies and keeps keys and sealed secrets usable", async () => {
    const server = await startTestServer();
    try {
      const created = makeTenant(server.ctx, { webhookUrl: "https://hooks.bank.example/aml" });
      setQuota(server.ctx, created.tenant.id, { monthlyScreeningQuota: 12 }, { actor: { type: "system", id: "backup-test" } });
      const destination = join(freshDir(), "nightly");

      const result = await runCli(["--json", "backup", destination], { dataDir: server.dataDir });
      expect(result.code).toBe(0);
      const summary = JSON.parse(result.stdout) as { folder: string; database: string; masterKey: string | null; bytes: number };
      expect(summary).toMatchObject({ folder: destination, database: join(destination, DB_FILE), masterKey: join(destination, "master.key") });
      expect(summary.bytes).toBeGreaterThan(0);
      // The copy holds subject names and the key to the webhook secrets: owner only, whatever the umask.
      expect(statSync(destination).mode & 0o777).toBe(0o700);
      expect(statSync(summary.database).mode & 0o777).toBe(0o600);
      expect(statSync(join(destination, "master.key")).mode & 0o777).toBe(0o600);

      const copy = openDb(destination);
      try {
        expect(copy.sqlite.query<{ integrity_check: string }, []>("PRAGMA integrity_check").get()?.integrity_check).toBe("ok");
        expect(verifyAuditChain(copy, created.tenant.id)).toEqual(verifyAuditChain(server.ctx.db, created.tenant.id));
        expect(verifyAuditChain(copy, created.tenant.id)).toMatchObject({ intact: true, entriesChecked: 3 });
        expect(resolveApiKey(copy, created.apiKey)?.tenantId).toBe(created.tenant.id);
        const sealed = copy.sqlite
          .query<{ s: string }, [string]>("SELECT webhook_secret_enc AS s FROM tenants WHERE id = ?")
          .get(created.tenant.id)?.s;
        expect(createSecretBox(readMasterKey(destination) ?? new Uint8Array(32)).open(sealed ?? "")).toBe(created.webhookSigningSecret ?? "none");
      } finally {
        copy.close();
      }

      const [verify, again] = await Promise.all([
        runCli(["audit", "verify", created.tenant.slug], { dataDir: destination }),
        runCli(["backup", destination], { dataDir: server.dataDir }),
      ]);
      expect(verify.code).toBe(0);
      expect(verify.stdout).toMatch(/intact\s+true/);
      expectCleanFailure(again, 2, /is not empty; choose a new folder/);
      // Written under a temporary name and renamed last: nothing of it is left beside aml.db.
      expect(readdirSync(destination).sort()).toEqual([DB_FILE, "master.key"]);
    } finally {
      await server.close();
    }
  });

  test("an empty folder the operator made keeps its mode, and a loose one is warned about", async () => {
    const server = await startTestServer();
    try {
      const destination = freshDir();
      chmodSync(destination, 0o755);
      const result = await runCli(["backup", destination], { dataDir: server.dataDir });
      expect(result.code).toBe(0);
      expect(statSync(destination).mode & 0o777).toBe(0o755);
      expect(result.stderr).toContain(`warning: ${destination} is open to other users (mode 0755)`);
      expect(result.stderr).toContain(`chmod 700 ${destination}`);
      for (const file of [DB_FILE, "master.key"]) expect(statSync(join(destination, file)).mode & 0o777).toBe(0o600);

      const private_ = freshDir();
      chmodSync(private_, 0o700);
      const quiet = await runCli(["backup", private_], { dataDir: server.dataDir });
      expect(quiet.code).toBe(0);
      expect(quiet.stderr).not.toContain("warning");
    } finally {
      await server.close();
    }
  });

  test("a folder left by a backup stopped part-way is refused by every command, not opened as an empty appliance", async () => {
    // What a killed backup leaves: the copy still under its temporary name (VACUUM INTO had not finished).
    const folder = freshDir();
    writeFileSync(join(folder, PARTIAL_BACKUP_FILE), new Uint8Array(4096), { mode: 0o600 });
    writeFileSync(join(folder, `${PARTIAL_BACKUP_FILE}-journal`), new Uint8Array(1024), { mode: 0o600 });
    // The commands that may create a data folder too: a new aml.db beside the copy would verify as an
    // intact appliance with no entries.
    const lists = join(import.meta.dir, "..", "..", "..", "shared", "watchlists", "un", "consolidated.xml");
    const setUp = [
      ["migrate"],
      ["serve"],
      ["lists", "import", lists],
      ["tenant", "create", "--name", "Acme", "--slug", "acme", "--contact-email", "ops@acme.example", "--plan", "p", "--lists", "UN"],
    ];
    for (const args of [["audit", "verify", "--all"], ["tenant", "list"], ...setUp]) {
      expectCleanFailure(await runCli(args, { dataDir: folder }), 2, /holds an unfinished backup \(aml\.db\.partial, no aml\.db\)/);
    }
    expect(readdirSync(folder).sort()).toEqual([PARTIAL_BACKUP_FILE, `${PARTIAL_BACKUP_FILE}-journal`]);
  });
});
