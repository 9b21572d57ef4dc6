// An import that would remove a large share of a source is refused before anything is published:
// the real OFAC sdn.csv cut at a line break parses cleanly (only its alias and address rows point at
// records that are gone), and OFAC's consolidated files imported alone replace the whole SDN list.
// Either would have screened thousands of listed parties as Clear.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openDb, type Db } from "@/storage/db";
import { CutShortError, isMassRemoval, MASS_REMOVAL_FLOOR, MassRemovalError } from "@/watchlists/errors";
import { importListFiles, type ListFile } from "@/watchlists/import";
import { latestSnapshot } from "@/watchlists/store/read";
import { type CliFolder, cliFolder } from "../helpers/cli-folder";
import { startIndex } from "@/matching/index";
import { watchlistExtension } from "@/watchlists/extension";
import { type OidcStack, startOidcStack } from "../oidc/harness";
import { listEntityRows, uploadLists } from "../helpers/lists";

const OFAC = join(import.meta.dir, "..", "..", "..", "shared", "watchlists", "ofac");
const meta = { actor: { type: "cli" as const, id: "test" } };
const read = (name: string): ListFile => ({ name, bytes: new Uint8Array(readFileSync(join(OFAC, name))) });
const SDN_SET = ["sdn.csv", "add.csv", "alt.csv"];
const sdnSet = (): ListFile[] => SDN_SET.map(read);
/** Lines of sdn.csv to keep for about 95% of its entities: a cut the 10% mass-removal share lets through. */
const SDN_LINES_95 = 13_150;

/** One of OFAC's files cut after its first `lines` lines, at a line break (so without its end-of-file mark). */
function cutFile(name: string, lines: number): ListFile {
  const text = new TextDecoder("latin1").decode(read(name).bytes);
  return { name, bytes: new Uint8Array(Buffer.from(`${text.split("\r\n").slice(0, lines).join("\r\n")}\r\n`, "latin1")) };
}

/** A file without OFAC's end-of-file mark, as a tool that re-saves it may leave it. */
function withoutMark(file: ListFile): ListFile {
  const end = file.bytes.lastIndexOf(0x1a);
  return end < 0 ? file : { name: file.name, bytes: file.bytes.slice(0, end) };
}

/** sdn.csv cut after its first `lines` lines, at a line break, with add.csv and alt.csv whole. */
function cutSdnSet(lines: number): ListFile[] {
  const text = new TextDecoder().decode(read("sdn.csv").bytes);
  const cut = `${text.split("\n").slice(0, lines).join("\n")}\n`;
  return [{ name: "sdn.csv", bytes: new TextEncoder().encode(cut) }, read("add.csv"), read("alt.csv")];
}


describe("the rule", () => {
  test("more than 10% of the serving entities, and at least the floor, needs the operator's allowance", () => {
    expect(isMassRemoval(MASS_REMOVAL_FLOOR - 1, 100)).toBe(false);
    expect(isMassRemoval(MASS_REMOVAL_FLOOR, 1000)).toBe(false);
    expect(isMassRemoval(101, 1000)).toBe(true);
    expect(isMassRemoval(1256, 14965)).toBe(false); // a real year of OFAC delistings (8.4%) passes
  });
});

