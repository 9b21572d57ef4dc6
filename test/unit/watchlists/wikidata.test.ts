import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { entitiesIn } from "@/watchlists/importers/wikidata/json";
import { buildWikidataLookup } from "@/watchlists/importers/wikidata/lookup";
import { parseWikidataLines } from "@/watchlists/importers/wikidata/parse";
import { newPepStreamStats } from "@/watchlists/importers/wikidata/stream-stats";
import { parseListFiles } from "@/watchlists/parse-files";
import { derivePepTiers } from "@/watchlists/pep-tier";
import { dirFiles, entityById, onlyList, parseError, REAL_FILE_TIMEOUT } from "./shared-files";

setDefaultTimeout(REAL_FILE_TIMEOUT);

const DIR = "wikidata/wikidata_wbgetentities_json";
const wbget = () => onlyList("wikidata-dir", () => dirFiles(DIR));
const decode = (b: Uint8Array) => new TextDecoder().decode(b);

interface RawEntity {
  id: string;
  claims?: Record<string, { mainsnak?: { datavalue?: { value?: { id?: string } } }; rank?: string }[]>;
}

function rawEntities(): RawEntity[] {
  return dirFiles(DIR).flatMap((f) => Object.values((JSON.parse(decode(f.bytes)) as { entities: Record<string, RawEntity> }).entities));
}

const claimIds = (e: RawEntity, p: string) => (e.claims?.[p] ?? []).filter((s) => s.rank !== "deprecated").map((s) => s.mainsnak?.datavalue?.value?.id);

describe("Wikidata entity JSON (wbgetentities responses)", () => {
  test("every human of the full files is listed; label files are only a lookup", async () => {
    const list = await wbget();
    const humans = rawEntities().filter((e) => claimIds(e, "P31").includes("Q5"));
    expect(humans.length).toBe(15);
    expect(list.entities.map((e) => e.externalId).sort()).toEqual(humans.map((h) => h.id).sort());
    expect(list.format).toBe("wikidata-json");
    expect(list.publishedAt).toBe("2026-04-22T11:10:36Z");
    expect(list.files?.length).toBe(189);
  });

  test("positions held (P39) with P580/P582 qualifiers, labels and countries", async () => {
    const putin = entityById(await wbget(), "Q7747");
    const raw = rawEntities().find((e) => e.id === "Q7747");
    expect(putin.pep?.positions.length).toBe(claimIds(raw ?? { id: "" }, "P39").length);
    // 22 P39 statements, one of them deprecated (a disputed claim) and left out.
    expect(putin.pep?.positions.length).toBe(21);
    expect(putin.pep?.positions).toContainEqual({
      title: "President of Russia",
      positionId: "Q218295",
      country: "RU",
      international: false,
      start: "2000-05-07",
      end: "2008-05-07",
    });
    expect(putin.birth[0]?.date).toBe("1952-10-07");
    expect(putin.nationalities).toEqual(["RU"]);
    expect(putin.gender).toBe("male");
    expect(putin.verifyUrl).toBe("https://www.wikidata.org/wiki/Q7747");
    expect(derivePepTiers(putin, "RU")).toEqual(["Domestic"]);
    expect(derivePepTiers(putin, "DE")).toEqual(["Foreign"]);
  });

  test("family links (P22/P25/P26/P40/P451/P1038) make relatives FamilyOrAssociate", async () => {
    const list = await wbget();
    const daughter = entityById(list, "Q19816371");
    expect(daughter.pep?.positions).toEqual([]);
    expect(daughter.pep?.relations).toContainEqual({ relatedId: "Q7747", relatedName: "Vladimir Putin", relationship: "parent" });
    expect(derivePepTiers(daughter, "RU")).toEqual(["FamilyOrAssociate"]);
    const putin = entityById(list, "Q7747");
    expect(putin.pep?.relations).toContainEqual({ relatedId: "Q19816371", relatedName: "Maria Vorontsova", relationship: "child" });
    expect(putin.pep?.relations).toContainEqual({ relatedId: "Q254220", relatedName: "Alina Kabaeva", relationship: "partner" });
  });

  test("date of death (P570) marks the person deceased", async () => {
    const father = entityById(await wbget(), "Q19300851");
    expect(father.deceased).toBe(true);
    expect(father.dateOfDeath).toBe("1999-08-02");
  });

  test("the dump form (one entity per line, [ ] and trailing commas) gives the same entities", async () => {
    const lines = rawEntities().map((e) => JSON.stringify(e));
    const dump = `[\n${lines.join(",\n")}\n]\n`;
    const [list] = await parseListFiles([{ name: "latest-all.csv", bytes: new TextEncoder().encode(dump) }]);
    const byId = (xs: { externalId: string }[]) => [...xs].sort((a, b) => a.externalId.localeCompare(b.externalId));
    expect(byId(list?.entities ?? [])).toEqual(byId((await wbget()).entities));
  });

  test("the streaming API yields the same persons from lines with a caller-built lookup", async () => {
    const raws = rawEntities();
    const lookup = buildWikidataLookup(raws.flatMap((r) => entitiesIn(r)).filter((e) => !claimIds(e as RawEntity, "P31").includes("Q5")));
    const stats = newPepStreamStats();
    const out: string[] = [];
    for await (const e of parseWikidataLines(raws.map((r) => `${JSON.stringify(r)},`), { lookup, stats })) out.push(e.externalId);
    expect(out.length).toBe(15);
    expect(out.slice(0, 3).sort()).toEqual(["Q233282", "Q254220", "Q7747"]);
    expect(stats.emitted).toBe(15);
    expect(stats.publishedAt).toBe("2026-04-22T11:10:36Z");
  });

  test("label files alone are refused: they describe entities that are not there", async () => {
    const labels = dirFiles(DIR).filter((f) => f.name.endsWith(".labels.json"));
    const err = await parseError(labels);
    expect(err.reason).toContain("label files need the entity files");
  });
});
