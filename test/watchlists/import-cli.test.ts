// What an operator sees from `aml lists import` and `aml lists status` for the findings of a new-user
// walk: editions of one list refused, warnings beyond the first few, an unchanged re-import, and the
// UK list switched from OFSI's Consolidated List to the FCDO list.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type CliFolder, cliFolder } from "../helpers/cli-folder";

const SHARED = join(import.meta.dir, "..", "..", "..", "shared", "watchlists");
const shared = (...rels: string[]) => rels.map((rel) => join(SHARED, rel));
const SDN_AND_CONS_CSV = shared(
  ...["sdn.csv", "add.csv", "alt.csv", "sdn_comments.csv", "cons_prim.csv", "cons_add.csv", "cons_alt.csv", "cons_comments.csv"].map((n) => `ofac/${n}`),
);

/** The cells of a text table's row for `source` (columns are separated by two or more spaces). */
function row(stdout: string, source: string): Record<string, string> {
  const lines = stdout.split("\n");
  const header = (lines[0] ?? "").split(/\s{2,}/);
  const cells = (lines.find((l) => l.startsWith(`${source} `)) ?? "").split(/\s{2,}/);
  return Object.fromEntries(header.map((h, i) => [h, cells[i] ?? ""]));
}

let folder: CliFolder;
beforeEach(() => {
  folder = cliFolder("aml-lists-import-");
});
afterEach(() => folder.close());

describe("aml lists import", () => {
  test("the whole shared ofac/ folder (three editions of the non-SDN list) exits 1 and publishes nothing", async () => {
    const refused = await folder.aml(["lists", "import", ...shared("ofac")]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("error: Refused: the OFAC files hold more than one edition of the same list");
    expect(refused.stderr).toContain("consolidated.xml (ofac-xml, published 2023-03-08)");
    expect(refused.stdout).toBe("");
    expect((await folder.aml(["lists", "status"])).stdout).toContain("No list has been imported yet");
  });

  test("says how many warnings it did not print, and `lists status --warnings` prints them", async () => {
    const imported = await folder.aml(["lists", "import", ...SDN_AND_CONS_CSV]);
    expect(imported.code).toBe(0);
    const count = Number(row(imported.stdout, "OFAC").warnings);
    expect(count).toBe(61);
    expect(imported.stdout.match(/^warning \(OFAC\): /gm)).toHaveLength(5);
    expect(imported.stdout).toContain(`… ${count - 5} more OFAC warning(s) not shown: \`aml lists status --warnings\` prints them (or`);
    expect(imported.stdout).toMatch(/^warning \(OFAC\): id 9647 is in both sdn\.csv line \d+ and cons_prim\.csv line \d+: one party on both lists/m);

    const status = await folder.aml(["lists", "status", "--warnings"]);
    expect(status.code).toBe(0);
    expect(status.stdout.match(/^warning \(OFAC\): /gm)).toHaveLength(count);
    expect((await folder.aml(["lists", "status"])).stdout).not.toContain("warning (");
  });

  test("over the 1,000 warnings a version keeps, the count still includes every warning", async () => {
    // The real PEP file, plus 1,200 persons without a name: one warning each.
    const peps = readFileSync(shared("wikidata/opensanctions_ftm_sa_wiki_peps/entities.ftm.json")[0] ?? "", "utf8");
    const nameless = Array.from({ length: 1200 }, (_, i) => JSON.stringify({ id: `Qx${i}`, schema: "Person", properties: {}, target: true }));
    const file = join(folder.dataDir, "peps.ftm.json");
    writeFileSync(file, `${peps.trimEnd()}\n${nameless.join("\n")}\n`);
    const imported = await folder.aml(["lists", "import", file]);
    expect(imported.code).toBe(0);
    const total = Number(row(imported.stdout, "WIKIDATA").warnings);
    expect(total).toBeGreaterThanOrEqual(1200);
    expect(imported.stdout).toContain(`… ${total - 5} more WIKIDATA warning(s) not shown`);
    const status = await folder.aml(["lists", "status", "--warnings"]);
    expect(status.stdout).toContain(`: ${total} warning(s) (the first 1,000 kept; the last line counts the rest)`);
    expect(status.stdout.match(/^warning \(WIKIDATA\): /gm)).toHaveLength(1001);
    expect(status.stdout).toContain(`warning (WIKIDATA): … and ${total - 1000} more warnings`);
  });

  test("an unchanged re-import shows 0 added and 0 removed, in text and in --json", async () => {
    expect((await folder.aml(["lists", "import", ...shared("un/snapshots/consolidated_2023-03-09.xml")])).code).toBe(0);
    const newer = await folder.aml(["lists", "import", ...shared("un/consolidated.xml")]);
    expect(Number(row(newer.stdout, "UN").added)).toBeGreaterThan(0);
    const again = await folder.aml(["lists", "import", ...shared("un/consolidated.xml")]);
    expect(row(again.stdout, "UN")).toMatchObject({ status: "unchanged", added: "0", removed: "0", changed: "0" });
    const json = await folder.aml(["--json", "lists", "import", ...shared("un/consolidated.xml")]);
    expect(JSON.parse(json.stdout).results[0].version.diff).toEqual({ added: 0, removed: 0, changed: 0, unchanged: 1003 });
  });

  test("switching UK from OFSI's ConList to the FCDO list is refused without OFAC's advice, then allowed", async () => {
    expect((await folder.aml(["lists", "import", ...shared("uk/ConList.xlsx")])).code).toBe(0);
    const fcdo = shared("uk/FCDO_SL_2025-08-11_summary.ods");
    const refused = await folder.aml(["lists", "import", ...fcdo]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("Refused: UK would lose 4,686 of its 4,686 serving entities (100%)");
    expect(refused.stderr).toContain("switching between them replaces every UK record");
    expect(refused.stderr).toContain("aml lists import --allow-mass-removal");
    expect(refused.stderr).not.toContain("OFAC");
    const allowed = await folder.aml(["--json", "lists", "import", "--allow-mass-removal", ...fcdo]);
    expect(allowed.code).toBe(0);
    expect(JSON.parse(allowed.stdout).results[0].version).toMatchObject({ format: "uk-fcdo-summary-ods", diff: { removed: 4686 } });
  });

  test("a file given twice, and again as a copy, is read once, with a note naming each repeat", async () => {
    const peps = shared("wikidata/opensanctions_ftm_sa_wiki_peps/entities.ftm.json")[0] ?? "";
    const copy = join(folder.dataDir, "peps-copy.json");
    copyFileSync(peps, copy);
    const once = await folder.aml(["--json", "lists", "import", peps]);
    const count = JSON.parse(once.stdout).results[0].version.entityCount as number;
    expect(count).toBeGreaterThan(100);
    // A new data folder, so the second import is recorded, not reported unchanged.
    const other = cliFolder("aml-lists-import-dup-");
    try {
      const text = await other.aml(["lists", "import", peps, peps, copy]);
      expect(text.code).toBe(0);
      expect(Number(row(text.stdout, "WIKIDATA").entities)).toBe(count);
      expect(text.stdout).toContain(`note: ${peps} was given more than once: read once`);
      expect(text.stdout).toContain(`note: ${copy} has the same content as ${peps}: read once`);
      const json = JSON.parse((await other.aml(["--json", "lists", "import", copy, peps])).stdout);
      expect(json.duplicateFiles).toEqual([{ file: peps, sameAs: copy }]);
      expect(json.results[0].version.files.map((f: { name: string }) => f.name)).toEqual(["peps-copy.json"]);
    } finally {
      other.close();
    }
  });
});
