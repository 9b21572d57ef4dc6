import { afterAll, describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createSecretBox, KEY_TEMP_STALE_MS, MASTER_KEY_FILE, readMasterKey } from "@/lib/secret-box";
import { type CliResult, runCli } from "../helpers/cli";
import { type CliFolder, cliFolder, expectCleanFailure } from "../helpers/cli-folder";
import { makeTenant } from "../helpers/tenants";

/**
 * master.key and aml.db belong together: a restore that forgets the key, or brings another folder's,
 * is refused by every command and by `aml serve` at start, instead of at the first webhook delivery.
 */
const folders: CliFolder[] = [];
afterAll(() => {
  for (const folder of folders) folder.close();
});

/**
 * A data folder with one tenant; `sealed` gives it a webhook signing secret sealed under master.key.
 * Onboarding always issues one, so the unsealed case is a tenant without (the demo tenant's case).
 */
function appliance(sealed: boolean): CliFolder {
  const folder = cliFolder("aml-key-");
  folders.push(folder);
  makeTenant(folder.ctx, {}, { withoutSigningSecret: !sealed });
  return folder;
}

const keyPath = (folder: CliFolder) => join(folder.dataDir, MASTER_KEY_FILE);
const keyCheck = (folder: CliFolder) =>
  folder.ctx.db.sqlite.query<{ value: string }, []>("SELECT value FROM app_meta WHERE key = 'master_key_check'").get()?.value;
/** `aml serve` must refuse before it listens; a serve that starts is killed after 20 s and fails the test. */
const serve = (folder: CliFolder): Promise<CliResult> => runCli(["serve", "--port", "0"], { dataDir: folder.dataDir, timeoutMs: 20_000 });

describe("aml.db restored without its master.key", () => {
  test("with sealed secrets: tenant list and serve refuse, name the file, and create no key", async () => {
    const folder = appliance(true);
    rmSync(keyPath(folder));
    const message = new RegExp(`^error: ${keyPath(folder)} is missing, and .*aml\\.db holds 1 webhook signing secret\\(s\\).*restore master\\.key from the same backup as aml\\.db`);
    const [list, server] = await Promise.all([folder.aml(["tenant", "list"]), serve(folder)]);
    expectCleanFailure(list, 1, message);
    expectCleanFailure(server, 1, message);
    expect(existsSync(keyPath(folder))).toBe(false);
  });

  test("without sealed secrets: a new key is created and the key check follows it", async () => {
    const folder = appliance(false);
    const before = keyCheck(folder);
    rmSync(keyPath(folder));
    const list = await folder.aml(["tenant", "list"]);
    expect(list.code).toBe(0);
    const key = readMasterKey(folder.dataDir);
    expect(key).not.toBeNull();
    expect(keyCheck(folder)).toBe(createSecretBox(key ?? new Uint8Array(32)).keyCheck);
    expect(keyCheck(folder)).not.toBe(before);
  });
});

describe("a master.key from another folder", () => {
  test("is refused by tenant list, tenant webhook rotate-secret and serve; the database is unchanged", async () => {
    const folder = appliance(true);
    const other = appliance(false);
    const before = keyCheck(folder);
    copyFileSync(keyPath(other), keyPath(folder));
    const message = new RegExp(`^error: ${keyPath(folder)} is not the master key of .*aml\\.db .*another data folder or backup; restore master\\.key from the same backup`);
    const [list, rotate, server] = await Promise.all([
      folder.aml(["tenant", "list"]),
      folder.aml(["tenant", "webhook", "rotate-secret", "no-matter"]),
      serve(folder),
    ]);
    for (const result of [list, rotate, server]) expectCleanFailure(result, 1, message);
    expect(keyCheck(folder)).toBe(before);
    expect(readFileSync(keyPath(folder), "utf8")).toBe(readFileSync(keyPath(other), "utf8"));
  });
});

describe("the key check", () => {
  test("is recorded when the key is created, and when a key is first loaded without one", async () => {
    const folder = appliance(true);
    const expected = folder.ctx.secrets.keyCheck;
    expect(keyCheck(folder)).toBe(expected);
    // A folder from before the key check: the next command records it for the key it finds.
    folder.ctx.db.sqlite.run("DELETE FROM app_meta WHERE key = 'master_key_check'");
    expect((await folder.aml(["tenant", "list"])).code).toBe(0);
    expect(keyCheck(folder)).toBe(expected);
    expect(expected).toMatch(/^v1:[0-9a-f]{64}$/);
    expect(expected).not.toContain(readFileSync(keyPath(folder), "utf8").trim());
  });
});

describe("key temp files a killed process left", () => {
  test("the next command removes those over a minute old, keeps a fresh one and anything else", async () => {
    const folder = appliance(true);
    const key = readFileSync(keyPath(folder), "utf8");
    // A process killed between writing its temp key and unlinking it leaves a copy of a key behind.
    const stale = `${MASTER_KEY_FILE}.0123456789abcdef.tmp`;
    const fresh = `${MASTER_KEY_FILE}.fedcba9876543210.tmp`;
    const other = `${MASTER_KEY_FILE}.notes.tmp`;
    for (const name of [stale, fresh, other]) writeFileSync(join(folder.dataDir, name), key, { mode: 0o600 });
    const old = (Date.now() - KEY_TEMP_STALE_MS - 5_000) / 1000;
    utimesSync(join(folder.dataDir, stale), old, old);
    utimesSync(join(folder.dataDir, other), old, old);

    expect((await folder.aml(["tenant", "list"])).code).toBe(0);
    const left = readdirSync(folder.dataDir).filter((name) => name.startsWith(`${MASTER_KEY_FILE}.`));
    expect(left.sort()).toEqual([fresh, other].sort());
    expect(readFileSync(keyPath(folder), "utf8")).toBe(key);
  });
});
