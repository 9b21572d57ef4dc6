import { afterEach, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { openDb, type Db } from "@/storage/db";
import { importListFiles } from "@/watchlists/import";
import { latestSnapshot, snapshotVersions } from "@/watchlists/store/read";
import { ListParseError } from "@/watchlists/errors";

const SHARED = join(import.meta.dir, "..", "..", "..", "shared", "watchlists");
const meta = { actor: { type: "cli" as const, id: "test" } };
const file = (rel: string) => ({ name: rel.split("/").pop()!, bytes: new Uint8Array(readFileSync(join(SHARED, rel))) });

let db: Db;
afterEach(() => db?.close());

describe("list versions", () => {
  test("an import records publication date, sha256, counts and a snapshot", async () => {
    db = openDb(":memory:");
    const report = await importListFiles(db, [file("un/consolidated.xml")], meta);
    expect(report.results).toHaveLength(1);
    const version = report.results[0]!.version;
    expect(version.source).toBe("UN");
    expect(version.publishedAt).toBe("2026-02-27T00:00:09.554Z");
    expect(version.entityCount).toBe(1003);
    expect(version.nameCount).toBeGreaterThan(1003);
    expect(version.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(version.diff).toEqual({ added: 1003, removed: 0, changed: 0, unchanged: 0 });
    expect(latestSnapshot(db)?.versions.UN).toBe(version.id);
  });

  test("a newer file becomes a new version with a diff against the previous one", async () => {
    db = openDb(":memory:");
    const first = await importListFiles(db, [file("un/snapshots/consolidated_2023-03-09.xml")], meta);
    const second = await importListFiles(db, [file("un/consolidated.xml")], meta);
    const v2 = second.results[0]!.version;
    expect(v2.previousVersionId).toBe(first.results[0]!.version.id);
    expect(v2.diff.added).toBeGreaterThan(0);
    expect(v2.diff.removed).toBeGreaterThan(0);
    expect(v2.diff.added + v2.diff.changed + v2.diff.unchanged).toBe(v2.entityCount);
    const changes = db.sqlite
      .query<{ n: number; change: string }, [string]>("SELECT change, count(*) AS n FROM list_changes WHERE version_id = ? GROUP BY change")
      .all(v2.id);
    expect(Object.fromEntries(changes.map((c) => [c.change, c.n]))).toEqual({
      added: v2.diff.added,
      removed: v2.diff.removed,
      changed: v2.diff.changed,
    });
    // Both versions are kept.
    expect(db.sqlite.query<{ n: number }, []>("SELECT count(*) AS n FROM list_versions").get()?.n).toBe(2);
  });

  test("re-importing the same file is reported unchanged and makes no new snapshot", async () => {
    db = openDb(":memory:");
    const first = await importListFiles(db, [file("un/consolidated.xml")], meta);
    const again = await importListFiles(db, [file("un/consolidated.xml")], meta);
    expect(again.results[0]!.status).toBe("unchanged");
    expect(again.snapshot?.id).toBe(first.snapshot!.id);
  });

  test("versions, entities and snapshots are immutable in the database", async () => {
    db = openDb(":memory:");
    const report = await importListFiles(db, [file("un/consolidated.xml")], meta);
    const id = report.results[0]!.version.id;
    expect(() => db.sqlite.run("UPDATE list_versions SET entity_count = 0 WHERE id = ?", [id])).toThrow(/immutable/);
    expect(() => db.sqlite.run("DELETE FROM list_versions WHERE id = ?", [id])).toThrow(/kept/);
    expect(() => db.sqlite.run("UPDATE list_entities SET data = '{}' WHERE version_id = ?", [id])).toThrow(/immutable/);
    expect(() => db.sqlite.run("DELETE FROM list_entities WHERE version_id = ?", [id])).toThrow(/kept/);
    expect(() => db.sqlite.run("DELETE FROM list_snapshots")).toThrow(/kept/);
    // REPLACE deletes without firing DELETE triggers: the inserts themselves are refused.
    expect(() => db.sqlite.run("INSERT OR REPLACE INTO list_versions SELECT * FROM list_versions WHERE id = ?", [id])).toThrow(/immutable/);
    expect(() => db.sqlite.run("REPLACE INTO list_entities SELECT * FROM list_entities WHERE version_id = ? LIMIT 1", [id])).toThrow(/immutable/);
    expect(() =>
      db.sqlite.run("INSERT INTO list_entities (version_id, ordinal, external_id, content_hash, data) VALUES (?, 1000000, 'x', 'x', '{}')", [id]),
    ).toThrow(/immutable/);
    expect(() => db.sqlite.run("INSERT OR REPLACE INTO list_snapshots SELECT * FROM list_snapshots")).toThrow(/immutable/);
  });

  test("a file that fails to parse leaves the serving snapshot unchanged and names the file", async () => {
    db = openDb(":memory:");
    const good = await importListFiles(db, [file("un/consolidated.xml")], meta);
    const whole = readFileSync(join(SHARED, "ofac/consolidated.xml"));
    const truncated = { name: "ofac-cut.xml", bytes: new Uint8Array(whole.subarray(0, Math.floor(whole.length / 2))) };
    const error = await importListFiles(db, [truncated], meta).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ListParseError);
    expect((error as ListParseError).message).toContain("ofac-cut.xml");
    expect(latestSnapshot(db)?.id).toBe(good.snapshot!.id);
    expect(db.sqlite.query<{ n: number }, []>("SELECT count(*) AS n FROM list_versions").get()?.n).toBe(1);
  });

  test("a real import replaces the demo snapshot entirely", async () => {
    db = openDb(":memory:");
    await importListFiles(db, [file("un/snapshots/consolidated_2023-03-09.xml")], meta, { isDemo: true });
    expect(latestSnapshot(db)?.isDemo).toBe(true);
    const real = await importListFiles(db, [file("wikidata/opensanctions_ftm_sa_wiki_peps/entities.ftm.json")], meta);
    const snapshot = latestSnapshot(db)!;
    expect(snapshot.id).toBe(real.snapshot!.id);
    expect(snapshot.isDemo).toBe(false);
    expect(Object.keys(snapshot.versions)).toEqual(["WIKIDATA"]);
    expect(snapshotVersions(db, snapshot).map((v) => v.source)).toEqual(["WIKIDATA"]);
  });

  test("two files of one source (different lists) become one version with the older part's date", async () => {
    db = openDb(":memory:");
    const sdnSet = ["ofac/sdn.csv", "ofac/add.csv", "ofac/alt.csv"].map(file);
    const report = await importListFiles(db, [...sdnSet, file("ofac/consolidated.xml")], meta);
    expect(report.results).toHaveLength(1);
    const version = report.results[0]!.version;
    expect(version.source).toBe("OFAC");
    expect(version.format).toBe("ofac-csv+ofac-xml");
    expect(version.files.map((f) => f.name).sort()).toEqual(["add.csv", "alt.csv", "consolidated.xml", "sdn.csv"]);
    // The oldest known part's date (the CSV set carries none): data age is never overstated.
    expect(version.publishedAt?.startsWith("2023-03-08")).toBe(true);
  });

  test("an unchanged file reports the serving version with a zero diff, not the diff it was imported with", async () => {
    db = openDb(":memory:");
    await importListFiles(db, [file("un/snapshots/consolidated_2023-03-09.xml")], meta);
    const first = await importListFiles(db, [file("un/consolidated.xml")], meta);
    expect(first.results[0]!.version.diff.added).toBeGreaterThan(0);
    const again = await importListFiles(db, [file("un/consolidated.xml")], meta);
    const result = again.results[0]!;
    expect(result.status).toBe("unchanged");
    expect(result.version.id).toBe(first.results[0]!.version.id);
    expect(result.version.diff).toEqual({ added: 0, removed: 0, changed: 0, unchanged: 1003 });
    // The version's own diff, against the version before it, is unchanged where it is stored.
    expect(snapshotVersions(db, latestSnapshot(db)!)[0]?.diff).toEqual(first.results[0]!.version.diff);
  });

  test("imports are single-flight: a second import while one runs is refused", async () => {
    db = openDb(":memory:");
    const files = [file("un/consolidated.xml")];
    const results = await Promise.allSettled([importListFiles(db, files, meta), importListFiles(db, files, meta)]);
    const refused = results.filter((r) => r.status === "rejected");
    expect(refused).toHaveLength(1);
    expect(String((refused[0] as PromiseRejectedResult).reason)).toContain("already running");
  });

  test("orphan entities of an import that crashed before its commit are removed by the next import", async () => {
    db = openDb(":memory:");
    db.sqlite.run("INSERT INTO list_entities (version_id, ordinal, external_id, content_hash, data) VALUES ('crashed', 0, 'x', 'h', '{}')");
    await importListFiles(db, [file("un/consolidated.xml")], meta);
    expect(db.sqlite.query<{ n: number }, []>("SELECT count(*) AS n FROM list_entities WHERE version_id = 'crashed'").get()?.n).toBe(0);
  });
});
