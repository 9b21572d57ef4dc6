import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import Papa from "papaparse";
import { setRiskProfile } from "@/profiles/store";
import { writeTx } from "@/storage/db";
import { demoListFiles } from "@/watchlists/demo";
import { json } from "../helpers/api";
import { runCli } from "../helpers/cli";
import { fixtureFiles } from "../helpers/lists";
import { insertScreeningCopy } from "../helpers/screenings";
import { makeTenant } from "../helpers/tenants";
import { startScreeningWorld, type ScreeningWorld } from "./world";

/**
 * A tenant learns which of its lists a Clear does not cover, before and after it screens: lists the
 * snapshot does not hold (notLoaded), and lists older than its maxDataAgeDays (stale). The snapshot
 * here: the OFAC CSV fixture (no publication date in the files) and a UN XML dated 2025-01-15.
 */
let world: ScreeningWorld;
beforeAll(async () => {
  const un = demoListFiles().find((f) => f.name.startsWith("un"));
  if (!un) throw new Error("the demo UN file is missing");
  world = await startScreeningWorld({ files: [...fixtureFiles(), { name: "consolidated.xml", bytes: un.bytes }] });
});
afterAll(() => world.close());

const cli = { actor: { type: "cli" as const, id: "test" } };
/** The UN file's publication date, and a limit it is 30 days inside whenever the test runs (no fixed date to outlive). */
const UN_PUBLISHED = "2025-01-15T00:00:00.000Z";
const FRESH_LIMIT = Math.floor((Date.now() - Date.parse(UN_PUBLISHED)) / 86_400_000) + 30;

interface Coverage {
  selected: string[];
  notLoaded: string[];
  stale: string[];
  maxDataAgeDays: number | null;
}
interface Screening {
  id: string;
  listVersions: { sources: Array<{ source: string }>; notLoaded: string[]; stale: string[] };
  matches: Array<{ source: string; staleSource: boolean }>;
}

/** A tenant of its own, so each test sets its profile without touching the others. */
function tenant(enabledLists: string[], profile: Record<string, unknown> = {}) {
  const created = makeTenant(world.lists.server.ctx, { enabledLists });
  setRiskProfile(world.lists.server.ctx, created.tenant.id, profile, cli);
  return created;
}

async function coverageOf(key: string): Promise<Coverage> {
  const res = await world.get("/v1/lists/version", { key });
  expect(res.status).toBe(200);
  return json<{ coverage: Coverage }>(res).coverage;
}

describe("GET /v1/lists/version: the caller's coverage", () => {
  test("the lists a screen checks, and the selected ones the snapshot does not hold", async () => {
    const all = tenant(["OFAC", "EU", "UK", "UN", "WIKIDATA"]);
    expect(await coverageOf(all.apiKey)).toEqual({ selected: ["OFAC", "EU", "UK", "UN", "WIKIDATA"], notLoaded: ["EU", "UK", "WIKIDATA"], stale: [], maxDataAgeDays: null });
    // Limited to the lists enabled for the tenant, and to the profile's selection.
    const two = tenant(["OFAC", "UN"]);
    expect(await coverageOf(two.apiKey)).toEqual({ selected: ["OFAC", "UN"], notLoaded: [], stale: [], maxDataAgeDays: null });
    const profiled = tenant(["OFAC", "EU", "UK", "UN", "WIKIDATA"], { lists: ["OFAC", "EU"] });
    expect(await coverageOf(profiled.apiKey)).toEqual({ selected: ["OFAC", "EU"], notLoaded: ["EU"], stale: [], maxDataAgeDays: null });
  });

  test("stale under maxDataAgeDays: an undated list always, a dated one once older than the limit, a not-loaded one too", async () => {
    // UN was published 2025-01-15: inside FRESH_LIMIT, over one day.
    const roomy = tenant(["OFAC", "UN", "EU"], { maxDataAgeDays: FRESH_LIMIT });
    expect(await coverageOf(roomy.apiKey)).toEqual({ selected: ["OFAC", "EU", "UN"], notLoaded: ["EU"], stale: ["OFAC", "EU"], maxDataAgeDays: FRESH_LIMIT });
    const day = tenant(["OFAC", "UN"], { maxDataAgeDays: 1 });
    expect((await coverageOf(day.apiKey)).stale).toEqual(["OFAC", "UN"]);
  });

  test("a profile that leaves no enabled list covers nothing (every screen is refused)", async () => {
    const narrowed = tenant(["OFAC", "UN"]);
    const ctx = world.lists.server.ctx;
    setRiskProfile(ctx, narrowed.tenant.id, { lists: ["EU"] }, cli);
    expect(await coverageOf(narrowed.apiKey)).toEqual({ selected: [], notLoaded: [], stale: [], maxDataAgeDays: null });
    const refused = await world.post("/v1/screenings/check", { fullName: "Ada Example" }, { key: narrowed.apiKey });
    expect(refused.status).toBe(400);
    // And it follows a change of the enabled lists at once (the row cache is dropped by the write).
    writeTx(ctx.db, () => ctx.db.sqlite.run("UPDATE tenants SET enabled_lists = ? WHERE id = ?", [JSON.stringify(["EU", "UN"]), narrowed.tenant.id]));
    expect((await coverageOf(narrowed.apiKey)).notLoaded).toEqual(["EU"]);
  });
});

