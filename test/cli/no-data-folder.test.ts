import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { MASTER_KEY_FILE } from "@/lib/secret-box";
import { DB_FILE } from "@/storage/db";
import { runCli, spawnServe } from "../helpers/cli";
import { expectCleanFailure } from "../helpers/cli-folder";
import { SCREENING_FIXTURES } from "../helpers/lists";
import { tempDirsRemovedAfterAll } from "../helpers/server";

/**
 * A mistyped --data-dir: only the commands that set an appliance up (serve, migrate, lists import,
 * tenant create) may create a data folder; every other command exits 2 and creates nothing.
 */
const scratch = tempDirsRemovedAfterAll("aml-no-data-");

const NO_DATA = (dataDir: string) => new RegExp(`^error: no appliance data in ${dataDir} \\(no aml\\.db\\): check --data-dir.*created by aml serve`);

const everydayCommands: Array<[string, string[]]> = [
  ["tenant list", ["tenant", "list"]],
  ["tenant show", ["tenant", "show", "some-bank"]],
  ["tenant webhook rotate-secret", ["tenant", "webhook", "rotate-secret", "some-bank"]],
  ["key list", ["key", "list", "some-bank"]],
  ["key issue", ["key", "issue", "some-bank"]],
  ["quota set", ["quota", "set", "some-bank", "5"]],
  ["profile show", ["profile", "show", "some-bank"]],
  ["audit verify", ["audit", "verify", "some-bank"]],
  ["audit verify --system", ["audit", "verify", "--system"]],
  ["audit verify --all", ["audit", "verify", "--all"]],
  ["lists status", ["lists", "status"]],
  ["screen", ["screen", "--name", "Boris Quillfeather"]],
];

describe("a command that does not set an appliance up", () => {
  test.concurrent.each(everydayCommands)("%s on a missing folder exits 2 and creates nothing", async (_name, args) => {
    const dataDir = join(scratch(), "typo");
    expectCleanFailure(await runCli(args, { dataDir }), 2, NO_DATA(dataDir));
    expect(existsSync(dataDir)).toBe(false);
  });

  test.concurrent.each(everydayCommands)("%s on an empty folder exits 2 and leaves it empty", async (_name, args) => {
    const dataDir = scratch();
    expectCleanFailure(await runCli(args, { dataDir }), 2, NO_DATA(dataDir));
    expect(readdirSync(dataDir)).toEqual([]);
  });

  test("backup from a mistyped folder writes no backup that looks fine", async () => {
    const root = scratch();
    const dataDir = join(root, "typo3");
    const destination = join(root, "bk3");
    expectCleanFailure(await runCli(["backup", destination], { dataDir }), 2, NO_DATA(dataDir));
    expect(existsSync(dataDir)).toBe(false);
    expect(existsSync(destination)).toBe(false);
  });

  test("a relative --data-dir is named by its absolute path", async () => {
    const dataDir = join(scratch(), "typo");
    // runCli runs in the repository: the same folder, relative to it.
    const result = await runCli(["tenant", "list"], { dataDir: relative(join(import.meta.dir, "..", ".."), dataDir) });
    expectCleanFailure(result, 2, NO_DATA(dataDir));
    expect(existsSync(dataDir)).toBe(false);
  });
});

describe("the commands that set an appliance up create a new folder", () => {
  const created = (dataDir: string) => [DB_FILE, MASTER_KEY_FILE].every((f) => existsSync(join(dataDir, f)));

  test("tenant create", async () => {
    const dataDir = join(scratch(), "new");
    const args = ["tenant", "create", "--name", "New Bank", "--slug", "new-bank", "--contact-email", "kyc@new.example", "--plan", "p", "--lists", "OFAC"];
    expect((await runCli(args, { dataDir })).code).toBe(0);
    expect(created(dataDir)).toBe(true);
  });

  test("lists import", async () => {
    const dataDir = join(scratch(), "new");
    const result = await runCli(["lists", "import", join(SCREENING_FIXTURES, "sdn.csv"), join(SCREENING_FIXTURES, "alt.csv")], { dataDir });
    expect(result.code).toBe(0);
    expect(created(dataDir)).toBe(true);
  });

  test("migrate (the database only: the master key comes with the first command that uses it)", async () => {
    const dataDir = join(scratch(), "new");
    expect((await runCli(["migrate"], { dataDir })).code).toBe(0);
    expect(existsSync(join(dataDir, DB_FILE))).toBe(true);
    expect((await runCli(["tenant", "list"], { dataDir })).stdout.trim()).toBe("(none)");
  });

  test("serve, which also pairs the new master key with the database once it is migrated", async () => {
    const dataDir = join(scratch(), "new");
    const server = await spawnServe(dataDir);
    try {
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      expect(created(dataDir)).toBe(true);
    } finally {
      expect(await server.stop()).toBe(0);
    }
    const db = new Database(join(dataDir, DB_FILE), { readonly: true });
    const check = db.query<{ value: string }, []>("SELECT value FROM app_meta WHERE key = 'master_key_check'").get();
    db.close();
    expect(check?.value).toMatch(/^v1:[0-9a-f]{64}$/);
  });
});

describe("a setup command refused on a new folder says the folder it set up holds nothing", () => {
  // The import prints its progress on stderr before the error line; the note comes after it.
  const refusedImport = (result: { code: number | null; stderr: string }) => {
    expect(result.code).toBe(1);
    const lines = result.stderr.trimEnd().split("\n");
    const error = lines.indexOf("error: wrong.txt: start of file: text file that is not a known sanctions or PEP list format");
    expect(error).toBeGreaterThan(-1);
    return lines.slice(error + 1);
  };
  const notAList = () => {
    const file = join(scratch(), "wrong.txt");
    writeFileSync(file, "not a list\n");
    return file;
  };
  const NOTE = (dataDir: string) =>
    `note: ${dataDir} held no appliance before this command, which created its database; it still holds no list, tenant or audit entry. If --data-dir (or AML_DATA_DIR) was mistyped, remove that folder.`;

  test("lists import of a file that is no list, into a missing folder: the note names it, and nothing is removed", async () => {
    const dataDir = join(scratch(), "new");
    expect(refusedImport(await runCli(["lists", "import", notAList()], { dataDir }))).toEqual([NOTE(dataDir)]);
    // Said, not removed: another process may have opened the new database meanwhile.
    expect(existsSync(join(dataDir, DB_FILE))).toBe(true);
  });

  test("into a folder that already holds an appliance: no note", async () => {
    const dataDir = join(scratch(), "new");
    expect((await runCli(["migrate"], { dataDir })).code).toBe(0);
    expect(refusedImport(await runCli(["lists", "import", notAList()], { dataDir }))).toEqual([]);
    expect(existsSync(join(dataDir, DB_FILE))).toBe(true);
  });
});

describe("tenant create refuses its input before it creates a data folder", () => {
  const create = (extra: string[]) => ["tenant", "create", "--name", "New Bank", "--contact-email", "kyc@new.example", "--plan", "p", "--lists", "OFAC", ...extra];

  test.each([
    ["an invalid slug", ["--slug", "New Bank"], /^error: Tenant is invalid: slug must be/],
    ["a webhook URL on a private network", ["--slug", "new-bank", "--webhook-url", "http://10.0.0.1/hook"], /^error: webhookUrl is refused: host 10\.0\.0\.1 is on a private or loopback network/],
  ])("%s: exit 2, no folder", async (_name, extra, message) => {
    const dataDir = join(scratch(), "new");
    expectCleanFailure(await runCli(create(extra), { dataDir }), 2, message);
    expect(existsSync(dataDir)).toBe(false);
  });
});
