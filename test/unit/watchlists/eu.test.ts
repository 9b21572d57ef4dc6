import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { FIXTURES, entityById, listFile, onlyList, parseError, REAL_FILE_TIMEOUT } from "./shared-files";

setDefaultTimeout(REAL_FILE_TIMEOUT);

const xmlFixture = () => onlyList("eu-xml", () => [listFile("eu/fsf-fictional-1_1.xml", "fsf.xml", FIXTURES)]);
const csvFixture = () => onlyList("eu-csv", () => [listFile("eu/fsf-fictional-1_1.csv", "fsf.csv", FIXTURES)]);

describe("EU Financial Sanctions File", () => {
  test("the published fictional sample (XML 1.1) parses", async () => {
    const list = await onlyList("eu-sample", () => [listFile("eu/sample_fictional_fsf_1_1.xml")]);
    expect(list.format).toBe("eu-xml-1.1");
    expect(list.publishedAt).toBe("2025-08-01T18:02:11.123+02:00");
    expect(list.entities.map((e) => [e.externalId, e.entityType])).toEqual([
      ["990001", "person"],
      ["990002", "person"],
      ["990003", "organisation"],
    ]);
    const deceased = entityById(list, "990002");
    expect(deceased.deceased).toBe(true);
    expect(deceased.dateOfDeath).toBe("2019");
    expect(deceased.birth).toEqual([
      { date: "1970", circa: true },
      { date: "1971", yearFrom: 1971, yearTo: 1973 },
    ]);
  });

  test("XML 1.1 and CSV 1.1 of the same records give identical entities", async () => {
    const [xml, csv] = [await xmlFixture(), await csvFixture()];
    expect(xml.entities.length).toBe(5);
    expect(csv.entities).toEqual(xml.entities);
    expect(xml.format).toBe("eu-xml-1.1");
    expect(csv.format).toBe("eu-csv-1.1");
    expect(xml.publishedAt).toBe("2025-09-01T17:30:00.000+02:00");
    expect(csv.publishedAt).toBe("2025-09-01");
  });

  test("a person: other-script alias with language, weak alias, identifications, regulations", async () => {
    const e = entityById(await csvFixture(), "991001");
    expect(e.primaryName).toBe("Anatol Grigorievich Vexmoor");
    expect(e.names).toContainEqual({ name: "Анатол Григорьевич Вексмур", kind: "aka", quality: "strong", originalScript: true, lang: "ru" });
    expect(e.names).toContainEqual({ name: "The Quill", kind: "aka", quality: "weak", originalScript: false });
    expect(e.identifiers).toContainEqual({
      type: "national_id",
      label: "National identity card",
      number: "0000 000001",
      country: "RU",
      note: "issued by Ministry of Fiction; known expired",
    });
    expect(e.programmes).toEqual(["RUS", "UKR"]);
    expect(e.sourceRef).toBe("EU.9101.11");
    expect(e.verifyUrl).toBe("https://eur-lex.europa.eu/legal-content/EN/TXT/?uri=CELEX:90000001");
    expect(e.gender).toBe("male");
  });

  test.each([
    ["991002", [{ date: "1975", yearFrom: 1975, yearTo: 1977, country: "IQ" }, { date: "1974", circa: true, place: "Sampletown", country: "IQ" }]],
    ["991004", [{ date: "1970-06", place: "Minsk", country: "BY" }]],
    ["991005", [{ date: "1968", circa: true, country: "KP" }]],
  ])("birth dates of %s: ranges, circa and month-only dates", async (id, births) => {
    expect(entityById(await csvFixture(), id).birth).toEqual(births);
  });

  test("deceased from the remark, with its date; several citizenships", async () => {
    const list = await csvFixture();
    expect(entityById(list, "991002")).toMatchObject({ deceased: true, dateOfDeath: "2020-03-14" });
    expect(entityById(list, "991004").nationalities).toEqual(["BY", "UA"]);
    expect(list.entities.filter((e) => e.deceased).map((e) => e.externalId)).toEqual(["991002"]);
  });

  test("an enterprise with registration number, SWIFT and two addresses", async () => {
    const e = entityById(await xmlFixture(), "991003");
    expect(e.entityType).toBe("organisation");
    expect(e.identifiers.map((i) => [i.type, i.number])).toEqual([
      ["registration", "0000000000001"],
      ["swift_bic", "ZTCDRUMM"],
    ]);
    expect(e.addresses.map((a) => a.country)).toEqual(["RU", "TR"]);
  });

  test("a CSV row with a missing field is an error with its line", async () => {
    const file = listFile("eu/fsf-fictional-1_1.csv", "fsf.csv", FIXTURES);
    const text = new TextDecoder().decode(file.bytes);
    const lines = text.split("\r\n");
    lines[5] = (lines[5] ?? "").replace(/;[^;]*$/, "");
    const err = await parseError([{ name: "broken.csv", bytes: new TextEncoder().encode(lines.join("\r\n")) }]);
    expect(err.file).toBe("broken.csv");
    expect(err.location).toBe("line 6");
    expect(err.reason).toContain("fields but the header has");
  });
});
