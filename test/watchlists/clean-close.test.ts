import { afterAll, expect, test } from "bun:test";
import { readdirSync, rmSync } from "node:fs";
import { openDb } from "@/storage/db";
import { demoListFiles } from "@/watchlists/demo";
import { importListFiles } from "@/watchlists/import";
import { tempDataDir } from "../helpers/server";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

// The import's prepared statements must be finalized: one still alive at close() keeps SQLite's
// connection open, and a CLI `lists import` then exited leaving the -wal and -shm files behind.
test("an import leaves nothing open: closing the database afterwards leaves only aml.db", async () => {
  const dir = tempDataDir();
  dirs.push(dir);
  const db = openDb(dir);
  const report = await importListFiles(db, demoListFiles(), { actor: { type: "system", id: "test" } });
  expect(report.snapshot).not.toBeNull();
  db.close();
  expect(readdirSync(dir).sort()).toEqual(["aml.db"]);
});