describe("each screening records its stale lists", () => {
  test("check and the stored record: listVersions.stale, and staleSource on each match from a stale list", async () => {
    const aged = tenant(["OFAC", "UN", "EU"], { maxDataAgeDays: FRESH_LIMIT });
    const res = await world.post("/v1/screenings/check", { fullName: "Dmitri Korvalev" }, { key: aged.apiKey });
    expect(res.status).toBe(200);
    const body = json<Screening>(res);
    expect(body.listVersions.notLoaded).toEqual(["EU"]);
    expect(body.listVersions.stale).toEqual(["OFAC", "EU"]);
    expect(body.matches.length).toBeGreaterThan(0);
    for (const m of body.matches) expect(m.staleSource).toBe(body.listVersions.stale.includes(m.source));
    const read = json<Screening>(await world.get(`/v1/screenings/${body.id}`, { key: aged.apiKey }));
    expect(read.listVersions).toEqual(body.listVersions);

    // Without a limit nothing is stale, however old or undated.
    const unlimited = tenant(["OFAC", "UN"]);
    const clear = json<Screening>(await world.post("/v1/screenings/check", { fullName: "Penelope Whitcombe-Arden" }, { key: unlimited.apiKey }));
    expect(clear.listVersions.stale).toEqual([]);
  });

  test("bulk rows carry listsStale, in JSON and in the CSV; a failed row has none", async () => {
    const aged = tenant(["OFAC", "UN"], { maxDataAgeDays: FRESH_LIMIT });
    const rows = [{ fullName: "Dmitri Korvalev" }, { bad: true }];
    const res = await world.post("/v1/screenings/bulk", rows, { key: aged.apiKey });
    expect(res.status).toBe(200);
    const body = json<{ rows: Array<{ listsNotLoaded: string[] | null; listsStale: string[] | null }> }>(res);
    expect(body.rows.map((r) => r.listsStale)).toEqual([["OFAC"], null]);
    expect(body.rows[0]?.listsNotLoaded).toEqual([]);

    const csv = await world.post("/v1/screenings/bulk?format=csv", rows, { key: aged.apiKey });
    const parsed = Papa.parse<Record<string, string>>(csv.text, { header: true, skipEmptyLines: true });
    expect(parsed.errors).toEqual([]);
    expect(parsed.meta.fields?.slice(-2)).toEqual(["listsNotLoaded", "listsStale"]);
    expect(parsed.data.map((r) => r.listsStale)).toEqual(["OFAC", ""]);
  });
});

describe("a stored record reads its stale lists from what it stored", () => {
  /** A copy of a real screening row as an earlier version stored it: the given sources and options. */
  const storedCopy = (of: string, listVersions: unknown[], options: Record<string, unknown>) =>
    insertScreeningCopy(world.lists.server.ctx.db, of, { list_versions: JSON.stringify(listVersions), options: JSON.stringify(options) });

  test("a bare date, a date that is no ISO date, and options without maxDataAgeDays", async () => {
    const aged = tenant(["OFAC", "UN"], { maxDataAgeDays: FRESH_LIMIT });
    const original = json<Screening & { options: Record<string, unknown> }>(await world.post("/v1/screenings/check", { fullName: "Ada Example" }, { key: aged.apiKey }));
    const un = (publishedAt: string) => [{ source: "UN", versionId: "v-old-un", publishedAt }];
    const read = async (id: string) => json<Screening>(await world.get(`/v1/screenings/${id}`, { key: aged.apiKey })).listVersions;

    // "2025-01-15" is read as its first instant, UTC: inside the limit, so only OFAC (not loaded here) is stale.
    const bare = await read(storedCopy(original.id, un("2025-01-15"), original.options));
    expect(bare.sources).toEqual([{ source: "UN", versionId: "v-old-un", publishedAt: UN_PUBLISHED, isDemo: false }] as never);
    expect(bare.notLoaded).toEqual(["OFAC"]);
    expect(bare.stale).toEqual(["OFAC"]);
    // Text that is no ISO 8601 date is undated, so stale under a limit, whatever Date.parse makes of it.
    expect((await read(storedCopy(original.id, un("Week 47"), original.options))).stale).toEqual(["OFAC", "UN"]);
    // Options without the field: no limit, nothing stale.
    const { maxDataAgeDays: _dropped, ...withoutLimit } = original.options;
    expect((await read(storedCopy(original.id, un("Week 47"), withoutLimit))).stale).toEqual([]);
  });
});

