import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { entityById, listFile, onlyList, sharedUtf8, REAL_FILE_TIMEOUT } from "./shared-files";

setDefaultTimeout(REAL_FILE_TIMEOUT);

const FILES = [
  { rel: "un/consolidated.xml", individuals: 730, entities: 273, date: "2026-02-27T00:00:09.554Z" },
  { rel: "un/snapshots/consolidated_2023-03-09.xml", individuals: 702, entities: 254, date: "2023-03-09T20:11:48.264-05:00" },
];
const current = () => onlyList("un/consolidated.xml", () => [listFile("un/consolidated.xml")]);

describe("UN consolidated list XML", () => {
  test.each(FILES)("$rel: one entity per INDIVIDUAL and ENTITY, dateGenerated as publication date", async (f) => {
    const list = await onlyList(f.rel, () => [listFile(f.rel)]);
    const xml = sharedUtf8(f.rel);
    const individuals = (xml.match(/<INDIVIDUAL>/g) ?? []).length;
    const entities = (xml.match(/<ENTITY>/g) ?? []).length;
    expect([individuals, entities]).toEqual([f.individuals, f.entities]);
    expect(list.entities.filter((e) => e.entityType === "person").length).toBe(individuals);
    expect(list.entities.filter((e) => e.entityType === "organisation").length).toBe(entities);
    expect(list.publishedAt).toBe(f.date);
    expect(list.format).toBe("un-xml");
    expect(list.warnings).toEqual([]);
  });

  test("a record with original-script name, low-quality alias, exact DOB and POB", async () => {
    const e = entityById(await current(), "IQi.001");
    expect(e.primaryName).toBe("SADDAM HUSSEIN AL-TIKRITI");
    expect(e.names).toContainEqual({ name: "صدام حسين التكريتي", kind: "aka", quality: "strong", originalScript: true });
    expect(e.names).toContainEqual({ name: "Abu Ali", kind: "aka", quality: "weak", originalScript: false });
    expect(e.birth).toEqual([{ date: "1937-04-28", place: "al-Awja, near Tikrit, Iraq", country: "IQ" }]);
    expect(e.nationalities).toEqual(["IQ"]);
    expect(e.programmes).toEqual(["Iraq"]);
    expect(e.listedOn).toBe("2003-06-27");
    expect(e.verifyUrl).toBe("https://main.un.org/securitycouncil/en/content/un-sc-consolidated-list");
  });

  test("a BETWEEN date of birth becomes a year range", async () => {
    const e = entityById(await current(), "CDi.030");
    expect(e.birth[0]).toMatchObject({ date: "1973", yearFrom: 1973, yearTo: 1974 });
  });

  test("documents become typed identifiers with the issuing country", async () => {
    const list = await current();
    const withPassport = list.entities.filter((e) => e.identifiers.some((i) => i.type === "passport"));
    expect(withPassport.length).toBeGreaterThan(150);
    const e = list.entities.find((x) => x.identifiers.some((i) => i.number === "OB 0243318"));
    expect(e?.identifiers).toContainEqual({ type: "passport", label: "Passport", number: "OB 0243318", country: "CD" });
  });

  test.each([
    ["CDi.018", "2014-05-09"],
    ["QDi.006", "2022-07-31"],
    ["QDi.250", "2013-02-24"],
    ["QDi.283", "2011-09-30"],
  ])("%s is deceased, dated %s, from the comments", async (ref, date) => {
    const e = entityById(await current(), ref);
    expect(e.deceased).toBe(true);
    expect(e.dateOfDeath).toBe(date);
  });

  test("a mention of a deceased associate does not make the subject deceased", async () => {
    const list = await current();
    const mentions = list.entities.filter((e) => /\(deceased\)/i.test(e.remarks ?? "") && !/(reportedly|confirmed) (deceased|killed|dead)|died/i.test(e.remarks ?? ""));
    expect(mentions.length).toBeGreaterThan(0);
    expect(mentions.filter((e) => e.deceased)).toEqual([]);
  });
});
