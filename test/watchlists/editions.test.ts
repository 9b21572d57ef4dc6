// OFAC publishes its consolidated (non-SDN) list in three formats, and the shared ofac/ folder holds
// one edition in each: the undated legacy CSV set, consolidated.xml (2023-03-08) and cons_advanced.xml
// (2020-03-17). Merged, the older editions' records overwrote the newer ones' and the version carried
// the 2020 date. Editions of one list with different dates are refused; different lists still merge.
import { afterEach, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { openDb, type Db } from "@/storage/db";
import { EditionConflictError } from "@/watchlists/errors";
import { importListFiles, type ListFile, readListPath } from "@/watchlists/import";
import { latestSnapshot, versionEntities } from "@/watchlists/store/read";

const SHARED = join(import.meta.dir, "..", "..", "..", "shared", "watchlists");
const meta = { actor: { type: "cli" as const, id: "test" } };
const file = (rel: string, name = rel.split("/").pop() ?? rel): ListFile => ({ name, bytes: new Uint8Array(readFileSync(join(SHARED, rel))) });
const SDN_SET = ["ofac/sdn.csv", "ofac/add.csv", "ofac/alt.csv", "ofac/sdn_comments.csv"];

/** cons_advanced.xml as if issued the same day as consolidated.xml: one list in two formats of one day. */
function advancedOf20230308(): ListFile {
  const xml = readFileSync(join(SHARED, "ofac/cons_advanced.xml"), "utf8");
  const redated = xml.replace(/<DateOfIssue CalendarTypeID="1">\s*<Year>2020<\/Year>\s*<Month>3<\/Month>\s*<Day>17<\/Day>/, (m) =>
    m.replace("2020", "2023").replace("<Day>17", "<Day>8"),
  );
  expect(redated).not.toBe(xml);
  return { name: "cons_advanced.xml", bytes: new TextEncoder().encode(redated) };
}

const rowCount = (db: Db): number => db.sqlite.query<{ n: number }, []>("SELECT count(*) AS n FROM list_entities").get()?.n ?? 0;

let db: Db;
afterEach(() => db?.close());

describe("editions of one list in one import", () => {
  test("the whole shared ofac/ folder is refused naming each edition, its format and date; nothing is published", async () => {
    db = openDb(":memory:");
    await importListFiles(db, [file("un/consolidated.xml")], meta);
    const serving = latestSnapshot(db);
    const rows = rowCount(db);

    const error = await importListFiles(db, [...readListPath(join(SHARED, "ofac")), ...readListPath(join(SHARED, "un/consolidated.xml"))], meta).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EditionConflictError);
    const conflict = error as EditionConflictError;
    expect(conflict.source).toBe("OFAC");
    const pairs = conflict.clashes.map((c) => [...c.editions.map((e) => `${e.files[0]}|${e.format}|${e.publishedAt?.slice(0, 10) ?? "undated"}`), c.shared]);
    expect(pairs).toEqual([
      ["cons_prim.csv|ofac-csv|undated", "cons_advanced.xml|ofac-advanced-xml|2020-03-17", 365],
      ["cons_prim.csv|ofac-csv|undated", "consolidated.xml|ofac-xml|2023-03-08", 440],
      ["cons_advanced.xml|ofac-advanced-xml|2020-03-17", "consolidated.xml|ofac-xml|2023-03-08", 369],
    ]);
    // The SDN set shares about 60 parties with each of them: a different list, not named.
    expect(conflict.message).not.toContain("sdn.csv");
    expect(conflict.message).toContain("consolidated.xml (ofac-xml, published 2023-03-08)");
    expect(conflict.message).toContain("cons_prim.csv + cons_add.csv + cons_alt.csv + cons_comments.csv (ofac-csv, undated)");
    expect(conflict.message).toContain("share 440 records");
    expect(conflict.message).toContain("Nothing was published. Import one edition of each list");
    expect(latestSnapshot(db)?.id).toBe(serving?.id ?? "");
    expect(rowCount(db)).toBe(rows);
  });

  test("two dated editions of different days are refused", async () => {
    db = openDb(":memory:");
    const error = await importListFiles(db, [file("ofac/consolidated.xml"), file("ofac/cons_advanced.xml")], meta).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EditionConflictError);
    expect(latestSnapshot(db)).toBeNull();
  });

  test("one list in two formats of the same day still merges into one version", async () => {
    db = openDb(":memory:");
    const report = await importListFiles(db, [file("ofac/consolidated.xml"), advancedOf20230308()], meta);
    expect(report.results).toHaveLength(1);
    const version = report.results[0]!.version;
    expect(version.format.split("+").sort()).toEqual(["ofac-advanced-xml", "ofac-xml"]);
    expect(version.files.map((f) => f.name).sort()).toEqual(["cons_advanced.xml", "consolidated.xml"]);
    expect(version.publishedAt).toBe("2023-03-08T00:00:00.000Z");
    expect(version.entityCount).toBe(445 + 375 - 369);
  });

  test("the SDN set and the consolidated list (one edition) merge; a party on both keeps both listings", async () => {
    db = openDb(":memory:");
    const report = await importListFiles(db, [...SDN_SET.map((p) => file(p)), file("ofac/consolidated.xml")], meta);
    const version = report.results[0]!.version;
    expect(version.entityCount).toBe(13821 + 445 - 61);
    expect(version.warnings).toContain("OFAC 9647 is in both sdn.csv and consolidated.xml: one party on both lists; records merged");
    const sdnOnly = openDb(":memory:");
    const consOnly = openDb(":memory:");
    try {
      const programmes = async (into: Db, files: ListFile[]) => {
        const v = (await importListFiles(into, files, meta)).results[0]!.version;
        return [...versionEntities(into, v.id)].find((e) => e.externalId === "9647")?.programmes ?? [];
      };
      const [sdn, cons] = [await programmes(sdnOnly, SDN_SET.map((p) => file(p))), await programmes(consOnly, [file("ofac/consolidated.xml")])];
      const merged = [...versionEntities(db, version.id)].find((e) => e.externalId === "9647")?.programmes ?? [];
      expect(new Set(merged)).toEqual(new Set([...sdn, ...cons]));
    } finally {
      sdnOnly.close();
      consOnly.close();
    }
  });
});
