// Lists that parse cleanly and would still screen listed parties as Clear on a first import, when no
// serving version exists for the mass-removal and older-edition guards to compare with: a list with
// no entries (it would count as loaded), and a list dated in the future (every real edition after it
// would then be refused as older, and its age would never reach maxDataAgeDays).
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openDb, type Db } from "@/storage/db";
import { ListParseError } from "@/watchlists/errors";
import { importListFiles, type ListFile } from "@/watchlists/import";
import { latestSnapshot } from "@/watchlists/store/read";
import { type CliFolder, cliFolder } from "../helpers/cli-folder";

const LISTS = join(import.meta.dir, "..", "..", "..", "shared", "watchlists");
const meta = { actor: { type: "cli" as const, id: "test" } };
const UN_TEXT = readFileSync(join(LISTS, "un/consolidated.xml"), "utf8");
const bytes = (text: string) => new TextEncoder().encode(text);
const EMPTY_UN = '<?xml version="1.0"?>\n<CONSOLIDATED_LIST dateGenerated="2026-03-01T00:00:00Z"><INDIVIDUALS/><ENTITIES/></CONSOLIDATED_LIST>\n';
const FUTURE_UN = UN_TEXT.replace('dateGenerated="2026-', 'dateGenerated="2099-');

describe("importListFiles", () => {
  let db: Db;
  afterEach(() => db?.close());

  test("a list with no entries is refused and nothing is published", async () => {
    db = openDb(":memory:");
    const files: ListFile[][] = [
      [{ name: "un-empty.xml", bytes: bytes(EMPTY_UN) }],
      // A FollowTheMoney export of another dataset: valid lines, no sanctioned or PEP person among them.
      [{ name: "zala_entities.ftm.json", bytes: new Uint8Array(readFileSync(join(LISTS, "wikidata/opensanctions_ftm_reference/zala_entities.ftm.json"))) }],
    ];
    for (const set of files) {
      const error = await importListFiles(db, set, meta, { allowMassRemoval: true, allowOlderEdition: true }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ListParseError);
      expect((error as Error).message).toMatch(/^\S+: whole file: holds no (UN|WIKIDATA) entries, so nothing was published/);
      expect(latestSnapshot(db)).toBeNull();
    }
  });

  test("a list dated more than two days ahead of the clock is refused; a real edition then imports", async () => {
    db = openDb(":memory:");
    const error = await importListFiles(db, [{ name: "consolidated.xml", bytes: bytes(FUTURE_UN) }], meta).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ListParseError);
    expect((error as Error).message).toContain("consolidated.xml: publication date: UN says it was published 2099-02-27, after this appliance's clock");
    expect(latestSnapshot(db)).toBeNull();
    const real = await importListFiles(db, [{ name: "consolidated.xml", bytes: bytes(UN_TEXT) }], meta);
    expect(real.results[0]?.status).toBe("imported");
  });

  test("a part dated ahead of the clock beside undated files of its source is refused, naming only its own file", async () => {
    db = openDb(":memory:");
    // OFAC's SDN CSV set (undated) with the non-SDN list's XML dated 2099: merged, the source would
    // take the older, known date of its parts, and the 2099 one would pass unseen.
    const OFAC = join(LISTS, "ofac");
    const future = readFileSync(join(OFAC, "consolidated.xml"), "utf8").replace(/<Publish_Date>[^<]*<\/Publish_Date>/, "<Publish_Date>03/08/2099</Publish_Date>");
    const files = [
      ...["sdn.csv", "add.csv", "alt.csv"].map((name) => ({ name, bytes: new Uint8Array(readFileSync(join(OFAC, name))) })),
      { name: "consolidated.xml", bytes: bytes(future) },
    ];
    const error = await importListFiles(db, files, meta, { allowMassRemoval: true, allowOlderEdition: true }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ListParseError);
    expect((error as Error).message).toStartWith("consolidated.xml: publication date: OFAC says it was published 2099-03-08, after this appliance's clock");
    expect(latestSnapshot(db)).toBeNull();
  });

  test("the margin is two days from the import's clock; an unreadable date is no date and imports", async () => {
    // The real file's dateGenerated is 2026-02-27T00:00:09.554Z.
    const published = Date.parse("2026-02-27T00:00:09.554Z");
    const hour = 3600 * 1000;
    const at = (ms: number) => ({ at: new Date(ms) });
    for (const [clock, refused] of [
      [published - 36 * hour, false],
      [published - 49 * hour, true],
    ] as const) {
      db = openDb(":memory:");
      const outcome = await importListFiles(db, [{ name: "consolidated.xml", bytes: bytes(UN_TEXT) }], meta, at(clock)).catch((e: unknown) => e);
      expect(outcome instanceof ListParseError).toBe(refused);
      db.close();
    }
    // Date.parse would read "Week 47" as 2047: it must never reach it.
    db = openDb(":memory:");
    const unreadable = UN_TEXT.replace('dateGenerated="2026-02-27T00:00:09.554Z"', 'dateGenerated="Week 47"');
    expect(unreadable).not.toBe(UN_TEXT);
    const imported = await importListFiles(db, [{ name: "consolidated.xml", bytes: bytes(unreadable) }], meta, at(published));
    expect(imported.results[0]?.status).toBe("imported");
  });
});

describe("aml lists import", () => {
  let folder: CliFolder;
  beforeAll(() => {
    folder = cliFolder("aml-refusals-");
  });
  afterAll(() => folder.close());

  test("an empty list exits 1 with the reason; lists status still says nothing is loaded", async () => {
    const path = join(folder.dataDir, "un-empty.xml");
    writeFileSync(path, EMPTY_UN);
    const refused = await folder.aml(["lists", "import", path]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("holds no UN entries, so nothing was published");
    const status = await folder.aml(["--json", "lists", "status"]);
    expect(JSON.stringify(JSON.parse(status.stdout))).not.toContain('"UN"');
  });
});
