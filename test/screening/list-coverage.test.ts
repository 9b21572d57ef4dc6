import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Papa from "papaparse";
import { setRiskProfile } from "@/profiles/store";
import { writeTx } from "@/storage/db";
import { demoListFiles } from "@/watchlists/demo";
import { json } from "../helpers/api";
import { runCli } from "../helpers/cli";
import { fixtureFiles } from "../helpers/lists";
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
    // UN was published 2025-01-15: within ten years, over one day.
    const decade = tenant(["OFAC", "UN", "EU"], { maxDataAgeDays: 3650 });
    expect(await coverageOf(decade.apiKey)).toEqual({ selected: ["OFAC", "EU", "UN"], notLoaded: ["EU"], stale: ["OFAC", "EU"], maxDataAgeDays: 3650 });
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
    const aged = tenant(["OFAC", "UN", "EU"], { maxDataAgeDays: 3650 });
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
    const aged = tenant(["OFAC", "UN"], { maxDataAgeDays: 3650 });
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
});
