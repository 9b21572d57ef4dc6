import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { entityById, listFile, onlyList, sharedUtf8, REAL_FILE_TIMEOUT } from "./shared-files";

setDefaultTimeout(REAL_FILE_TIMEOUT);

const legacy = () => onlyList("ofac-xml", () => [listFile("ofac/consolidated.xml")]);
const advanced = () => onlyList("ofac-advanced", () => [listFile("ofac/cons_advanced.xml")]);

describe("OFAC legacy XML (sdnList)", () => {
  test("one entity per sdnEntry; Publish_Date is the publication date", async () => {
    const list = await legacy();
    const xml = sharedUtf8("ofac/consolidated.xml");
    expect(list.entities.length).toBe((xml.match(/<sdnEntry>/g) ?? []).length);
    expect(list.entities.length).toBe(445);
    expect(list.entities.filter((e) => e.entityType === "person").length).toBe(79);
    expect(list.publishedAt).toBe("2023-03-08");
    expect(list.format).toBe("ofac-xml");
  });

  test("aka category weak/strong becomes alias quality", async () => {
    const list = await legacy();
    const weak = list.entities.flatMap((e) => e.names).filter((n) => n.quality === "weak");
    expect(weak.length).toBe((sharedUtf8("ofac/consolidated.xml").match(/<category>weak<\/category>/g) ?? []).length);
    expect(entityById(list, "17015").names).toContainEqual({ name: "VEB", kind: "aka", quality: "weak", originalScript: false });
  });

  test("an individual in LAST, First order like the CSV", async () => {
    const e = entityById(await legacy(), "9639");
    expect(e.primaryName).toBe("HANIYA Ismail Abdul Salah");
    expect(e.names.map((n) => n.name)).toEqual(["HANIYA Ismail Abdul Salah", "HANIYA Ismail", "HANIYYA Ismaeel"]);
    expect(e.birth).toEqual([{ date: "1962", place: "Shati" }]);
  });

  test("idList identifiers are typed; non-identifiers stay in remarks", async () => {
    const e = entityById(await legacy(), "17015");
    expect(e.identifiers).toContainEqual({ type: "swift_bic", label: "SWIFT/BIC", number: "BFEARUMM" });
    expect(e.identifiers.some((i) => i.label === "Website")).toBe(false);
    expect(e.remarks).toContain("Website");
  });
});

describe("OFAC advanced XML (sdn_advanced schema)", () => {
  test("one entity per DistinctParty; DateOfIssue is the publication date", async () => {
    const list = await advanced();
    expect(list.entities.length).toBe((sharedUtf8("ofac/cons_advanced.xml").match(/<DistinctParty /g) ?? []).length);
    expect(list.entities.length).toBe(375);
    expect(list.publishedAt).toBe("2020-03-17");
    expect(list.format).toBe("ofac-advanced-xml");
  });

  test("reference values resolve: names, dates, programmes, listing date", async () => {
    const e = entityById(await advanced(), "9639");
    expect(e.primaryName).toBe("HANIYA Ismail Abdul Salah");
    expect(e.birth).toEqual([{ date: "1962", place: "Shati" }]);
    expect(e.programmes).toEqual(["NS-PLC"]);
    expect(e.listedOn).toBe("2006-04-12");
    expect(e.verifyUrl).toBe("https://sanctionssearch.ofac.treas.gov/Details.aspx?id=9639");
  });

  test("locations, features and ID documents resolve for an entity", async () => {
    const e = entityById(await advanced(), "17015");
    expect(e.entityType).toBe("organisation");
    expect(e.names).toContainEqual({ name: "VEB", kind: "aka", quality: "weak", originalScript: false });
    expect(e.addresses).toContainEqual({ full: "9 Akademika Sakharova prospekt, Moscow, 107996, Russia", city: "Moscow", country: "RU" });
    expect(e.identifiers).toContainEqual({ type: "swift_bic", label: "SWIFT/BIC", number: "BFEARUMM" });
    expect(e.programmes).toEqual(["UKRAINE-EO13662"]);
  });

  // The files are three years apart (2020 vs 2023), so companies renamed since then differ;
  // individuals of the NS-PLC list did not change and must read identically.
  test("the same individuals read the same from the legacy and the advanced XML", async () => {
    const [a, b] = [await legacy(), await advanced()];
    const byId = new Map(a.entities.map((e) => [e.externalId, e]));
    const common = b.entities.filter((e) => e.entityType === "person" && byId.has(e.externalId));
    expect(common.length).toBeGreaterThan(70);
    const same = common.filter((e) => byId.get(e.externalId)?.primaryName === e.primaryName);
    expect(same.length / common.length).toBeGreaterThan(0.95);
    const sameBirth = common.filter((e) => JSON.stringify(byId.get(e.externalId)?.birth) === JSON.stringify(e.birth));
    expect(sameBirth.length / common.length).toBeGreaterThan(0.95);
  });
});
