// Two imports that parse cleanly, pass the entity-count rule and would still screen listed parties as
// Clear: an older edition of a list over the serving one (the UN list of March 2023 over February
// 2026's removes only 68 of 1,003 parties, and drops everyone designated in between), and OFAC's
// sdn.csv without its alias file alt.csv (3% of the entities, half of the names). Both are refused
// with nothing published, unless the operator allows them; over the CLI and over HTTP.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { openDb, type Db } from "@/storage/db";
import { ListParseError, MassRemovalError, OlderEditionError } from "@/watchlists/errors";
import { importListFiles, type ListFile } from "@/watchlists/import";
import { latestSnapshot } from "@/watchlists/store/read";
import { startIndex } from "@/matching/index";
import { watchlistExtension } from "@/watchlists/extension";
import { type CliFolder, cliFolder } from "../helpers/cli-folder";
import { type OidcStack, startOidcStack } from "../oidc/harness";
import { listEntityRows, uploadLists } from "../helpers/lists";

const LISTS = join(import.meta.dir, "..", "..", "..", "shared", "watchlists");
const meta = { actor: { type: "cli" as const, id: "test" } };
const read = (rel: string): ListFile => ({ name: rel.split("/").at(-1) ?? rel, bytes: new Uint8Array(readFileSync(join(LISTS, rel))) });
const UN_2026 = "un/consolidated.xml";
const UN_2023 = "un/snapshots/consolidated_2023-03-09.xml";
const OFAC_SDN_SET = ["ofac/sdn.csv", "ofac/add.csv", "ofac/alt.csv"];

/**
 * The 2024-05-03 sdn.csv as a whole set: the shared data has no add.csv and alt.csv of that day, so
 * they are the 2023 ones, without the rows of parties delisted since and with an empty address row
 * (OFAC gives every entry one) for each party listed since, ending with OFAC's end-of-file mark.
 */
function sdn2024Set(): ListFile[] {
  const text = (rel: string) => readFileSync(join(LISTS, rel), "latin1");
  const sdn = text("ofac/snapshots/sdn_2024-05-03.csv");
  const rowsOf = (t: string) => t.split("\r\n").filter((line) => /^\d+,/.test(line));
  const listed = new Set(rowsOf(sdn).map((line) => line.split(",")[0]));
  const keep = (rel: string) => rowsOf(text(rel)).filter((line) => listed.has(line.split(",")[0]));
  const addressed = new Set(keep("ofac/add.csv").map((line) => line.split(",")[0]));
  const newAddresses = [...listed].filter((id) => !addressed.has(id)).map((id, i) => `${id},${900_000 + i},-0- ,-0- ,-0- ,-0- `);
  const file = (name: string, rows: string[]): ListFile => ({ name, bytes: new Uint8Array(Buffer.from(`${rows.join("\r\n")}\r\n\x1a`, "latin1")) });
  return [
    { name: "sdn.csv", bytes: new Uint8Array(Buffer.from(sdn, "latin1")) },
    file("add.csv", [...keep("ofac/add.csv"), ...newAddresses]),
    file("alt.csv", keep("ofac/alt.csv")),
  ];
}

/** The versions of the system chain's latest list.import entry, as audited. */
function lastImportAudit(db: Db): Array<{ source: string; overridden?: string[] }> {
  const row = db.sqlite
    .query<{ details: string }, []>("SELECT details FROM audit_log WHERE action = 'list.import' ORDER BY seq DESC LIMIT 1")
    .get();
  return (JSON.parse(row?.details ?? "{}") as { versions?: Array<{ source: string; overridden?: string[] }> }).versions ?? [];
}

