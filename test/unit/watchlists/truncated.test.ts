import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { FIXTURES, firstHalf, listFile, parseError, sharedUtf8, REAL_FILE_TIMEOUT } from "./shared-files";

setDefaultTimeout(REAL_FILE_TIMEOUT);

const enc = (s: string) => new TextEncoder().encode(s);

// A download cut short must fail loudly, naming the file and where it broke.
const HALVES: [string, string, RegExp][] = [
  ["ofac/sdn.csv", "sdn.csv", /^line \d+$/],
  ["ofac/cons_prim.csv", "cons_prim.csv", /^line \d+$/],
  ["ofac/consolidated.xml", "consolidated.xml", /^line \d+, column \d+, element \/sdnList/],
  ["ofac/cons_advanced.xml", "cons_advanced.xml", /^line \d+, column \d+, element \/Sanctions/],
  ["un/consolidated.xml", "consolidated.xml", /^line \d+, column \d+, element \/CONSOLIDATED_LIST/],
  ["un/snapshots/consolidated_2023-03-09.xml", "consolidated_2023-03-09.xml", /^line \d+, column \d+, element \/CONSOLIDATED_LIST/],
  ["eu/sample_fictional_fsf_1_1.xml", "sample_fictional_fsf_1_1.xml", /^line \d+, column \d+, element \/export/],
  ["uk/ConList.xlsx", "ConList.xlsx", /^zip container$/],
  ["uk/FCDO_SL_2025-08-11_summary.ods", "FCDO_SL_2025-08-11_summary.ods", /^zip container$/],
  ["wikidata/wikidata_wbgetentities_json/Q7747.full.json", "Q7747.full.json", /^line 1$/],
  ["wikidata/opensanctions_ftm_sa_wiki_peps/entities.ftm.json", "entities.ftm.json", /^line \d+$/],
];

describe("truncated files", () => {
  test.each(HALVES)("the first half of %s fails with file and location", async (rel, name, location) => {
    const err = await parseError([firstHalf(listFile(rel))]);
    expect(err.file).toBe(name);
    expect(err.location).toMatch(location);
    expect(err.message).toBe(`${err.file}: ${err.location}: ${err.reason}`);
  });

  test.each([
    ["eu/fsf-fictional-1_1.csv", /^line \d+$/],
    ["eu/fsf-fictional-1_1.xml", /^line \d+, column \d+/],
    ["uk/conlist-fictional.csv", /^line \d+$/],
  ])("the first half of fixture %s fails", async (rel, location) => {
    const err = await parseError([firstHalf(listFile(rel, "cut", FIXTURES))]);
    expect(err.file).toBe("cut");
    expect(err.location).toMatch(location);
  });

  test("a cut companion file fails even when the main table is whole", async () => {
    const err = await parseError([listFile("ofac/sdn.csv"), firstHalf(listFile("ofac/add.csv"))]);
    expect(err.file).toBe("add.csv");
    expect(err.reason).toContain("cut short");
  });

  test("an OFAC CSV cut exactly after a field, inside the last column, still fails", async () => {
    const text = sharedUtf8("ofac/sdn.csv");
    const cut = text.slice(0, text.indexOf(",-0- \r\n", 5000) + 3);
    expect(cut.endsWith(",-0")).toBe(true);
    const err = await parseError([{ name: "sdn.csv", bytes: enc(cut) }]);
    expect(err.reason).toContain("ends in the middle of a record");
  });
});

describe("malformed files", () => {
  test("mismatched XML tags give line and column", async () => {
    const xml = sharedUtf8("un/consolidated.xml").replace("<SECOND_NAME>BADEGE</SECOND_NAME>", "<SECOND_NAME>BADEGE</THIRD_NAME>");
    const err = await parseError([{ name: "un.xml", bytes: enc(xml) }]);
    expect(err.location).toMatch(/^line 8, column \d+, element \/CONSOLIDATED_LIST\/INDIVIDUALS\/INDIVIDUAL/);
    expect(err.reason).toContain("malformed XML");
  });

  test("an OFAC row with a missing column names its line", async () => {
    const lines = sharedUtf8("ofac/cons_prim.csv").split("\r\n");
    lines[2] = (lines[2] ?? "").replace(/,[^,]*$/, "");
    const err = await parseError([{ name: "sdn.csv", bytes: enc(lines.join("\r\n")) }]);
    expect(err).toMatchObject({ file: "sdn.csv", location: "line 3", reason: "expected 12 comma-separated fields, found 11" });
  });

  test("a legacy XML whose Record_Count disagrees with its entries is refused", async () => {
    const xml = sharedUtf8("ofac/consolidated.xml").replace("<Record_Count>445</Record_Count>", "<Record_Count>446</Record_Count>");
    const err = await parseError([{ name: "sdn.xml", bytes: enc(xml) }]);
    expect(err.reason).toBe("Record_Count says 446 entries but the file holds 445");
  });

  test("a duplicate ent_num in the main table is refused", async () => {
    const text = sharedUtf8("ofac/cons_prim.csv");
    const first = text.slice(0, text.indexOf("\r\n") + 2);
    const err = await parseError([{ name: "cons_prim.csv", bytes: enc(first + text) }]);
    expect(err).toMatchObject({ location: "line 2", reason: "ent_num 9639 appears twice" });
  });

  test("an FtM line that is not an entity is refused", async () => {
    const text = `${sharedUtf8("wikidata/opensanctions_ftm_reference/zala_entities.ftm.json")}{"id": "x"}\n`;
    const err = await parseError([{ name: "ftm.json", bytes: enc(text) }]);
    expect(err).toMatchObject({ location: "line 92", reason: "not a FollowTheMoney entity (needs id and schema)" });
  });
});
