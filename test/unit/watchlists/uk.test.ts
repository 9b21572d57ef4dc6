import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { unzipSync } from "fflate";
import { FIXTURES, entityById, listFile, onlyList, parseError, sharedPath, REAL_FILE_TIMEOUT } from "./shared-files";

setDefaultTimeout(REAL_FILE_TIMEOUT);

const conList = () => onlyList("uk-ofsi-xlsx", () => [listFile("uk/ConList.xlsx")]);
const fcdo = () => onlyList("uk-fcdo", () => [listFile("uk/FCDO_SL_2025-08-11_summary.ods")]);

/** Distinct Group IDs counted straight from the XLSX XML with regexes, independent of the importer. */
function groupIdsFromRawXlsx(): Set<string> {
  const zip = unzipSync(new Uint8Array(readFileSync(sharedPath("uk/ConList.xlsx"))));
  const dec = (name: string) => new TextDecoder().decode(zip[name]);
  const strings = [...dec("xl/sharedStrings.xml").matchAll(/<si>([\s\S]*?)<\/si>/g)].map((m) => (m[1] ?? "").replace(/<[^>]+>/g, ""));
  const rows = [...dec("xl/worksheets/sheet1.xml").matchAll(/<row r="(\d+)"[^>]*>([\s\S]*?)<\/row>/g)];
  const cells = (row: string) => new Map([...row.matchAll(/<c r="([A-Z]+)\d+"[^>]*t="s"[^>]*><v>(\d+)<\/v><\/c>/g)].map((m) => [m[1] ?? "", strings[Number(m[2])] ?? ""]));
  const header = cells(rows[1]?.[2] ?? "");
  const groupCol = [...header].find(([, v]) => v === "Group ID")?.[0];
  return new Set(rows.slice(2).map((r) => cells(r[2] ?? "").get(groupCol ?? "") ?? ""));
}

describe("OFSI Consolidated List (XLSX)", () => {
  test("one entity per Group ID; Last Updated is the publication date", async () => {
    const list = await conList();
    const groups = groupIdsFromRawXlsx();
    expect(groups.size).toBe(4_686);
    expect(new Set(list.entities.map((e) => e.externalId))).toEqual(groups);
    expect(list.publishedAt).toBe("2025-04-10");
    expect(list.format).toBe("uk-ofsi-xlsx");
    const count = (t: string) => list.entities.filter((e) => e.entityType === t).length;
    expect(count("person") + count("organisation") + count("vessel")).toBe(4_686);
    expect(count("vessel")).toBeGreaterThan(0);
  });

  test("name-variant rows fold into one entity with the UK Sanctions List Ref", async () => {
    const e = entityById(await conList(), "12872");
    expect(e.primaryName).toBe("Mohammed Fawaz KHALED");
    expect(e.names.map((n) => n.name)).toContain("Adam Del Toro ABBAS");
    expect(e.birth).toEqual([
      { date: "1969-06-06", place: "Homs", country: "SY" },
      { date: "1967-06-06", place: "Homs", country: "SY" },
    ]);
    expect(e.identifiers).toEqual([{ type: "passport", label: "Passport Number", number: "2255278", country: "SY", note: "Syria" }]);
    expect(e.sourceRef).toBe("CTD0001");
    expect(e.gender).toBe("male");
    expect(e.listedOn).toBe("2013-05-09");
    expect(e.programmes).toEqual(["Counter-Terrorism (Domestic)"]);
    expect(e.verifyUrl).toBe("https://search-uk-sanctions-list.service.gov.uk/");
  });

  test("non-Latin script names and partial dates of birth", async () => {
    const list = await conList();
    const zadachin = entityById(list, "15890");
    expect(zadachin.primaryName).toBe("Andrey Andreevich ZADACHIN");
    expect(zadachin.sourceRef).toBe("RUS1831");
    expect(zadachin.names).toContainEqual({ name: "ЗАДАЧИН Андрей Андреевич", kind: "aka", quality: "strong", originalScript: true, lang: "ru" });
    const kony = list.entities.find((e) => e.primaryName === "ALI KONY");
    expect(kony?.birth.every((b) => Object.keys(b).join() === "date")).toBe(true);
    expect(kony?.birth.map((b) => b.date).sort()).toEqual(["1992", "1993", "1994", "1995"]);
  });

  test("the same layout as CSV (fictional fixture)", async () => {
    const list = await onlyList("uk-ofsi-csv", () => [listFile("uk/conlist-fictional.csv", "conlist.csv", FIXTURES)]);
    expect(list.format).toBe("uk-ofsi-csv");
    expect(list.publishedAt).toBe("2025-09-01");
    expect(list.entities.map((e) => [e.externalId, e.entityType, e.sourceRef])).toEqual([
      ["99001", "person", "RUS9001"],
      ["99002", "person", "CTI9002"],
      ["99003", "organisation", "RUS9003"],
      ["99004", "vessel", "DPR9004"],
    ]);
    const e = entityById(list, "99002");
    expect(e.nationalities).toEqual(["IQ", "SY"]);
    expect(e.birth).toEqual([{ date: "1975" }, { date: "1976" }]);
    expect(e.deceased).toBe(true);
    expect(entityById(list, "99001").names).toContainEqual({ name: "The QUILL", kind: "aka", quality: "weak", originalScript: false });
    expect(entityById(list, "99004").identifiers).toEqual([{ type: "imo", label: "IMO", number: "9999001" }]);
  });

  test("a CSV without the header row is refused", async () => {
    const err = await parseError([{ name: "x.csv", bytes: new TextEncoder().encode("Last Updated,01/09/2025\r\nName 6,Group ID\r\nA,1\r\n") }]);
    expect(err.location).toBe("start of file");
  });
});

