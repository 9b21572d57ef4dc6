import { describe, expect, test } from "bun:test";
import { DEMO_FILE_NAMES, demoListFiles } from "@/watchlists/demo";
import { detectListFile } from "@/watchlists/detect";
import { parseListFiles } from "@/watchlists/parse-files";
import { derivePepTiers } from "@/watchlists/pep-tier";

describe("fictional demo list", () => {
  test("every demo file says FICTIONAL DEMO DATA near its start", () => {
    for (const file of demoListFiles()) {
      expect(new TextDecoder().decode(file.bytes.slice(0, 400))).toContain("FICTIONAL DEMO DATA");
    }
    expect(DEMO_FILE_NAMES).toEqual(["ofac-demo.xml", "un-demo.xml", "peps-demo.ftm.jsonl"]);
  });

  test("the files are official formats, detected by content", () => {
    expect(demoListFiles().map((f) => detectListFile(f).format)).toEqual(["ofac-xml", "un-xml", "ftm-json"]);
  });

  test("it parses into about 40 entities across OFAC, UN and PEP sources", async () => {
    const lists = await parseListFiles(demoListFiles());
    expect(lists.map((l) => [l.source, l.entities.length])).toEqual([
      ["OFAC", 12],
      ["UN", 12],
      ["WIKIDATA", 15],
    ]);
    const all = lists.flatMap((l) => l.entities);
    expect(all.filter((e) => e.deceased).map((e) => e.primaryName)).toEqual([
      "OKONKWO-BRIGHT Samuel",
      "OSWIN BRAMBLEWICK",
      "HAMID OMAR ZENTARO",
      "Joaquim Ferraz Demo",
    ]);
    expect(all.some((e) => e.names.some((n) => n.quality === "weak"))).toBe(true);
    expect(all.some((e) => e.names.some((n) => n.originalScript))).toBe(true);
  });

  test("PEPs cover every tier, with a family member and an associate", async () => {
    const peps = (await parseListFiles(demoListFiles())).find((l) => l.source === "WIKIDATA")?.entities ?? [];
    const tiers = new Set(peps.flatMap((e) => derivePepTiers(e, "GB")));
    expect([...tiers].sort()).toEqual(["Domestic", "FamilyOrAssociate", "Foreign", "InternationalOrganization"]);
    const son = peps.find((e) => e.externalId === "demo-rca-2");
    expect(son?.pep?.relations).toEqual([{ relatedId: "demo-pep-1", relatedName: "Aurelio Brightwater", relationship: "parent" }]);
    expect(peps.some((e) => e.externalId === "demo-nobody")).toBe(false);
  });
});
