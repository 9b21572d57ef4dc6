import { describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createMasterKey, MASTER_KEY_FILE, readMasterKey } from "@/lib/secret-box";
import { tempDirsRemovedAfterAll } from "../../helpers/server";

/**
 * master.key on disk: created whole (never empty or partial, even for a process starting at the same
 * moment), 0600, never overwritten, and no temp file left beside it. Real files and real processes.
 */
const MODULE = join(import.meta.dir, "..", "..", "..", "src", "lib", "secret-box.ts");
const KEY_TEXT = /^[A-Za-z0-9+/]{43}=$/;

const emptyFolder = tempDirsRemovedAfterAll("aml-master-key-");

const b64 = (key: Uint8Array | null) => (key === null ? null : Buffer.from(key).toString("base64"));

describe("createMasterKey", () => {
  test("writes exactly one valid key, mode 0600, and leaves no temp file", () => {
    const dir = emptyFolder();
    const key = createMasterKey(dir);
    expect(key.length).toBe(32);
    const text = readFileSync(join(dir, MASTER_KEY_FILE), "utf8");
    expect(text).toMatch(KEY_TEXT);
    expect(text).toBe(b64(key) ?? "");
    expect(statSync(join(dir, MASTER_KEY_FILE)).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual([MASTER_KEY_FILE]);
    expect(b64(readMasterKey(dir))).toBe(b64(key));
  });

  test("never overwrites an existing key: it returns that key and leaves the file as it was", () => {
    const dir = emptyFolder();
    const existing = `${Buffer.alloc(32, 7).toString("base64")}\n`;
    writeFileSync(join(dir, MASTER_KEY_FILE), existing, { mode: 0o600 });
    expect(b64(createMasterKey(dir))).toBe(Buffer.alloc(32, 7).toString("base64"));
    expect(readFileSync(join(dir, MASTER_KEY_FILE), "utf8")).toBe(existing);
    expect(readdirSync(dir)).toEqual([MASTER_KEY_FILE]);
  });

  test("never overwrites an invalid key either: it refuses, names the file and says what to do", () => {
    const dir = emptyFolder();
    const path = join(dir, MASTER_KEY_FILE);
    writeFileSync(path, "", { mode: 0o600 });
    const message = new RegExp(`^${path} is not a valid master key .*found 0.*restore master\\.key from the same backup as aml\\.db`);
    expect(() => createMasterKey(dir)).toThrow(message);
    expect(() => readMasterKey(dir)).toThrow(message);
    expect(readFileSync(path, "utf8")).toBe("");
    expect(readdirSync(dir)).toEqual([MASTER_KEY_FILE]);
  });
});

test("a master.key that cannot be read is named, with what to do, not a bare errno", () => {
  const dir = emptyFolder();
  const path = join(dir, MASTER_KEY_FILE);
  // A directory where the key should be stands for any unreadable file (as root, permissions never refuse).
  mkdirSync(path);
  expect(() => readMasterKey(dir)).toThrow(new RegExp(`^${path} cannot be read \\(EISDIR.*\\): restore master\\.key from the same backup as aml\\.db\\.$`));
});

/**
 * Several processes opening one new data folder at once (e.g. `aml serve` and a CLI command) each get
 * the folder's single key, as openMasterKey does it: read, and create only when there is none. Each
 * process walks through FOLDERS empty folders; all start folder i at the same wall-clock moment (a
 * spin until a shared deadline) so that their reads and writes overlap.
 */
const PROCESSES = 8;
const ROUNDS = 4;
const FOLDERS = 25;
const STEP_MS = 15;

const CHILD = `
import { createMasterKey, readMasterKey } from ${JSON.stringify(MODULE)};
const [root, start, folders, step] = process.argv.slice(-4);
const keys = [];
for (let i = 0; i < Number(folders); i++) {
  const at = Number(start) + i * Number(step);
  Bun.sleepSync(Math.max(0, at - Date.now() - 3));
  while (Date.now() < at) {}
  const dir = root + "/" + i;
  try {
    const key = readMasterKey(dir) ?? createMasterKey(dir);
    keys.push(Buffer.from(key).toString("base64"));
  } catch (error) {
    keys.push("error: " + (error instanceof Error ? error.message : String(error)));
  }
}
console.log(JSON.stringify(keys));
`;

async function race(root: string, start: number): Promise<string[][]> {
  const children = Array.from({ length: PROCESSES }, () =>
    Bun.spawn([process.execPath, "-e", CHILD, root, String(start), String(FOLDERS), String(STEP_MS)], { stdout: "pipe", stderr: "pipe" }),
  );
  return Promise.all(
    children.map(async (child) => {
      const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
      expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
      return JSON.parse(stdout) as string[];
    }),
  );
}

test(`${PROCESSES} processes creating the key at once all get the same one, and none fails`, async () => {
  for (let round = 0; round < ROUNDS; round++) {
    const root = emptyFolder();
    for (let i = 0; i < FOLDERS; i++) mkdirSync(join(root, String(i)));
    // Far enough ahead for every process to have started and reached its spin.
    const results = await race(root, Date.now() + 1500);
    for (let i = 0; i < FOLDERS; i++) {
      const dir = join(root, String(i));
      const onDisk = readFileSync(join(dir, MASTER_KEY_FILE), "utf8");
      expect(onDisk).toMatch(KEY_TEXT);
      expect(results.map((keys) => keys[i])).toEqual(Array.from({ length: PROCESSES }, () => onDisk));
      expect(readdirSync(dir)).toEqual([MASTER_KEY_FILE]);
    }
  }
});
