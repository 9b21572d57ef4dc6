import { afterEach, beforeEach, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { type Db, DB_FILE, openDb } from "@/storage/db";
import { importListFiles } from "@/watchlists/import";
import { latestSnapshot } from "@/watchlists/store/read";
import { fixtureFiles } from "../helpers/lists";
import { tempDataDir } from "../helpers/server";

/**
 * An import holds a 60 s lease on the import lock. One that stalls past it (a stopped process, a
 * paused VM) can be overtaken: the next import takes the lock and, as every import does first,
 * removes the rows of versions not yet committed, the stalled one's included. A review reproduced
 * the stalled import then waking up and publishing a version of 150,000 entities with 44,000 rows,
 * which replaced the other import's snapshot. Here another connection plays the overtaking import
 * at the moment the first chunk has been written.
 */
const SHARED = join(import.meta.dir, "..", "..", "..", "shared", "watchlists");
const meta = { actor: { type: "system" as const, id: "lease-test" } };
const ofacFiles = () => fixtureFiles(["sdn.csv", "add.csv", "alt.csv"], join(SHARED, "ofac"));

let dataDir: string;
let db: Db;
let other: Database;

beforeEach(async () => {
  dataDir = tempDataDir();
  db = openDb(dataDir);
  await importListFiles(db, fixtureFiles(["consolidated.xml"], join(SHARED, "un")), meta);
  other = new Database(join(dataDir, DB_FILE));
  other.run("PRAGMA busy_timeout = 10000");
});

afterEach(() => {
  other.close();
  db.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const entityRows = () => other.query<{ n: number }, []>("SELECT count(*) AS n FROM list_entities").get()?.n ?? 0;
const committedRows = () =>
  other.query<{ n: number }, []>("SELECT count(*) AS n FROM list_entities WHERE version_id IN (SELECT id FROM list_versions)").get()?.n ?? 0;

test("an import overtaken while it stalled publishes nothing, and leaves the other import's rows and lock alone", async () => {
  const before = latestSnapshot(db);
  const committed = committedRows();
  let overtaken = false;
  const importing = importListFiles(db, ofacFiles(), meta, {
    onProgress: () => {
      if (overtaken) return;
      overtaken = true;
      // What the next import does once the lease has expired: take the lock, remove every
      // uncommitted version's rows, then start writing its own.
      other.run("UPDATE app_meta SET value = ? WHERE key = 'lists.import.lock'", [
        JSON.stringify({ owner: "other-import", holder: "cli:other", expiresAt: new Date(Date.now() + 60_000).toISOString() }),
      ]);
      other.run("DELETE FROM list_entities WHERE version_id NOT IN (SELECT id FROM list_versions)");
      other.run("INSERT INTO list_entities (version_id, ordinal, external_id, content_hash, data) VALUES ('other-version', 0, 'x-1', 'h', '{}')");
    },
  });
  const refusal = await importing.then(() => null, (error: unknown) => String(error));
  expect(refusal).toContain("lost its lock");
  expect(overtaken).toBe(true);
  // Nothing published: the serving snapshot and the committed versions are as before.
  expect(latestSnapshot(db)?.id).toBe(before?.id);
  expect(other.query<{ n: number }, []>("SELECT count(*) AS n FROM list_versions WHERE source = 'OFAC'").get()?.n).toBe(0);
  // No chunk of it was written after the takeover, and its cleanup did not remove the other import's row.
  expect(entityRows()).toBe(committed + 1);
  expect(other.query<{ n: number }, []>("SELECT count(*) AS n FROM list_entities WHERE version_id = 'other-version'").get()?.n).toBe(1);
  // The lock is still the other import's: a failed import releases only its own.
  const lock = other.query<{ value: string }, []>("SELECT value FROM app_meta WHERE key = 'lists.import.lock'").get();
  expect(JSON.parse(lock?.value ?? "{}").owner).toBe("other-import");
});

test("a version whose rows are not all stored is not published", async () => {
  const before = latestSnapshot(db);
  let removed = false;
  const importing = importListFiles(db, ofacFiles(), meta, {
    onProgress: (progress) => {
      // After the last chunk: rows lost by any means the lease does not see.
      if (removed || progress.phase !== "diff") return;
      removed = true;
      other.run("DELETE FROM list_entities WHERE version_id NOT IN (SELECT id FROM list_versions) AND ordinal < 500");
    },
  });
  const refusal = await importing.then(() => null, (error: unknown) => String(error));
  expect(refusal).toMatch(/OFAC: \d+ of \d+ entity rows are stored; nothing was published/);
  expect(removed).toBe(true);
  expect(latestSnapshot(db)?.id).toBe(before?.id);
});

test("an import that keeps its lock publishes as before", async () => {
  const report = await importListFiles(db, ofacFiles(), meta);
  expect(report.results.map((r) => [r.source, r.status])).toEqual([["OFAC", "imported"]]);
  expect(latestSnapshot(db)?.id).toBe(report.snapshot?.id);
  const version = report.results[0]?.version;
  expect(other.query<{ n: number }, [string]>("SELECT count(*) AS n FROM list_entities WHERE version_id = ?").get(version?.id ?? "")?.n).toBe(
    version?.entityCount,
  );
});
