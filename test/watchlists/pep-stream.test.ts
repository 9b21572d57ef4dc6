import { afterAll, afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Db, openDb } from "@/storage/db";
import { fileIdentity } from "@/watchlists/disk-lines";
import { ListParseError } from "@/watchlists/errors";
import { type ImportListOptions, importListFiles, readListPath } from "@/watchlists/import";
import { pepWarnings } from "@/watchlists/importers/wikidata/files";
import { newPepStreamStats } from "@/watchlists/importers/wikidata/stream-stats";
import { streamPepJob } from "@/watchlists/pep-stream-job";
import { entityRow } from "@/watchlists/store/entity-row";
import { latestSnapshot } from "@/watchlists/store/read";
import type { EntityRow } from "@/watchlists/store/types";

/**
 * Large PEP files read from disk are parsed on a worker thread that hands the importer stored rows
 * (src/watchlists/pep-stream.ts). `streamPepBytes: 1` sends any PEP file found on disk down that
 * path, so these tests run it on real files and compare it with parsing the same files whole.
 */
setDefaultTimeout(60_000);

const SHARED = join(import.meta.dir, "..", "..", "..", "shared", "watchlists");
const SA = join(SHARED, "wikidata/opensanctions_ftm_sa_wiki_peps/entities.ftm.json");
const WBGET = join(SHARED, "wikidata/wikidata_wbgetentities_json");
const meta = { actor: { type: "cli" as const, id: "test" } };
const STREAMED: ImportListOptions = { streamPepBytes: 1 };
const WHOLE: ImportListOptions = { streamPepBytes: Number.POSITIVE_INFINITY };

const dirs: string[] = [];
const dbs: Db[] = [];
afterEach(() => {
  for (const db of dbs.splice(0)) db.close();
});
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "aml-pep-stream-"));
  dirs.push(dir);
  return dir;
}

function freshDb(): Db {
  const db = openDb(":memory:");
  dbs.push(db);
  return db;
}

interface StoredRow {
  ordinal: number;
  external_id: string;
  content_hash: string;
  data: string;
}

function storedRows(db: Db, versionId: string): StoredRow[] {
  return db.sqlite
    .query<StoredRow, [string]>("SELECT ordinal, external_id, content_hash, data FROM list_entities WHERE version_id = ? ORDER BY ordinal")
    .all(versionId);
}

/**
 * The Saudi FtM sample twelve times over, each copy's ids prefixed so that the copies are distinct
 * persons with their own positions and family links: 5,028 persons, six of the worker's batches of
 * 1,000, so the worker runs out of its four credits and waits for the importer. `tail` is appended
 * as the file's last line.
 */
const COPIES = 12;
const PERSONS = 419 * COPIES;

function largerFtmFile(tail = "", copyCount = COPIES): { path: string; lines: number } {
  const lines = readFileSync(SA, "utf8").trimEnd().split("\n");
  const copies = Array.from({ length: copyCount }, (_, k) => lines.map((line) => line.replaceAll('"Q', `"c${k}-Q`).replaceAll('"q', `"c${k}-q`))).flat();
  const all = [...copies, ...(tail ? [tail] : [])];
  const path = join(tempDir(), "peps.ftm.json");
  writeFileSync(path, `${all.join("\n")}\n`);
  return { path, lines: all.length };
}

/** The wbgetentities sample as a dump (`latest-all.json`, an entity a line) with its label files beside it. */
function wikidataDumpFolder(): { dir: string; labels: string[] } {
  const dir = tempDir();
  const names = readdirSync(WBGET).sort();
  const entities = names
    .filter((n) => n.endsWith(".full.json"))
    .flatMap((n) => Object.values((JSON.parse(readFileSync(join(WBGET, n), "utf8")) as { entities: Record<string, unknown> }).entities));
  writeFileSync(join(dir, "latest-all.json"), `[\n${entities.map((e) => JSON.stringify(e)).join(",\n")}\n]\n`);
  const labels = names.filter((n) => n.endsWith(".labels.json"));
  for (const n of labels) writeFileSync(join(dir, n), readFileSync(join(WBGET, n)));
  return { dir, labels };
}