describe("FCDO UK Sanctions List summary (ODS)", () => {
  test("one entity per Unique ID; the two designations without a name are reported, not dropped silently", async () => {
    const list = await fcdo();
    const ods = unzipSync(new Uint8Array(readFileSync(sharedPath("uk/FCDO_SL_2025-08-11_summary.ods"))));
    const xml = new TextDecoder().decode(ods["content.xml"]);
    const dataRows = (xml.match(/<table:table-row /g) ?? []).length - 2;
    expect(dataRows).toBe(5_302);
    expect(list.entities.length).toBe(5_300);
    expect(list.warnings).toEqual([
      "FCDO_SL_2025-08-11_summary.ods row 649 (Unique ID BEL0174): record has no name; skipped",
      "FCDO_SL_2025-08-11_summary.ods row 3524 (Unique ID RUS1467): record has no name; skipped",
    ]);
    expect(list.publishedAt).toBe("2025-07-23");
    expect(list.format).toBe("uk-fcdo-summary-ods");
  });

  test("a designation maps type, regime, date and sourceRef", async () => {
    const e = entityById(await fcdo(), "AFG0001");
    expect(e).toMatchObject({
      entityType: "organisation",
      primaryName: "HAJI KHAIRULLAH HAJI SATTAR MONEY EXCHANGE",
      programmes: ["Afghanistan"],
      listedOn: "2012-06-29",
      sourceRef: "AFG0001",
    });
    expect(e.remarks).toContain("OFSI Group ID 12703");
    const all = (await fcdo()).entities;
    const count = (t: string) => all.filter((x) => x.entityType === t).length;
    // README: 3,754 individuals, 1,087 entities, 461 ships; two unnamed individuals are skipped.
    expect([count("person"), count("organisation"), count("vessel")]).toEqual([3_752, 1_087, 461]);
  });

  test("the same summary exported as CSV reads the same", async () => {
    const csv = [
      "Unique ID,OFSI Group ID,Name,Regime Name,Type,Designation source,Date Designated,Sanctions Imposed",
      'AFG0001,12703,HAJI KHAIRULLAH HAJI SATTAR MONEY EXCHANGE,Afghanistan,Entity,UN,29-06-2012,Asset freeze',
      '"YEM0010",16362,"Al-HOUTHI Ali Hussein Badr Al Din",Yemen,Individual,UK,27-02-2024,"Asset freeze, Travel Ban"',
      "",
    ].join("\r\n");
    const list = await onlyList("uk-fcdo-csv", () => [{ name: "fcdo.csv", bytes: new TextEncoder().encode(csv) }]);
    expect(list.format).toBe("uk-fcdo-summary-csv");
    expect(list.publishedAt).toBe("2024-02-27");
    expect(entityById(list, "AFG0001")).toEqual(entityById(await fcdo(), "AFG0001"));
    expect(entityById(list, "YEM0010")).toMatchObject({ entityType: "person", listedOn: "2024-02-27" });
  });
});