describe("importListFiles", () => {
  let db: Db;
  afterEach(() => db?.close());

  test("a cut sdn.csv is refused with nothing published and no rows left behind; allowed, it publishes", async () => {
    db = openDb(":memory:");
    const whole = await importListFiles(db, sdnSet(), meta);
    const serving = latestSnapshot(db);
    const rowsBefore = listEntityRows(db);

    const error = await importListFiles(db, cutSdnSet(6000), meta).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MassRemovalError);
    const removal = (error as MassRemovalError).removals[0];
    expect(removal?.source).toBe("OFAC");
    expect(removal?.previous).toBe(whole.results[0]?.version.entityCount ?? 0);
    expect(removal?.removed).toBeGreaterThan(7000);
    expect((error as Error).message).toContain("Nothing was published");
    expect((error as Error).message).toContain("--allow-mass-removal");
    expect(latestSnapshot(db)?.id).toBe(serving?.id ?? "");
    expect(listEntityRows(db)).toBe(rowsBefore);

    const allowed = await importListFiles(db, cutSdnSet(6000), meta, { allowMassRemoval: true });
    expect(allowed.results[0]?.version.diff.removed).toBe(removal?.removed ?? -1);
    expect(latestSnapshot(db)?.id).not.toBe(serving?.id ?? "");
  });

  test("a cut sdn.csv on a first import, with nothing to compare it with, is refused by its own companions' rows; allowed, it publishes and says so first", async () => {
    db = openDb(":memory:");
    const error = await importListFiles(db, cutSdnSet(3000), meta).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CutShortError);
    const cut = (error as CutShortError).cuts;
    expect(cut).toEqual([{ source: "OFAC", file: "sdn.csv", evidence: "ent_nums_missing", role: "main", shownBy: ["alt.csv", "add.csv"], count: expect.any(Number), of: expect.any(Number) }]);
    expect(cut[0]!.count).toBeGreaterThan(25_000);
    expect((error as Error).message).toMatch(
      /^Refused: sdn\.csv looks cut short, or comes from another download than alt\.csv and add\.csv: 25,\d{3} of their 36,\d{3} rows \(70%\) name an ent_num it does not hold, and every party missing from it would screen as Clear\. .*Nothing was published\..*aml lists import --allow-mass-removal/,
    );
    expect(latestSnapshot(db)).toBeNull();
    expect(listEntityRows(db)).toBe(0);

    const allowed = await importListFiles(db, cutSdnSet(3000), meta, { allowMassRemoval: true });
    expect(allowed.results[0]?.version.entityCount).toBe(3000);
    expect(allowed.results[0]?.version.warnings[0]).toMatch(/^published with allowMassRemoval: sdn\.csv looks cut short, or comes from another download than alt\.csv and add\.csv: 25,\d{3} of their 36,\d{3} rows/);
    expect(allowed.results[0]?.version.warnings.filter((w) => w.includes("looks cut short"))).toHaveLength(1);
    const other = openDb(":memory:");
    try {
      const whole = await importListFiles(other, sdnSet(), meta);
      expect(whole.results[0]?.version.warnings.some((w) => w.includes("looks cut short"))).toBe(false);
    } finally {
      other.close();
    }
  });

  test("an alias file cut at a line break, which parses whole, is refused by the end-of-file mark the rest of its download carries", async () => {
    db = openDb(":memory:");
    const error = await importListFiles(db, [read("sdn.csv"), read("add.csv"), cutFile("alt.csv", 2_000)], meta).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CutShortError);
    expect((error as CutShortError).cuts).toEqual([{ source: "OFAC", file: "alt.csv", evidence: "no_end_marker", role: "aliases", shownBy: ["sdn.csv", "add.csv"] }]);
    expect((error as Error).message).toContain("alt.csv looks cut short: it ends without the end-of-file mark (0x1A) that sdn.csv and add.csv of its download end with");
    expect(latestSnapshot(db)).toBeNull();
    // The same for the consolidated set's main table, too few rows for the counts (31 parties gone).
    const cons = await importListFiles(db, [cutFile("cons_prim.csv", 411), read("cons_add.csv"), read("cons_alt.csv")], meta).catch((e: unknown) => e);
    expect((cons as CutShortError).cuts?.map((c) => [c.file, c.evidence])).toEqual([["cons_prim.csv", "no_end_marker"]]);
    // Files that all lack the mark (re-saved by a tool that drops it) are judged by their rows alone.
    const unmarked = await importListFiles(db, SDN_SET.map((name) => withoutMark(read(name))), meta);
    expect(unmarked.results[0]?.status).toBe("imported");
  });

  test("a main table newer than its companions is refused: OFAC gives every entry an address row", async () => {
    db = openDb(":memory:");
    const files = [{ name: "sdn.csv", bytes: new Uint8Array(readFileSync(join(OFAC, "snapshots", "sdn_2024-05-03.csv"))) }, read("add.csv"), read("alt.csv")];
    const error = await importListFiles(db, files, meta).catch((e: unknown) => e);
    expect((error as CutShortError).cuts).toEqual([{ source: "OFAC", file: "add.csv", evidence: "entries_without_rows", role: "addresses", shownBy: ["sdn.csv"], count: 1_256, of: 14_965 }]);
    expect((error as Error).message).toContain("add.csv looks cut short, or comes from another download than sdn.csv: 1,256 of the 14,965 entries of sdn.csv (8%) have no row in it");
  });

  test("a main table and address file cut together are refused by the alias rows, counted per file", async () => {
    db = openDb(":memory:");
    const error = await importListFiles(db, [cutFile("sdn.csv", SDN_LINES_95), cutFile("add.csv", 18_000), read("alt.csv")], meta).catch((e: unknown) => e);
    expect((error as CutShortError).cuts.map((c) => [c.file, c.evidence, c.shownBy])).toEqual([
      ["sdn.csv", "ent_nums_missing", ["alt.csv"]],
      ["add.csv", "no_end_marker", ["alt.csv"]],
    ]);
  });

  test("a cut under the mass-removal share over a serving version is refused by the same count", async () => {
    db = openDb(":memory:");
    const whole = await importListFiles(db, sdnSet(), meta);
    const serving = latestSnapshot(db);
    const error = await importListFiles(db, cutSdnSet(SDN_LINES_95), meta).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CutShortError);
    const removed = whole.results[0]!.version.entityCount - SDN_LINES_95;
    // What the mass-removal rule alone would have let through.
    expect(isMassRemoval(removed, whole.results[0]!.version.entityCount)).toBe(false);
    expect(removed).toBeGreaterThan(MASS_REMOVAL_FLOOR);
    expect(latestSnapshot(db)?.id).toBe(serving?.id ?? "");
  });

  test("OFAC's consolidated files alone after the SDN set are refused: one source, so they would replace it", async () => {
    db = openDb(":memory:");
    await importListFiles(db, sdnSet(), meta);
    const error = await importListFiles(db, ["cons_prim.csv", "cons_add.csv", "cons_alt.csv"].map(read), meta).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MassRemovalError);
    expect((error as Error).message).toContain("SDN and consolidated (non-SDN) files are one source");
    // Together they import.
    const both = await importListFiles(db, [...sdnSet(), ...["cons_prim.csv", "cons_add.csv", "cons_alt.csv"].map(read)], meta);
    expect(both.results[0]?.version.diff.removed).toBe(0);
  });

  const CONS_SET = ["cons_prim.csv", "cons_add.csv", "cons_alt.csv", "cons_comments.csv"];
  const bothSets = (): ListFile[] => [...sdnSet(), ...CONS_SET.map(read)];

  test("the SDN set alone after both of OFAC's lists is refused: the non-SDN list is too small a share for the counts", async () => {
    db = openDb(":memory:");
    const both = await importListFiles(db, bothSets(), meta);
    const serving = latestSnapshot(db);
    const rowsBefore = listEntityRows(db);

    const error = await importListFiles(db, sdnSet(), meta).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MassRemovalError);
    const removal = (error as MassRemovalError).removals[0]!;
    // Under the share the counts allow (the parties on both lists stay): the list itself is what is missed.
    expect(isMassRemoval(removal.removed, removal.previous)).toBe(false);
    expect(removal.removed).toBeGreaterThan(MASS_REMOVAL_FLOOR);
    expect(removal.previous).toBe(both.results[0]!.version.entityCount);
    expect(removal.listsLost).toEqual([{ files: CONS_SET, records: expect.any(Number) }]);
    expect(removal.listsLost?.[0]?.records).toBeGreaterThan(removal.removed);
    expect((error as Error).message).toContain(`this import leaves out the list it serves from ${CONS_SET.join(" + ")}`);
    expect(latestSnapshot(db)?.id).toBe(serving?.id ?? "");
    expect(listEntityRows(db)).toBe(rowsBefore);

    // Allowed, it publishes, and its first warning says what was left out.
    const allowed = await importListFiles(db, sdnSet(), meta, { allowMassRemoval: true });
    expect(allowed.results[0]!.version.diff.removed).toBe(removal.removed);
    expect(allowed.results[0]!.version.warnings[0]).toContain(`leaving out the list read from ${CONS_SET.join(" + ")}`);
    // Served from one list now, nothing more is missed: the same SDN set again is unchanged, and a smaller cut passes as before.
    expect((await importListFiles(db, sdnSet(), meta)).results[0]!.status).toBe("unchanged");
  });

  test("over a version imported before versions kept their lists, the non-SDN list left out is told by OFAC's file names", async () => {
    db = openDb(":memory:");
    const both = await importListFiles(db, bothSets(), meta);
    // What a data folder upgraded from before migration 0013 holds: the serving version has no lists.
    db.sqlite.run("DROP TRIGGER list_versions_immutable");
    db.sqlite.run("UPDATE list_versions SET lists = NULL WHERE id = ?", [both.results[0]!.version.id]);
    const error = await importListFiles(db, sdnSet(), meta).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MassRemovalError);
    expect((error as MassRemovalError).removals[0]?.listsLost).toEqual([{ files: CONS_SET }]);
    expect((error as Error).message).toContain(`this import leaves out the list it serves from ${CONS_SET.join(" + ")}.`);
    // With the non-SDN list under one of OFAC's names, in another format here, it is no list left out.
    const again = await importListFiles(db, [...sdnSet(), read("consolidated.xml")], meta);
    expect(again.results[0]!.status).toBe("imported");
    expect(again.results[0]!.version.warnings.join("\n")).not.toContain("allowMassRemoval");
  });

  test("both lists again, or the non-SDN list in another format, are no list left out", async () => {
    db = openDb(":memory:");
    await importListFiles(db, bothSets(), meta);
    // The same SDN set with the non-SDN list as legacy XML: the same records under the same ids.
    const otherFormat = await importListFiles(db, [...sdnSet(), read("consolidated.xml")], meta);
    expect(otherFormat.results[0]!.status).toBe("imported");
    expect(otherFormat.results[0]!.version.warnings.join("\n")).not.toContain("allowMassRemoval");
    const again = await importListFiles(db, bothSets(), meta);
    expect(again.results[0]!.status).toBe("imported");
    expect(again.results[0]!.version.diff.removed).toBeLessThan(MASS_REMOVAL_FLOOR);
  });

  test("the first real list over the demo list is never refused as a removal; a cut main table is, by its own files", async () => {
    db = openDb(":memory:");
    await importListFiles(db, sdnSet(), meta, { isDemo: true });
    const real = await importListFiles(db, ["cons_prim.csv", "cons_add.csv", "cons_alt.csv"].map(read), meta);
    expect(real.results[0]?.version.diff.removed).toBeGreaterThan(MASS_REMOVAL_FLOOR);
    const demoAgain = openDb(":memory:");
    try {
      await importListFiles(demoAgain, sdnSet(), meta, { isDemo: true });
      expect(await importListFiles(demoAgain, cutSdnSet(3000), meta).catch((e: unknown) => e)).toBeInstanceOf(CutShortError);
    } finally {
      demoAgain.close();
    }
  });
});

