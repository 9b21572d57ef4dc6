import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { parseListFiles } from "@/watchlists/parse-files";
import { FIXTURES, dirFiles, listFile, onlyList, parseError, sharedText, REAL_FILE_TIMEOUT } from "./shared-files";

setDefaultTimeout(REAL_FILE_TIMEOUT);

const consNames = ["ofac/cons_prim.csv", "ofac/cons_add.csv", "ofac/cons_alt.csv", "ofac/cons_comments.csv"];
const entNums = (rel: string) => new Set([...sharedText(rel).matchAll(/^(\d+),/gm)].map((m) => m[1]));

describe("parseListFiles grouping", () => {
  test("an OFAC CSV set is assembled by content, whatever the files are called", async () => {
    const misleading = ["add.csv", "alt.csv", "sdn_comments.csv", "sdn.csv"];
    const renamed = consNames.map((rel, i) => listFile(rel, misleading[i]));
    const [list] = await parseListFiles(renamed.reverse());
    const normal = await onlyList("ofac-cons", () => consNames.map((p) => listFile(p)));
    expect(list?.entities).toEqual(normal.entities);
    expect(list?.files?.sort()).toEqual([...misleading].sort());
  });

  test("the SDN and the consolidated sets form one OFAC list; shared entries are merged and reported", async () => {
    const files = [...["ofac/sdn.csv", "ofac/add.csv", "ofac/alt.csv", "ofac/sdn_comments.csv"], ...consNames].map((p) => listFile(p));
    const lists = await parseListFiles(files);
    const sdn = entNums("ofac/sdn.csv");
    const cons = entNums("ofac/cons_prim.csv");
    const shared = [...cons].filter((id) => sdn.has(id));
    expect(shared.length).toBe(60);
    expect(lists.map((l) => l.format)).toEqual(["ofac-csv"]);
    expect(lists[0]?.entities.length).toBe(new Set([...sdn, ...cons]).size);
    const merged = lists[0]?.warnings.filter((w) => w.includes("one party on both lists; records merged")) ?? [];
    expect(merged.length).toBe(60);
    // Once in each file, so the warning names both rather than saying the id repeats in sdn.csv.
    expect(merged.find((w) => w.startsWith("id 9647 "))).toMatch(/^id 9647 is in both sdn\.csv line \d+ and cons_prim\.csv line \d+: /);
  });

  test("one list per source and format, in source order", async () => {
    const files = [
      listFile("wikidata/opensanctions_ftm_reference/zala_entities.ftm.json"),
      listFile("un/snapshots/consolidated_2023-03-09.xml"),
      listFile("ofac/consolidated.xml"),
      listFile("eu/fsf-fictional-1_1.csv", "eu.csv", FIXTURES),
      listFile("eu/fsf-fictional-1_1.xml", "eu.xml", FIXTURES),
      listFile("uk/conlist-fictional.csv", "uk.csv", FIXTURES),
      ...consNames.map((p) => listFile(p)),
      ...dirFiles("wikidata/wikidata_wbgetentities_json"),
    ];
    const lists = await parseListFiles(files);
    expect(lists.map((l) => `${l.source}/${l.format}/${l.entities.length}`)).toEqual([
      "OFAC/ofac-csv/442",
      "OFAC/ofac-xml/445",
      "EU/eu-csv-1.1/5",
      "EU/eu-xml-1.1/5",
      "UK/uk-ofsi-csv/4",
      "UN/un-xml/956",
      "WIKIDATA/ftm-json/0",
      "WIKIDATA/wikidata-json/15",
    ]);
  });

  test.each([
    ["two versions of one list format", () => [listFile("un/consolidated.xml"), listFile("un/snapshots/consolidated_2023-03-09.xml")], "import one version"],
    ["a companion without its main table", () => [listFile("ofac/add.csv")], "without its main table"],
    ["two downloads of the same OFAC main table", () => [listFile("ofac/sdn.csv"), listFile("ofac/snapshots/sdn_2024-05-03.csv")], "two versions of one OFAC list"],
    ["a second address file for one set", () => [listFile("ofac/cons_prim.csv"), listFile("ofac/cons_add.csv"), listFile("ofac/cons_add.csv", "again.csv")], "second OFAC add file"],
  ])("%s is refused", async (_name, files, reason) => {
    const err = await parseError(files());
    expect(err.reason).toContain(reason);
  });

  test("a comments file whose sdn.csv was cut short is named as such, not as a second file of the other list", async () => {
    const cut = sharedText("ofac/sdn.csv").split("\n").slice(0, 3000).join("\n");
    const files = [
      { name: "sdn.csv", bytes: new Uint8Array(Buffer.from(cut, "latin1")) },
      listFile("ofac/sdn_comments.csv"),
      listFile("ofac/cons_prim.csv"),
      listFile("ofac/cons_comments.csv"),
    ];
    const err = await parseError(files);
    expect(err.file).toBe("sdn_comments.csv");
    expect(err.reason).toMatch(/^OFAC comments file whose main table is missing or cut short: only \d+ of its \d+ ent_nums appear in a main table of the import/);
    expect(err.reason).not.toContain("second OFAC");
  });
});