async function importBothWays(paths: string[]) {
  const streamedDb = freshDb();
  const wholeDb = freshDb();
  const events: { phase: string; done: number }[] = [];
  const streamed = await importListFiles(streamedDb, paths.flatMap(readListPath), meta, {
    ...STREAMED,
    onProgress: (e) => events.push({ phase: e.phase, done: e.done }),
  });
  const whole = await importListFiles(wholeDb, paths.flatMap(readListPath), meta, WHOLE);
  const [s, w] = [streamed.results[0]!.version, whole.results[0]!.version];
  return { s, w, events, streamedRows: storedRows(streamedDb, s.id), wholeRows: storedRows(wholeDb, w.id) };
}

describe("PEP files streamed from disk on a worker thread", () => {
  test("an FtM file stores the same rows, counts, publication date and warnings as when parsed whole", async () => {
    const { s, w, events, streamedRows, wholeRows } = await importBothWays([largerFtmFile().path]);
    expect(s.entityCount).toBe(PERSONS);
    expect(streamedRows).toHaveLength(PERSONS);
    expect(streamedRows).toEqual(wholeRows);
    expect({ ...s, id: "", importedAt: "" }).toEqual({ ...w, id: "", importedAt: "" });
    expect(s.publishedAt).toBe("2024-03-14T11:31:42.000Z");
    // Progress came from the rows the worker handed over: chunks of 1,000, then the rest.
    expect(events.filter((e) => e.phase === "entities").map((e) => e.done)).toEqual([1000, 2000, 3000, 4000, 5000, PERSONS]);
  });

  test("a Wikidata dump with label files stores the rows its stream yields, serialised and hashed", async () => {
    const { dir, labels } = wikidataDumpFolder();
    // Parsed whole, a dump this small is one JSON document whose humans also name their relatives;
    // streamed, its lines are read as a big dump's are (humans left out of the lookup). So the
    // reference is the worker's own stream, run on this thread.
    const db = freshDb();
    const version = (await importListFiles(db, readListPath(dir), meta, STREAMED)).results[0]!.version;
    const onDisk = (name: string) => ({ name, path: join(dir, name), identity: fileIdentity(statSync(join(dir, name))) });
    const stats = newPepStreamStats();
    const expected: EntityRow[] = [];
    for await (const e of streamPepJob({ format: "wikidata-json", entityFiles: [onDisk("latest-all.json")], labelFiles: labels.map(onDisk) }, stats)) {
      expected.push(entityRow(e));
    }
    expect(version.format).toBe("wikidata-json");
    expect(version.entityCount).toBe(15);
    expect(storedRows(db, version.id).map((r) => ({ externalId: r.external_id, contentHash: r.content_hash, data: r.data }))).toEqual(
      expected.map(({ externalId, contentHash, data }) => ({ externalId, contentHash, data })),
    );
    expect(version.nameCount).toBe(expected.reduce((n, r) => n + r.nameCount, 0));
    expect(version.publishedAt).toBe("2026-04-22T11:10:36.000Z");
    expect(stats.emitted).toBe(15);
  });

  test("small label files beside a large dump go to the worker in memory and are read as documents", async () => {
    const { dir, labels } = wikidataDumpFolder();
    // The dump alone reaches the threshold: it is read from disk by line, the label files are not.
    const threshold = statSync(join(dir, "latest-all.json")).size;
    const db = freshDb();
    const version = (await importListFiles(db, readListPath(dir), meta, { streamPepBytes: threshold })).results[0]!.version;
    const dump = { name: "latest-all.json", path: join(dir, "latest-all.json"), identity: fileIdentity(statSync(join(dir, "latest-all.json"))) };
    const inMemory = labels.map((n) => ({ name: n, bytes: new Uint8Array(readFileSync(join(dir, n))) }));
    const stats = newPepStreamStats();
    const expected: EntityRow[] = [];
    for await (const e of streamPepJob({ format: "wikidata-json", entityFiles: [dump], labelFiles: inMemory }, stats)) expected.push(entityRow(e));
    expect(storedRows(db, version.id).map((r) => r.data)).toEqual(expected.map((r) => r.data));
    expect(version.entityCount).toBe(15);
    expect(version.warnings).toEqual(pepWarnings(stats));
    // The labels were read: a relative's name comes from a label file, not from the dump's lines.
    expect(expected.some((r) => r.data.includes('"relatedName"'))).toBe(true);
  });

  test("a broken line after rows were written fails the import with the file and line, and leaves nothing behind", async () => {
    const db = freshDb();
    const before = await importListFiles(db, readListPath(join(SHARED, "un/consolidated.xml")), meta);
    // Ends in "}" like a whole Person line, so the first pass lets it through and the second pass,
    // after thousands of rows are in, finds it is not JSON.
    const { path, lines } = largerFtmFile('{"id":"Q1","schema":"Person","properties":{"name":["Cut Short"]},}');
    const written: number[] = [];
    const err = await importListFiles(db, readListPath(path), meta, {
      ...STREAMED,
      onProgress: (e) => written.push(e.done),
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ListParseError);
    expect((err as ListParseError).file).toBe("peps.ftm.json");
    expect((err as ListParseError).location).toBe(`line ${lines}`);
    expect((err as ListParseError).reason).toContain("JSON");
    // Chunks were written before the failure (persons held back for their family links come last).
    expect(written[0]).toBe(1000);
    expect(written.at(-1)!).toBeLessThan(PERSONS);
    const count = (table: string) => db.sqlite.query<{ n: number }, []>(`SELECT count(*) AS n FROM ${table} WHERE version_id NOT IN (SELECT id FROM list_versions)`).get()!.n;
    expect(count("list_entities")).toBe(0);
    expect(count("list_changes")).toBe(0);
    expect(latestSnapshot(db)?.id).toBe(before.snapshot!.id);
  });

  test("whole lists and a stream in one import: both versions are stored, in one snapshot", async () => {
    const db = freshDb();
    const files = [...readListPath(join(SHARED, "un/consolidated.xml")), ...readListPath(largerFtmFile().path)];
    const report = await importListFiles(db, files, meta, STREAMED);
    const bySource = new Map(report.results.map((r) => [r.version.source, r.version]));
    expect(bySource.get("UN")?.entityCount).toBe(1003);
    expect(bySource.get("WIKIDATA")?.entityCount).toBe(PERSONS);
    expect(storedRows(db, bySource.get("UN")!.id)).toHaveLength(1003);
    expect(storedRows(db, bySource.get("WIKIDATA")!.id)).toHaveLength(PERSONS);
    expect(latestSnapshot(db)?.versions).toEqual({ UN: bySource.get("UN")!.id, WIKIDATA: bySource.get("WIKIDATA")!.id });
  });

  test("a file that changes on disk while the worker reads it fails the import", async () => {
    const db = freshDb();
    // Thirty copies, 12,570 persons: the worker stops at its four credits long before the end of
    // the file, so the change made at the first written chunk lands before its second pass ends.
    const { path } = largerFtmFile("", 30);
    let changed = false;
    const err = await importListFiles(db, readListPath(path), meta, {
      ...STREAMED,
      onProgress: () => {
        if (changed) return;
        changed = true;
        appendFileSync(path, "\n");
      },
    }).catch((e: unknown) => e);
    expect(changed).toBe(true);
    expect(err).toBeInstanceOf(ListParseError);
    expect((err as ListParseError).reason).toBe("the file changed on disk while it was being imported");
    expect(latestSnapshot(db)).toBeNull();
    expect(db.sqlite.query<{ n: number }, []>("SELECT count(*) AS n FROM list_entities").get()!.n).toBe(0);
  });
});