describe("aml lists import", () => {
  let folder: CliFolder;
  beforeAll(() => {
    folder = cliFolder("aml-mass-removal-");
  });
  afterAll(() => folder.close());

  function writeSet(name: string, files: ListFile[]): string {
    const dir = join(folder.dataDir, "..", `${name}-${process.pid}`);
    mkdirSync(dir, { recursive: true });
    for (const file of files) writeFileSync(join(dir, file.name), file.bytes);
    return dir;
  }

  test("exits non-zero naming the source and the flag; --allow-mass-removal publishes", async () => {
    expect((await folder.aml(["lists", "import", writeSet("whole", sdnSet())])).code).toBe(0);
    const cut = writeSet("cut", cutSdnSet(6000));
    const refused = await folder.aml(["lists", "import", cut]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("Refused: OFAC would lose");
    expect(refused.stderr).toContain("aml lists import --allow-mass-removal");
    const allowed = await folder.aml(["--json", "lists", "import", "--allow-mass-removal", cut]);
    expect(allowed.code).toBe(0);
    expect(JSON.parse(allowed.stdout).results[0].version.entityCount).toBe(6000);
  });
});

describe("POST /v1/lists/import", () => {
  let stack: OidcStack;
  beforeAll(async () => {
    stack = await startOidcStack({ extensions: async () => [watchlistExtension(startIndex, { pollMs: 200 })] });
  });
  afterAll(() => stack.close());

  const upload = async (files: ListFile[], query = ""): Promise<Response> => uploadLists(stack.server.url, await stack.token(), files, query);

  test("409 with the removals, nothing published; allowMassRemoval=true publishes", async () => {
    expect((await upload(sdnSet())).status).toBe(201);
    const before = latestSnapshot(stack.server.ctx.db)?.id;
    const refused = await upload(cutSdnSet(6000));
    expect(refused.status).toBe(409);
    const problem = (await refused.json()) as { code: string; removals: Array<{ source: string; removed: number; previous: number }> };
    expect(problem.code).toBe("CONFLICT");
    expect(problem.removals.map((r) => r.source)).toEqual(["OFAC"]);
    expect(problem.removals[0]?.removed).toBeGreaterThan(7000);
    expect(latestSnapshot(stack.server.ctx.db)?.id).toBe(before ?? "");
    expect((await upload(cutSdnSet(6000), "?allowMassRemoval=yes")).status).toBe(400);
    expect(latestSnapshot(stack.server.ctx.db)?.id).toBe(before ?? "");
    const allowed = await upload(cutSdnSet(6000), "?allowMassRemoval=true");
    expect(allowed.status).toBe(201);
    expect(latestSnapshot(stack.server.ctx.db)?.id).not.toBe(before ?? "");
  });

  test("409 with cutShort for a main table its alias and address files show cut short, on a first import too", async () => {
    const fresh = await startOidcStack({ extensions: async () => [watchlistExtension(startIndex, { pollMs: 200 })] });
    try {
      const refused = await uploadLists(fresh.server.url, await fresh.token(), cutSdnSet(3000));
      expect(refused.status).toBe(409);
      const problem = (await refused.json()) as { code: string; detail: string; cutShort: unknown[] };
      expect(problem.code).toBe("CONFLICT");
      expect(problem.cutShort).toEqual([{ source: "OFAC", file: "sdn.csv", evidence: "ent_nums_missing", role: "main", shownBy: ["alt.csv", "add.csv"], count: expect.any(Number), of: expect.any(Number) }]);
      expect(problem.detail).toContain("allowMassRemoval=true");
      expect(latestSnapshot(fresh.server.ctx.db)?.isDemo ?? true).toBe(true);
      expect((await uploadLists(fresh.server.url, await fresh.token(), cutSdnSet(3000), "?allowMassRemoval=true")).status).toBe(201);
    } finally {
      await fresh.close();
    }
  });

  test("409 naming the list left out when the SDN set comes without the non-SDN list it was served with", async () => {
    const cons = ["cons_prim.csv", "cons_add.csv", "cons_alt.csv"];
    expect((await upload([...sdnSet(), ...cons.map(read)], "?allowMassRemoval=true")).status).toBe(201);
    const refused = await upload(sdnSet());
    expect(refused.status).toBe(409);
    const problem = (await refused.json()) as { removals: Array<{ listsLost?: Array<{ files: string[]; records: number }> }> };
    expect(problem.removals[0]?.listsLost?.map((l) => l.files)).toEqual([cons]);
  });
});
