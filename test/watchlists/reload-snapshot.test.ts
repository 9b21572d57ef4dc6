import { afterAll, beforeAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { createLogger } from "@/lib/logger";
import { type Db, DB_FILE, openDb, writeTx } from "@/storage/db";
import { importListFiles } from "@/watchlists/import";
import { WatchlistRuntime } from "@/watchlists/runtime";
import { fixtureFiles } from "../helpers/lists";
import { tempDataDir } from "../helpers/server";

/**
 * A reload of a large snapshot yields to the event loop between entities so that requests keep
 * being served. Those requests commit on the same connection, and other processes (the CLI)
 * commit on theirs. If the reload kept one read statement open across its yields, the connection
 * would keep that statement's old snapshot, and its next BEGIN IMMEDIATE after another
 * connection's commit would fail with SQLITE_BUSY_SNAPSHOT ("database is locked"), which
 * busy_timeout never retries: a screening answered 500.
 */
const OFAC = join(import.meta.dir, "..", "..", "..", "shared", "watchlists", "ofac");

let dataDir: string;
let db: Db;
let other: Database;

beforeAll(async () => {
  dataDir = tempDataDir();
  db = openDb(dataDir);
  const files = fixtureFiles(["sdn.csv", "add.csv", "alt.csv"], OFAC);
  await importListFiles(db, files, { actor: { type: "system", id: "test" } });
  // Another process's connection, as the CLI has.
  other = new Database(join(dataDir, DB_FILE));
  other.run("PRAGMA busy_timeout = 10000");
});

afterAll(() => {
  other.close();
  db.close();
  rmSync(dataDir, { recursive: true, force: true });
});

test("writes on the server's connection succeed while a snapshot loads and another connection commits", async () => {
  let added = 0;
  const runtime = new WatchlistRuntime(
    db,
    () => ({
      add: () => {
        added++;
      },
      finish: () => added,
    }),
    createLogger("silent"),
  );
  const failures: string[] = [];
  let writesDuringLoad = 0;
  let tick = 0;
  const loading = runtime.refresh();
  // Each turn the reload yields: another connection commits, then the server's connection writes.
  const timer = setInterval(() => {
    tick++;
    other.run("INSERT INTO app_meta (key, value) VALUES ('reload-test-other', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value", [String(tick)]);
    try {
      writeTx(db, () => db.sqlite.run("INSERT INTO app_meta (key, value) VALUES ('reload-test-own', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value", [String(tick)]));
      if (runtime.status().loading) writesDuringLoad++;
    } catch (error) {
      failures.push((error as Error).message);
    }
  }, 0);
  const swapped = await loading;
  clearInterval(timer);
  expect(swapped).toBe(true);
  expect(added).toBeGreaterThan(10_000);
  expect(failures).toEqual([]);
  // The writes above ran while the reload was in progress, not only after it.
  expect(writesDuringLoad).toBeGreaterThan(0);
});