describe("importListFiles", () => {
  let db: Db;
  afterEach(() => db?.close());

  test("an older UN edition over the serving one is refused, with nothing left behind; allowed, it publishes", async () => {
    db = openDb(":memory:");
    await importListFiles(db, [read(UN_2026)], meta);
    const serving = latestSnapshot(db);
    const rows = listEntityRows(db);

    const error = await importListFiles(db, [read(UN_2023)], meta).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OlderEditionError);
    const older = (error as OlderEditionError).editions[0];
    expect(older).toMatchObject({ source: "UN", format: "un-xml", servingFormat: "un-xml" });
    expect(older?.publishedAt?.startsWith("2023-03-10")).toBe(true);
    expect(older?.servingPublishedAt?.startsWith("2026-02-2")).toBe(true);
    expect((error as Error).message).toContain("aml lists import --allow-older-edition");
    expect(latestSnapshot(db)?.id).toBe(serving?.id ?? "");
    expect(listEntityRows(db)).toBe(rows);

    const allowed = await importListFiles(db, [read(UN_2023)], meta, { allowOlderEdition: true });
    expect(allowed.results[0]?.version.publishedAt?.startsWith("2023-03-10")).toBe(true);
    expect(latestSnapshot(db)?.id).not.toBe(serving?.id ?? "");
    // The override stays on the record: the version's warnings and the system chain's entry name it.
    expect(allowed.results[0]?.version.warnings[0]).toMatch(/^published with allowOlderEdition: this edition is dated 2023-03-10.*before the version it replaced \(2026-02-2/);
    expect(lastImportAudit(db)[0]?.overridden).toEqual([allowed.results[0]?.version.warnings[0] ?? "missing"]);
  });

  test("a newer edition, the same one again and an older one over the demo list all import", async () => {
    db = openDb(":memory:");
    await importListFiles(db, [read(UN_2026)], meta, { isDemo: true });
    expect((await importListFiles(db, [read(UN_2023)], meta)).results[0]?.status).toBe("imported");
    expect((await importListFiles(db, [read(UN_2026)], meta)).results[0]?.status).toBe("imported");
    expect((await importListFiles(db, [read(UN_2026)], meta)).results[0]?.status).toBe("unchanged");
  });

  test("only like is compared with like: a source gaining a file, or a PEP list, is no older edition", async () => {
    db = openDb(":memory:");
    // Another format's date is not compared: cons_advanced.xml (2020) over consolidated.xml (2023)
    // would remove too many, and allowed that, it lacks the serving version's newest records.
    await importListFiles(db, [read("ofac/consolidated.xml")], meta);
    expect(await importListFiles(db, [read("ofac/cons_advanced.xml")], meta).catch((e: unknown) => e)).toBeInstanceOf(MassRemovalError);
    const older = await importListFiles(db, [read("ofac/cons_advanced.xml")], meta, { allowMassRemoval: true }).catch((e: unknown) => e);
    expect((older as OlderEditionError).editions?.[0]).toMatchObject({ newestRecordsMissing: 64, newestRecordsChecked: 64, highestIdHeld: 28_603 });
    // Wikidata's entity files (dated by their latest change, 2026) and then OpenSanctions' FtM file
    // beside them (2024): another provider added, not a step back.
    const pep = "wikidata/wikidata_wbgetentities_json";
    const entities = readdirSync(join(LISTS, pep)).map((f) => read(`${pep}/${f}`));
    await importListFiles(db, entities, meta);
    const added = await importListFiles(db, [...entities, read("wikidata/opensanctions_ftm_sa_wiki_peps/entities.ftm.json")], meta);
    expect(added.results.find((r) => r.source === "WIKIDATA")?.status).toBe("imported");
  });

  test("an edition that could not be compared is published with a warning saying so; one that was compared is not", async () => {
    db = openDb(":memory:");
    // The SDN set with OFAC's consolidated non-SDN list of 2023, then with its advanced XML of 2020:
    // another format, so not compared, and only 76 of 14,135 entities removed. The serving version's
    // newest records are the SDN list's, which it holds: so said, not refused (README).
    await importListFiles(db, [...OFAC_SDN_SET.map(read), read("ofac/consolidated.xml")], meta);
    const switched = await importListFiles(db, [...OFAC_SDN_SET.map(read), read("ofac/cons_advanced.xml")], meta);
    const [note] = switched.results[0]?.version.warnings ?? [];
    expect(note).toStartWith("edition not compared with the serving version it replaces (this import: ofac-csv+ofac-advanced-xml from 4 files, dated 2020-03-17");
    expect(note).toContain("; serving: ofac-csv+ofac-xml from 4 files, dated 2023-03-0");
    expect(note).toContain("This edition's date is before the serving one's: if it is an older edition, parties designated since screen as Clear");

    // Like with like, newer: compared, so nothing to say.
    await importListFiles(db, [read(UN_2023)], meta);
    const newer = await importListFiles(db, [read(UN_2026)], meta);
    expect(newer.results[0]?.version.warnings.filter((w) => w.startsWith("edition not compared"))).toEqual([]);

    // Like with like, but a date this appliance cannot read: not compared, so said.
    const text = new TextDecoder().decode(read(UN_2023).bytes).replace(/dateGenerated="[^"]*"/, 'dateGenerated="10/03/2023"');
    const unreadable = await importListFiles(db, [{ name: "consolidated.xml", bytes: new TextEncoder().encode(text) }], meta);
    expect(unreadable.results[0]?.version.warnings[0]).toStartWith(
      'edition not compared with the serving version it replaces (this import: un-xml from 1 file, dated "10/03/2023", which is not a date this appliance reads; serving: un-xml from 1 file, dated 2026-02-2',
    );
  });

  test("an older OFAC CSV set, undated, is refused by its ent_nums: it lacks the parties numbered above its highest", async () => {
    db = openDb(":memory:");
    await importListFiles(db, sdn2024Set(), meta);
    const serving = latestSnapshot(db);
    const error = await importListFiles(db, OFAC_SDN_SET.map(read), meta).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OlderEditionError);
    expect((error as OlderEditionError).editions).toEqual([
      {
        source: "OFAC",
        publishedAt: null,
        servingPublishedAt: null,
        format: "ofac-csv",
        servingFormat: "ofac-csv",
        newestRecordsMissing: 64,
        newestRecordsChecked: 64,
        highestIdHeld: 47_089,
      },
    ]);
    expect((error as Error).message).toContain(
      "this OFAC import (ofac-csv) lacks 64 of the 64 highest-numbered records of the serving version (ofac-csv); the highest id it holds is 47089",
    );
    expect(latestSnapshot(db)?.id).toBe(serving?.id ?? "");
    const allowed = await importListFiles(db, OFAC_SDN_SET.map(read), meta, { allowOlderEdition: true });
    expect(allowed.results[0]?.version.warnings[0]).toBe(
      "published with allowOlderEdition: this edition lacks 64 of the 64 highest-numbered records of the version it replaced; the highest id it holds is 47089",
    );
  });

  test("OFAC's newest records are looked for whatever the dates, list or file names say", async () => {
    // A newer SDN set beside the same non-SDN XML: 112 delistings, 22 of them numbered above the
    // non-SDN list's highest (34,741), none among the 64 newest (session reviews).
    db = openDb(":memory:");
    await importListFiles(db, [...OFAC_SDN_SET.map(read), read("ofac/consolidated.xml")], meta);
    const newer = await importListFiles(db, [...sdn2024Set(), read("ofac/consolidated.xml")], meta);
    expect(newer.results[0]?.status).toBe("imported");
    expect(newer.results[0]?.version.diff.removed).toBe(112);
    // Back again: the merged version is dated by the XML, the same day on both sides, so the dates
    // say nothing; the numbers do. Under other names too (a browser's copy, an upload without names).
    for (const rename of [(name: string) => name, (name: string) => name.replace(".", " (1)."), () => "upload"]) {
      const files = [...OFAC_SDN_SET.map(read), read("ofac/consolidated.xml")].map((f) => ({ ...f, name: rename(f.name) }));
      const back = await importListFiles(db, files, meta).catch((e: unknown) => e);
      expect((back as OlderEditionError).editions?.map((e) => [e.newestRecordsMissing, e.highestIdHeld])).toEqual([[64, 47_089]]);
    }
  });

  test("a newer edition that lists parties since and reverses some recent listings is no older edition", async () => {
    // Third session review: 10 of the 64 newest delisted, and 20 parties listed after all of them.
    db = openDb(":memory:");
    await importListFiles(db, sdn2024Set(), meta);
    const rowsOf = (f: ListFile) => Buffer.from(f.bytes).toString("latin1").split("\r\n").filter((line) => /^\d+,/.test(line));
    const [sdn, add, alt] = sdn2024Set();
    const newest = rowsOf(sdn!).map((line) => Number(line.split(",")[0])).sort((a, b) => b - a);
    const reversed = new Set(newest.slice(20, 30).map(String));
    const keep = (f: ListFile) => rowsOf(f).filter((line) => !reversed.has(line.split(",")[0] ?? ""));
    const listed = Array.from({ length: 20 }, (_, i) => 48_908 + i);
    const file = (name: string, rows: string[]): ListFile => ({ name, bytes: new Uint8Array(Buffer.from(`${rows.join("\r\n")}\r\n\x1a`, "latin1")) });
    const next = [
      file("sdn.csv", [...keep(sdn!), ...listed.map((id) => `${id},"EXAMPLE, Party ${id}","individual","RUSSIA-EO14024",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- `)]),
      file("add.csv", [...keep(add!), ...listed.map((id, i) => `${id},${950_000 + i},-0- ,"Moscow",Russia,-0- `)]),
      file("alt.csv", keep(alt!)),
    ];
    const update = await importListFiles(db, next, meta);
    expect(update.results[0]?.status).toBe("imported");
    expect(update.results[0]?.version.diff.removed).toBe(10);
  });

  test("the non-SDN list imported alone, its SDN list left out on purpose, is not refused again as older", async () => {
    db = openDb(":memory:");
    const consSet = ["cons_prim.csv", "cons_add.csv", "cons_alt.csv", "cons_comments.csv"].map((f) => read(`ofac/${f}`));
    await importListFiles(db, [...sdn2024Set(), ...consSet], meta);
    expect(await importListFiles(db, consSet, meta).catch((e: unknown) => e)).toBeInstanceOf(MassRemovalError);
    const allowed = await importListFiles(db, consSet, meta, { allowMassRemoval: true });
    expect(allowed.results[0]?.status).toBe("imported");
  });

  test("an older SDN set beside a non-SDN table cut short: allowing the cut does not pass the older edition in silence", async () => {
    db = openDb(":memory:");
    const consSet = ["cons_prim.csv", "cons_add.csv", "cons_alt.csv", "cons_comments.csv"].map((f) => read(`ofac/${f}`));
    await importListFiles(db, [...sdn2024Set(), ...consSet], meta);
    const unmarked = { name: "cons_prim.csv", bytes: consSet[0]!.bytes.slice(0, consSet[0]!.bytes.lastIndexOf(0x1a)) };
    const files = [...OFAC_SDN_SET.map(read), unmarked, ...consSet.slice(1)];
    const allowed = await importListFiles(db, files, meta, { allowMassRemoval: true });
    expect(allowed.results[0]?.version.warnings).toContain(
      "published with allowMassRemoval: this edition also lacks 63 of the 64 highest-numbered records of the version it replaced: an older edition, or the main table cut short",
    );
  });

  test("a newer edition whose non-SDN list lost its two highest-numbered parties is no older edition", async () => {
    // The non-SDN list's top is sparse (34,736, 46,072, 50,476): judged by its own highest id, SDN
    // delistings in between read as its newest records missing (second session review).
    db = openDb(":memory:");
    const consSet = ["cons_prim.csv", "cons_add.csv", "cons_alt.csv", "cons_comments.csv"];
    await importListFiles(db, [...OFAC_SDN_SET, ...consSet.map((f) => `ofac/${f}`)].map(read), meta);
    const gone = new Set(["46072", "50476"]);
    const without = (name: string): ListFile => {
      const lines = readFileSync(join(LISTS, "ofac", name), "latin1").split("\r\n");
      const kept = lines.filter((line) => !gone.has(line.split(",")[0] ?? ""));
      return { name, bytes: new Uint8Array(Buffer.from(kept.join("\r\n"), "latin1")) };
    };
    const update = await importListFiles(db, [...sdn2024Set(), ...consSet.map(without)], meta);
    expect(update.results[0]?.status).toBe("imported");
    expect(update.results[0]?.version.warnings.join("\n")).not.toContain("allowOlderEdition");
  });

  test("a newer OFAC CSV set that delists parties is no older edition: what it removes is numbered below its highest", async () => {    db = openDb(":memory:");
    await importListFiles(db, OFAC_SDN_SET.map(read), meta);
    // 60 parties delisted: the lowest-numbered ones, with their alias and address rows.
    const text = (rel: string) => readFileSync(join(LISTS, rel), "latin1");
    const ids = text("ofac/sdn.csv").split("\r\n").map((line) => Number(line.split(",")[0])).filter((n) => n > 0).sort((a, b) => a - b);
    const delisted = new Set(ids.slice(0, 60).map(String));
    const without = (rel: string): ListFile => ({
      name: rel.split("/").at(-1) ?? rel,
      bytes: new Uint8Array(Buffer.from(text(rel).split("\r\n").filter((line) => !delisted.has(line.split(",")[0] ?? "")).join("\r\n"), "latin1")),
    });
    const update = await importListFiles(db, OFAC_SDN_SET.map(without), meta);
    expect(update.results[0]?.version.diff.removed).toBe(60);
    expect(update.results[0]?.version.warnings.join("\n")).not.toContain("allowOlderEdition");
  });

  test("undated editions of one kind (OFAC's CSV set, every routine update) get no edition warning", async () => {
    db = openDb(":memory:");
    await importListFiles(db, OFAC_SDN_SET.map(read), meta);
    // The next edition's sdn.csv, with the comments file this time: a file more, still no date to
    // compare. (Its companions are the 2023 ones, which lack its new entries' rows: allowed here,
    // refused otherwise, mass-removal.test.ts.)
    const sdn2024 = { name: "sdn.csv", bytes: new Uint8Array(readFileSync(join(LISTS, "ofac/snapshots/sdn_2024-05-03.csv"))) };
    const update = await importListFiles(db, [sdn2024, ...["ofac/add.csv", "ofac/alt.csv", "ofac/sdn_comments.csv"].map(read)], meta, { allowMassRemoval: true });
    expect(update.results[0]?.status).toBe("imported");
    expect(update.results[0]?.version.warnings.filter((w) => w.startsWith("edition not compared"))).toEqual([]);
  });

  test("a serving date stored in the publisher's own form (before dates were kept in UTC) is compared too", async () => {
    db = openDb(":memory:");
    await importListFiles(db, [read(UN_2026)], meta);
    // As 3b3ef19's predecessors stored it; versions are immutable, so the trigger is dropped for the test.
    db.sqlite.run("DROP TRIGGER list_versions_immutable");
    db.sqlite.run("UPDATE list_versions SET published_at = '2026-02-27T00:00:09.554'");
    expect(await importListFiles(db, [read(UN_2023)], meta).catch((e: unknown) => e)).toBeInstanceOf(OlderEditionError);
  });

  test("OFAC's alias file cut short keeps every entity but loses most names: refused; allowed, it publishes", async () => {
    db = openDb(":memory:");
    const whole = await importListFiles(db, OFAC_SDN_SET.map(read), meta);
    const serving = latestSnapshot(db);
    // alt.csv cut at a line break after its first 2,000 rows: it parses, every SDN entity is there.
    const altHead = readFileSync(join(LISTS, "ofac/alt.csv"), "latin1").split("\r\n").slice(0, 2_000).join("\r\n");
    const cut = [read("ofac/sdn.csv"), read("ofac/add.csv"), { name: "alt.csv", bytes: new TextEncoder().encode(`${altHead}\r\n`) }];
    const error = await importListFiles(db, cut, meta).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MassRemovalError);
    const removal = (error as MassRemovalError).removals[0];
    // Not the entities: every SDN entity is still there.
    expect(removal?.removed).toBe(0);
    expect(removal?.previousNames).toBe(whole.results[0]?.version.nameCount ?? -1);
    expect(removal?.namesLost).toBeGreaterThan((removal?.previousNames ?? 0) / 3);
    expect((error as Error).message).toContain("serving names");
    expect((error as Error).message).toContain("alt.csv");
    expect(latestSnapshot(db)?.id).toBe(serving?.id ?? "");

    const allowed = await importListFiles(db, cut, meta, { allowMassRemoval: true });
    expect(allowed.results[0]?.version.nameCount).toBe((removal?.previousNames ?? 0) - (removal?.namesLost ?? 0));
    const note = `published with allowMassRemoval: 0 of ${removal?.previous.toLocaleString("en-US")} entities removed, ${removal?.namesLost.toLocaleString("en-US")} of ${removal?.previousNames.toLocaleString("en-US")} names lost`;
    // And what the cut file itself shows: it ends without the mark the rest of its download carries.
    const unmarked = "published with allowMassRemoval: alt.csv looks cut short: it ends without the end-of-file mark (0x1A)";
    expect(allowed.results[0]?.version.warnings[0]).toBe(note);
    expect(allowed.results[0]?.version.warnings[1]).toStartWith(unmarked);
    expect(lastImportAudit(db)[0]?.overridden).toEqual([note, expect.stringMatching(/^published with allowMassRemoval: alt\.csv looks cut short: it ends without/)]);
  });

  test("OFAC's sdn.csv without alt.csv is refused as a set, on a first import too and whatever is allowed", async () => {
    db = openDb(":memory:");
    for (const options of [{}, { allowMassRemoval: true, allowOlderEdition: true }]) {
      const error = await importListFiles(db, ["ofac/sdn.csv", "ofac/add.csv"].map(read), meta, options).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ListParseError);
      expect((error as Error).message).toContain("sdn.csv: whole file: OFAC main table without its alias file");
      expect(latestSnapshot(db)).toBeNull();
    }
    const consOnly = await importListFiles(db, ["ofac/cons_prim.csv", "ofac/cons_add.csv"].map(read), meta).catch((e: unknown) => e);
    expect((consOnly as Error).message).toContain("cons_prim.csv: whole file: OFAC main table without its alias file (cons_alt.csv)");
    // add.csv may be missing: the entities then carry no addresses, and the version says so.
    const noAddresses = await importListFiles(db, ["ofac/sdn.csv", "ofac/alt.csv"].map(read), meta);
    expect(noAddresses.results[0]?.version.warnings).toContain("sdn.csv: no address file (add.csv or cons_add.csv) in the import: its entities carry no addresses");
  });
});

