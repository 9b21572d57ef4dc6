import { afterAll, expect, test } from "bun:test";
import { chmodSync, mkdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { DB_FILE, openDb, privateModeWarnings } from "@/storage/db";
import { tempDataDir } from "../../helpers/server";

/** The data folder holds subject names and key hashes: what openDb creates is the owner's alone. */
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const modeOf = (path: string) => statSync(path).mode & 0o777;

test("a new folder is 0700 and aml.db, its WAL and shared-memory files 0600, under a permissive umask", () => {
  const parent = tempDataDir();
  dirs.push(parent);
  const dataDir = join(parent, "missing-parent", "new-folder");
  const previous = process.umask(0o022);
  try {
    const db = openDb(dataDir);
    try {
      db.sqlite.run("CREATE TABLE probe (x)");
      db.sqlite.run("INSERT INTO probe VALUES (1)");
      expect(modeOf(dataDir)).toBe(0o700);
      // A parent it had to create is not the data folder: the umask's usual mode.
      expect(modeOf(join(parent, "missing-parent"))).toBe(0o755);
      for (const file of [DB_FILE, `${DB_FILE}-wal`, `${DB_FILE}-shm`]) expect([file, modeOf(join(dataDir, file))]).toEqual([file, 0o600]);
      expect(privateModeWarnings(dataDir)).toEqual([]);
    } finally {
      db.close();
    }
  } finally {
    process.umask(previous);
  }
});

test("an existing folder keeps its mode, and a loose one is reported with the chmod that closes it", () => {
  const dataDir = tempDataDir();
  dirs.push(dataDir);
  mkdirSync(dataDir, { recursive: true });
  chmodSync(dataDir, 0o755);
  openDb(dataDir).close();
  chmodSync(join(dataDir, DB_FILE), 0o644);
  expect(modeOf(dataDir)).toBe(0o755);
  const warnings = privateModeWarnings(dataDir);
  expect(warnings).toHaveLength(2);
  expect(warnings[0]).toContain(`chmod 700 ${dataDir}`);
  expect(warnings[1]).toContain(`mode 0644`);
  expect(warnings[1]).toContain(`chmod 600 ${join(dataDir, DB_FILE)}`);
});