describe("aml lists status names the gaps for the operator", () => {
  test("each list not loaded with the tenants that select it, and each stale list with theirs; --json has every tenant's coverage", async () => {
    const selecting = tenant(["OFAC", "UK"]);
    const aged = tenant(["OFAC", "UN"], { maxDataAgeDays: 1 });
    const status = await runCli(["lists", "status"], { dataDir: world.lists.server.dataDir });
    expect(status.code).toBe(0);
    const ukLine = status.stdout.split("\n").find((l) => l.startsWith("not loaded: UK,"));
    expect(ukLine).toContain(selecting.tenant.slug);
    expect(ukLine).toContain("do NOT check it");
    const unLine = status.stdout.split("\n").find((l) => l.startsWith("stale: UN,"));
    expect(unLine).toContain(`${aged.tenant.slug} (maxDataAgeDays 1)`);
    expect(unLine).not.toContain(selecting.tenant.slug);

    const asJson = await runCli(["--json", "lists", "status"], { dataDir: world.lists.server.dataDir });
    const coverage = (JSON.parse(asJson.stdout) as { coverage: Array<Coverage & { tenant: string }> }).coverage;
    expect(coverage.find((c) => c.tenant === selecting.tenant.slug)).toEqual({
      tenant: selecting.tenant.slug,
      selected: ["OFAC", "UK"],
      notLoaded: ["UK"],
      stale: [],
      maxDataAgeDays: null,
    });
    expect(coverage.find((c) => c.tenant === aged.tenant.slug)?.stale).toEqual(["OFAC", "UN"]);
  });

  test("a suspended tenant cannot screen, so it has no gap to report", async () => {
    const suspended = tenant(["OFAC", "UK"]);
    const ctx = world.lists.server.ctx;
    writeTx(ctx.db, () => ctx.db.sqlite.run("UPDATE tenants SET status = 'suspended' WHERE id = ?", [suspended.tenant.id]));
    const status = await runCli(["lists", "status"], { dataDir: world.lists.server.dataDir });
    expect(status.code).toBe(0);
    expect(status.stdout).not.toContain(suspended.tenant.slug);
    const asJson = await runCli(["--json", "lists", "status"], { dataDir: world.lists.server.dataDir });
    const tenants = (JSON.parse(asJson.stdout) as { coverage: Array<{ tenant: string }> }).coverage.map((c) => c.tenant);
    expect(tenants).not.toContain(suspended.tenant.slug);
    expect(tenants.length).toBeGreaterThan(0);
  });

  test("lists import ends with the same gap lines", async () => {
    const selecting = tenant(["OFAC", "UK"]);
    const un = demoListFiles().find((f) => f.name.startsWith("un"));
    const file = join(world.lists.server.dataDir, "..", `un-${selecting.tenant.slug}.xml`);
    writeFileSync(file, un?.bytes ?? new Uint8Array());
    const imported = await runCli(["lists", "import", file], { dataDir: world.lists.server.dataDir });
    expect(imported.code).toBe(0);
    expect(imported.stdout).toMatch(/^UN\s+(imported|unchanged)\s+un-xml/m);
    expect(imported.stdout.split("\n").find((l) => l.startsWith("not loaded: UK,"))).toContain(selecting.tenant.slug);
  });
});

describe("aml screen", () => {
  test("the summary on stderr names the lists not checked and the stale ones", async () => {
    const aged = tenant(["OFAC", "UN", "EU"], { maxDataAgeDays: 1 });
    const result = await runCli(["screen", "--tenant", aged.tenant.slug, "--name", "Ada Example"], { dataDir: world.lists.server.dataDir });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("NOT checked, as the snapshot does not hold them: EU");
    // EU is named once, as not checked; OFAC is undated and UN more than a day old.
    expect(result.stderr).toContain("older than maxDataAgeDays (1 days) or undated: OFAC, UN;");
    const line = JSON.parse(result.stdout.trim()) as { listsNotLoaded: string[]; listsStale: string[] };
    expect(line.listsNotLoaded).toEqual(["EU"]);
    expect(line.listsStale).toEqual(["OFAC", "EU", "UN"]);
  });
});
