import { describe, expect, test } from "bun:test";
import { type Edition, editionClash, LIST_SAMPLE, listParts, publicationDay, relateEditions } from "@/watchlists/editions";
import { EditionConflictError, isOlderEdition, MassRemovalError } from "@/watchlists/errors";

const ids = (from: number, to: number): Set<string> => new Set(Array.from({ length: to - from }, (_, i) => String(from + i)));
const edition = (format: string, publishedAt: string | null, externalIds: Set<string>, files = [`${format}.file`]): Edition => ({
  format,
  publishedAt,
  files,
  externalIds,
});

describe("relateEditions: editions of one list share at least half of the smaller one's records", () => {
  test.each([
    ["different lists sharing a few parties (OFAC SDN and non-SDN)", edition("ofac-csv", null, ids(0, 1000)), edition("ofac-xml", "2023-03-08", ids(990, 1400)), "distinct"],
    ["exactly half of the smaller one", edition("ofac-xml", "2023-03-08", ids(0, 100)), edition("ofac-advanced-xml", "2020-03-17", ids(50, 500)), "conflict"],
    ["an undated edition beside a dated one", edition("ofac-csv", null, ids(0, 440)), edition("ofac-xml", "2023-03-08", ids(0, 445)), "conflict"],
    ["two dated editions of different days", edition("ofac-xml", "2023-03-08", ids(0, 445)), edition("ofac-advanced-xml", "2020-03-17", ids(0, 375)), "conflict"],
    ["one list in two formats the same day", edition("ofac-xml", "2023-03-08", ids(0, 445)), edition("ofac-advanced-xml", "2023-03-08T00:00:00", ids(0, 445)), "same"],
    ["a date and a date-time of that day", edition("un-xml", "2026-02-27T00:00:09.554Z", ids(0, 10)), edition("un-xml", "2026-02-27", ids(0, 10)), "same"],
    // The EU XML's local time is the day before in UTC; its CSV carries the local date.
    ["a local date-time with an offset and the local date", edition("eu-xml", "2025-08-02T01:30:00+02:00", ids(0, 10)), edition("eu-csv", "2025-08-02", ids(0, 10)), "same"],
    ["two undated editions of one format", edition("ofac-csv", null, ids(0, 10)), edition("ofac-csv", null, ids(0, 10)), "same"],
    ["two undated editions of different formats", edition("uk-ofsi-csv", null, ids(0, 10)), edition("uk-ofsi-xlsx", null, ids(0, 10)), "conflict"],
  ])("%s", (_, a, b, relation) => {
    expect(relateEditions(a, b).relation).toBe(relation as "distinct" | "same" | "conflict");
    expect(relateEditions(b, a).relation).toBe(relation as "distinct" | "same" | "conflict");
  });

  test("counts the records the two share", () => {
    expect(relateEditions(edition("a", null, ids(0, 100)), edition("b", "2020-01-01", ids(40, 200))).shared).toBe(60);
  });
});

describe("EditionConflictError", () => {
  test("names the source, each file with its format and date or undated, and the records shared", () => {
    const error = new EditionConflictError("OFAC", [
      {
        editions: [
          { files: ["cons_prim.csv", "cons_add.csv"], format: "ofac-csv", publishedAt: null, publicationDay: null },
          { files: ["consolidated.xml"], format: "ofac-xml", publishedAt: "2023-03-08T00:00:00.000Z", publicationDay: "2023-03-08" },
        ],
        shared: 440,
      },
    ]);
    expect(error.message).toStartWith("Refused: the OFAC files hold more than one edition of the same list");
    expect(error.message).toContain("cons_prim.csv + cons_add.csv (ofac-csv, undated) and consolidated.xml (ofac-xml, published 2023-03-08) share 440 records");
    expect(error.message).toContain("Nothing was published");
    expect(error.message).toContain("Import one edition of each list");
  });
});

describe("editionClash", () => {
  test("names each edition by the day that was compared, while publishedAt is the API's UTC instant", () => {
    const xml = edition("eu-xml", "2025-08-02T01:30:00+02:00", ids(0, 10), ["eu.xml"]);
    const csv = edition("eu-csv", "2025-08-01", ids(0, 10), ["eu.csv"]);
    expect(relateEditions(xml, csv).relation).toBe("conflict");
    const clash = editionClash(xml, csv, 10);
    expect(clash.editions[0]).toEqual({ files: ["eu.xml"], format: "eu-xml", publishedAt: "2025-08-01T23:30:00.000Z", publicationDay: "2025-08-02" });
    const message = new EditionConflictError("EU", [clash]).message;
    expect(message).toContain("eu.xml (eu-xml, published 2025-08-02) and eu.csv (eu-csv, published 2025-08-01) share 10 records");
  });

  test.each([
    ["2025-08-02", "2025-08-02"],
    ["2025-08-02Z", "2025-08-02"],
    ["2025-08-02+02:00", "2025-08-02"],
    ["2025-08-02T23:59:59-05:00", "2025-08-02"],
    ["08/02/2025", "08/02/2025"],
  ])("the publication day of %s is %s", (raw, day) => {
    expect(publicationDay(raw)).toBe(day);
  });
});

