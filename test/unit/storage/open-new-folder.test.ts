import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DB_FILE, openDb } from "@/storage/db";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/**
 * Two processes opening one new data folder at once (two imports started together, a server and an
 * import): the one that finds the other switching the new database to WAL waits for it, as it waits
 * for any writer, instead of failing at once with "database is locked".
 */
test("opening a new database while another process holds its write lock waits instead of failing", async () => {
  const dir = mkdtempSync(join(tmpdir(), "aml-open-new-"));
  dirs.push(dir);
  // Another process creates the database file and holds its lock for 500 ms, as the first of two
  // processes does while it switches a new database to WAL.
  const holder = Bun.spawn(
    [
      process.execPath,
      "-e",
      `const { Database } = require("bun:sqlite");
       const db = new Database(${JSON.stringify(join(dir, DB_FILE))});
       db.run("BEGIN EXCLUSIVE");
       db.run("CREATE TABLE held (x)");
       console.log("locked");
       Bun.sleepSync(500);
       db.run("COMMIT");
       db.close();`,
    ],
    { stdout: "pipe" },
  );
  const reader = holder.stdout.getReader();
  const { value } = await reader.read();
  expect(new TextDecoder().decode(value)).toContain("locked");

  const db = openDb(dir);
  try {
    expect(db.sqlite.query<{ journal_mode: string }, []>("PRAGMA journal_mode").get()?.journal_mode).toBe("wal");
  } finally {
    db.close();
  }
  expect(await holder.exited).toBe(0);
});