describe("aml lists import", () => {
  let folder: CliFolder;
  beforeAll(() => {
    folder = cliFolder("aml-regressions-");
  });
  afterAll(() => folder.close());

  test("an older edition exits 1 naming both dates and the flag; --allow-older-edition publishes", async () => {
    expect((await folder.aml(["lists", "import", join(LISTS, UN_2026)])).code).toBe(0);
    const refused = await folder.aml(["lists", "import", join(LISTS, UN_2023)]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("Refused: this UN list (un-xml) was published 2023-03-10");
    expect(refused.stderr).toContain("before the serving version (un-xml, published 2026-02-2");
    const allowed = await folder.aml(["--json", "lists", "import", "--allow-older-edition", join(LISTS, UN_2023)]);
    expect(allowed.code).toBe(0);
    expect(JSON.parse(allowed.stdout).results[0].version.publishedAt).toStartWith("2023-03-10");
  });
});

describe("POST /v1/lists/import", () => {
  let stack: OidcStack;
  beforeAll(async () => {
    stack = await startOidcStack({ extensions: async () => [watchlistExtension(startIndex, { pollMs: 200 })] });
  });
  afterAll(() => stack.close());

  const upload = async (rel: string, query = ""): Promise<Response> => uploadLists(stack.server.url, await stack.token(), [read(rel)], query);

  test("409 with olderEditions and nothing published; allowOlderEdition=true publishes", async () => {
    expect((await upload(UN_2026)).status).toBe(201);
    const before = latestSnapshot(stack.server.ctx.db)?.id;
    const refused = await upload(UN_2023);
    expect(refused.status).toBe(409);
    const problem = (await refused.json()) as { code: string; olderEditions: Array<{ source: string; publishedAt: string; servingPublishedAt: string }> };
    expect(problem.code).toBe("CONFLICT");
    expect(problem.olderEditions.map((e) => e.source)).toEqual(["UN"]);
    expect(problem.olderEditions[0]?.publishedAt).toStartWith("2023-03-10");
    expect(latestSnapshot(stack.server.ctx.db)?.id).toBe(before ?? "");
    expect((await upload(UN_2023, "?allowOlderEdition=1")).status).toBe(400);
    expect((await upload(UN_2023, "?allowOlderEdition=true")).status).toBe(201);
    expect(latestSnapshot(stack.server.ctx.db)?.id).not.toBe(before ?? "");
  });
});
