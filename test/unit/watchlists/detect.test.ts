import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { detectListFile, type ListFormat } from "@/watchlists/detect";
import { ListParseError } from "@/watchlists/errors";
import { FIXTURES, listFile, REAL_FILE_TIMEOUT } from "./shared-files";

setDefaultTimeout(REAL_FILE_TIMEOUT);

// Every file gets a name that points at another format: detection must read the content.
const CASES: [string, string, ListFormat][] = [
  ["ofac/sdn.csv", "UN_consolidated.xml", "ofac-csv-main"],
  ["ofac/add.csv", "sdn.csv", "ofac-csv-add"],
  ["ofac/alt.csv", "add.csv", "ofac-csv-alt"],
  ["ofac/sdn_comments.csv", "alt.csv", "ofac-csv-comments"],
  ["ofac/cons_prim.csv", "cons_comments.csv", "ofac-csv-main"],
  ["ofac/cons_comments.csv", "cons_prim.csv", "ofac-csv-comments"],
  ["ofac/consolidated.xml", "cons_advanced.xml", "ofac-xml"],
  ["ofac/cons_advanced.xml", "SDN.XML", "ofac-advanced-xml"],
  ["un/consolidated.xml", "sdn_advanced.xml", "un-xml"],
  ["un/snapshots/consolidated_2023-03-09.xml", "export.xml", "un-xml"],
  ["eu/sample_fictional_fsf_1_1.xml", "consolidated.xml", "eu-xml"],
  ["uk/ConList.xlsx", "list.ods", "uk-ofsi-xlsx"],
  ["uk/FCDO_SL_2025-08-11_summary.ods", "ConList.xlsx", "uk-fcdo-summary-ods"],
  ["wikidata/wikidata_wbgetentities_json/Q7747.full.json", "Q7747.labels.json", "wikidata-json"],
  ["wikidata/wikidata_wbgetentities_json/Q218295.labels.json", "Q218295.full.json", "wikidata-labels"],
  ["wikidata/opensanctions_ftm_sa_wiki_peps/entities.ftm.json", "dump.json", "ftm-json"],
  ["wikidata/opensanctions_ftm_reference/zala_entities.ftm.json", "latest-all.json", "ftm-json"],
];

describe("format detection by content", () => {
  test.each(CASES)("%s named %s is %s", (rel, name, format) => {
    expect(detectListFile(listFile(rel, name)).format).toBe(format);
  });

  test.each<[string, ListFormat, string]>([
    ["eu/fsf-fictional-1_1.csv", "eu-csv", "EU"],
    ["eu/fsf-fictional-1_1.xml", "eu-xml", "EU"],
    ["uk/conlist-fictional.csv", "uk-ofsi-csv", "UK"],
  ])("fixture %s is %s of source %s", (rel, format, source) => {
    expect(detectListFile(listFile(rel, "upload.bin", FIXTURES))).toMatchObject({ format, source });
  });

  test("the encoding is reported for text files", () => {
    expect(detectListFile(listFile("eu/fsf-fictional-1_1.csv", "x", FIXTURES)).encoding).toBe("utf-8");
    const latin1 = new Uint8Array([...new TextEncoder().encode('1,"CAF'), 0xc9, ...new TextEncoder().encode('",-0- ,"CUBA",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- \r\n')]);
    expect(detectListFile({ name: "x", bytes: latin1 })).toMatchObject({ format: "ofac-csv-main", encoding: "windows-1252" });
  });

  const enc = (s: string) => new TextEncoder().encode(s);
  test.each([
    ["empty file", new Uint8Array(), "empty file"],
    ["unknown XML root", enc('<?xml version="1.0"?><catalog><book/></catalog>'), "<catalog>"],
    ["FCDO full XML", enc("<?xml version='1.0'?><Designations><Designation/></Designations>"), "not supported"],
    ["arbitrary CSV", enc("a,b,c\r\n1,2,3\r\n"), "not a known"],
    ["arbitrary JSON", enc('{"hello": "world"}'), "neither Wikidata"],
    ["a zip that is not a spreadsheet", new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0, 0, 0, 0]), "zip"],
    ["binary bytes", new Uint8Array([1, 2, 3, 0, 0, 5, 6, 7, 8]), "binary"],
  ])("%s is refused with a reason", (_label, bytes, reason) => {
    let caught: unknown;
    try {
      detectListFile({ name: "upload.dat", bytes });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ListParseError);
    expect((caught as ListParseError).file).toBe("upload.dat");
    expect((caught as ListParseError).reason).toContain(reason);
  });
});