describe("MassRemovalError", () => {
  test("OFAC's one-source advice only for OFAC; every refusal says how to publish an intended change", () => {
    const un = new MassRemovalError([{ source: "UN", removed: 900, previous: 1000, namesLost: 0, previousNames: 3000, format: "un-xml", previousFormat: "un-xml" }]).message;
    expect(un).not.toContain("OFAC");
    expect(un).not.toContain("FCDO");
    expect(un).toContain("If the change is intended");
    expect(un).toContain("aml lists import --allow-mass-removal; over HTTP, allowMassRemoval=true");
    const ofac = new MassRemovalError([{ source: "OFAC", removed: 900, previous: 1000, namesLost: 0, previousNames: 3000 }]).message;
    expect(ofac).toContain("OFAC's SDN and consolidated (non-SDN) files are one source");
  });

  test("a UK switch between OFSI's and the FCDO list is named as such; a cut OFSI file is not", () => {
    const switched = new MassRemovalError([{ source: "UK", removed: 4686, previous: 4686, namesLost: 0, previousNames: 9000, format: "uk-fcdo-summary-ods", previousFormat: "uk-ofsi-xlsx" }]).message;
    expect(switched).toContain("this import is uk-fcdo-summary-ods, the serving version uk-ofsi-xlsx");
    expect(switched).toContain("switching between them replaces every UK record");
    const cut = new MassRemovalError([{ source: "UK", removed: 2000, previous: 4686, namesLost: 0, previousNames: 9000, format: "uk-ofsi-xlsx", previousFormat: "uk-ofsi-xlsx" }]).message;
    expect(cut).not.toContain("FCDO");
  });
});

describe("names in a MassRemovalError", () => {
  test("names are told only when their loss is itself a mass removal", () => {
    const aliases = new MassRemovalError([{ source: "OFAC", removed: 382, previous: 14203, namesLost: 18371, previousNames: 35543 }]).message;
    expect(aliases).toContain("OFAC would lose 382 of its 14,203 serving entities (2.7%) and 18,371 of its 35,543 serving names (52%)");
    expect(aliases).toContain("alt.csv");
    const entities = new MassRemovalError([{ source: "UN", removed: 900, previous: 1000, namesLost: 40, previousNames: 3000 }]).message;
    expect(entities).not.toContain("serving names");
  });
});

describe("isOlderEdition", () => {
  test.each([
    ["2023-03-10T01:11:48.264Z", "2026-02-27T00:00:00.000Z", true],
    // Two dated editions a day apart.
    ["2025-08-01T00:00:00.000Z", "2025-08-02T00:00:00.000Z", true],
    // The EU's XML of a day (01:30 at +02:00) against its CSV of the same day, either way round.
    ["2025-08-01T23:30:00.000Z", "2025-08-02T00:00:00.000Z", false],
    ["2025-08-02T00:00:00.000Z", "2025-08-01T23:30:00.000Z", false],
    ["2026-02-27T00:00:00.000Z", "2023-03-10T01:11:48.264Z", false],
    ["2026-02-27T00:00:00.000Z", "2026-02-27T00:00:00.000Z", false],
    [null, "2026-02-27T00:00:00.000Z", false],
    ["2023-03-10T01:11:48.264Z", null, false],
    ["Week 9", "2026-02-27T00:00:00.000Z", false],
  ] as const)("%p against a serving %p: %p", (imported, serving, older) => {
    expect(isOlderEdition(imported, serving)).toBe(older);
  });
});

describe("listParts: the lists a version is read from, as the next import checks each is still there", () => {
  const sameDay = (a: Edition, b: Edition) => relateEditions(a, b).relation === "same";

  test("one list in two formats of one day is one list; another list is another", () => {
    const sdnXml = edition("ofac-xml", "2023-03-08", ids(0, 1000), ["sdn.xml"]);
    const sdnAdvanced = edition("ofac-advanced-xml", "2023-03-08", ids(0, 1000), ["sdn_advanced.xml"]);
    const cons = edition("ofac-xml", "2023-03-08", ids(990, 1400), ["consolidated.xml"]);
    const lists = listParts([sdnXml, sdnAdvanced, cons], sameDay);
    expect(lists.map((l) => [l.files, l.records])).toEqual([
      [["sdn.xml", "sdn_advanced.xml"], 1000],
      [["consolidated.xml"], 410],
    ]);
  });

  test("the sample is spread over ids on no other list: parties on both lists say nothing of either", () => {
    const [sdn, cons] = listParts([edition("ofac-csv", null, ids(0, 1000)), edition("ofac-csv", null, ids(900, 1100))], () => false);
    expect(sdn!.sampleIds).toHaveLength(LIST_SAMPLE);
    expect(cons!.sampleIds).toHaveLength(LIST_SAMPLE);
    expect(cons!.sampleIds.every((id) => Number(id) >= 1000)).toBe(true);
    expect(sdn!.sampleIds.every((id) => Number(id) < 900)).toBe(true);
    // Spread, not the first ids in order: the first and the last of the list's own ids are both in.
    expect(cons!.sampleIds[0]).toBe("1000");
    expect(Number(cons!.sampleIds.at(-1))).toBeGreaterThan(1090);
  });

  test("a list smaller than the sample is sampled whole; one with no ids of its own has no sample", () => {
    const [big, small, inside] = listParts(
      [edition("a", null, ids(0, 500)), edition("b", null, ids(1000, 1010)), edition("c", null, ids(100, 120))],
      () => false,
    );
    expect(big!.sampleIds).toHaveLength(LIST_SAMPLE);
    expect(small!.sampleIds).toEqual([...ids(1000, 1010)].sort());
    expect(inside!.sampleIds).toEqual([]);
  });
});
