import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { looseningIssues } from "@/matching/options-policy";
import { RiskProfileOptions } from "@/matching/options";
import { setRiskProfile } from "@/profiles/store";
import { writeTx } from "@/storage/db";
import { expectProblem, json } from "../helpers/api";
import { startScreeningWorld, type ScreeningWorld } from "./world";

/** Per-request options may tighten the tenant's risk profile; loosening needs the profile's leave. */
let world: ScreeningWorld;
beforeAll(async () => {
  world = await startScreeningWorld();
});
afterAll(() => world.close());

const cli = { actor: { type: "cli" as const, id: "test" } };
const profile = (input: unknown) => setRiskProfile(world.lists.server.ctx, world.tenant.tenant.id, input, cli);

describe("over HTTP", () => {
  test("a loosening override is refused with 400 naming each field, and nothing is screened or charged", async () => {
    profile({});
    const used = world.usedThisMonth();
    const stored = () => world.lists.server.ctx.db.sqlite.query<{ n: number }, []>("SELECT count(*) AS n FROM screenings").get()?.n;
    const before = stored();
    const problem = expectProblem(
      await world.post("/v1/screenings/check", {
        fullName: "Boris Quillfeather",
        options: { threshold: 0.95, lists: ["WIKIDATA"], exactMatch: true, resultCap: 25 },
      }),
      400,
      "VALIDATION_FAILED",
    );
    expect(problem.errors?.map((e) => e.field).sort()).toEqual(["options.exactMatch", "options.lists", "options.threshold"]);
    expect(problem.errors?.find((e) => e.field === "options.lists")?.message).toContain("OFAC, EU, UK, UN");
    expect(problem.errors?.find((e) => e.field === "options.threshold")?.message).toContain("0.82");
    expect(world.usedThisMonth()).toBe(used);
    expect(stored()).toBe(before);
  });

  test("a PEP tier written as the spec's code (PEP1) in JSON is refused naming the tier it stands for", async () => {
    profile({});
    const problem = expectProblem(
      await world.post("/v1/screenings/check", { fullName: "Boris Quillfeather", options: { pepTiers: ["Foreign", "pep1", "Nope"] } }),
      400,
      "VALIDATION_FAILED",
    );
    expect(problem.errors?.find((e) => e.field === "options.pepTiers[1]")?.message).toBe(
      "must be one of Domestic, Foreign, InternationalOrganization, FamilyOrAssociate: in JSON, pep1 is written Domestic",
    );
    expect(problem.errors?.find((e) => e.field === "options.pepTiers[2]")?.message).toContain("Domestic");
  });

  test("a request naming a list the tenant is not enabled for is refused, not screened without it", async () => {
    profile({ looseningAllowed: ["lists"] });
    const ctx = world.lists.server.ctx;
    // In writeTx, as every write to a table the row cache reads from must be (src/storage/db.ts).
    const enable = (lists: string[]) =>
      writeTx(ctx.db, () => ctx.db.sqlite.run("UPDATE tenants SET enabled_lists = ? WHERE id = ?", [JSON.stringify(lists), world.tenant.tenant.id]));
    enable(["OFAC", "UK"]);
    try {
      const used = world.usedThisMonth();
      const problem = expectProblem(
        await world.post("/v1/screenings/check", { fullName: "Ada Example", options: { lists: ["OFAC", "UN"] } }),
        400,
        "VALIDATION_FAILED",
      );
      expect(problem.errors).toEqual([{ field: "options.lists", message: "UN is not enabled for this tenant (enabled: OFAC, UK)" }]);
      expect(world.usedThisMonth()).toBe(used);
      // Lists the tenant has are fine, and a preset or the profile is limited to them without a word.
      const named = await world.post("/v1/screenings/check", { fullName: "Ada Example", options: { lists: ["UK"] } });
      expect(named.status).toBe(200);
      expect(json<{ options: { lists: string[] } }>(named).options.lists).toEqual(["UK"]);
      const preset = await world.post("/v1/screenings/check", { fullName: "Ada Example", options: { coveragePreset: "full" } });
      expect(preset.status).toBe(200);
      expect(json<{ options: { lists: string[] } }>(preset).options.lists).toEqual(["OFAC", "UK"]);
    } finally {
      enable(["OFAC", "EU", "UK", "UN", "WIKIDATA"]);
      profile({});
    }
  });

  test("a narrower coverage preset is blamed on coveragePreset", async () => {
    profile({});
    const problem = expectProblem(
      await world.post("/v1/screenings/check", { fullName: "Ada Example", options: { coveragePreset: "sanctions" } }),
      400,
      "VALIDATION_FAILED",
    );
    expect(problem.errors?.map((e) => e.field)).toEqual(["options.coveragePreset"]);
    // A wider one tightens: full adds adverse media to the same lists.
    const wider = await world.post("/v1/screenings/check", { fullName: "Ada Example", options: { coveragePreset: "full" } });
    expect(wider.status).toBe(200);
  });

  test("the profile's looseningAllowed lets exactly the named options loosen", async () => {
    profile({ looseningAllowed: ["threshold"] });
    const ok = await world.post("/v1/screenings/check", { fullName: "Ada Example", options: { threshold: 0.95 } });
    expect(ok.status).toBe(200);
    expect(json<{ options: { threshold: number } }>(ok).options.threshold).toBe(0.95);
    const refused = expectProblem(
      await world.post("/v1/screenings/check", { fullName: "Ada Example", options: { threshold: 0.95, phonetic: false } }),
      400,
      "VALIDATION_FAILED",
    );
    expect(refused.errors?.map((e) => e.field)).toEqual(["options.phonetic"]);
    profile({});
  });

  test("the policy is part of the profile as the admin API shows it", () => {
    const shown = profile({ looseningAllowed: ["lists", "resultCap"] });
    expect(shown.options.looseningAllowed).toEqual(["lists", "resultCap"]);
    expect(() => profile({ looseningAllowed: ["homeCountry"] })).toThrow();
    profile({});
  });
});

describe("the rules", () => {
  const base = RiskProfileOptions.parse({ threshold: 0.8, maxDataAgeDays: 30, pepTiers: ["Domestic", "Foreign"] });
  const fields = (overrides: Parameters<typeof looseningIssues>[1]) => looseningIssues(base, overrides).map((i) => i.field);

  test.each([
    [{ threshold: 0.8 }, []],
    [{ threshold: 0.7 }, []],
    [{ threshold: 0.81 }, ["options.threshold"]],
    [{ exactMatch: false }, []],
    [{ exactMatch: true }, ["options.exactMatch"]],
    [{ lists: ["OFAC", "EU", "UK", "UN", "WIKIDATA"] }, []],
    [{ lists: ["OFAC", "EU", "UK", "UN"] }, ["options.lists"]],
    [{ pepTiers: ["Domestic", "Foreign", "FamilyOrAssociate"] }, []],
    [{ pepTiers: ["Domestic"] }, ["options.pepTiers"]],
    [{ maxDataAgeDays: 7 }, []],
    [{ maxDataAgeDays: 31 }, ["options.maxDataAgeDays"]],
    [{ phonetic: false, nicknames: false }, ["options.phonetic", "options.nicknames"]],
    [{ trigramFloor: 0.2, candidateLimit: 500, resultCap: 100 }, []],
    [{ trigramFloor: 0.5, candidateLimit: 50, resultCap: 5 }, ["options.trigramFloor", "options.candidateLimit", "options.resultCap"]],
    [{ dobYearTolerance: 3, dobMismatchPenalty: 0.05, dobMismatchHighScoreThreshold: 0.9 }, []],
    [{ dobYearTolerance: 0 }, ["options.dobYearTolerance"]],
    [{ dobMismatchPenalty: 0.3, dobMismatchHighScoreThreshold: 0.99 }, ["options.dobMismatchPenalty", "options.dobMismatchHighScoreThreshold"]],
    [{ dobMismatchSurfacing: false }, ["options.dobMismatchSurfacing"]],
    [{ adverseMedia: true, monitor: true }, []],
    [{ coveragePreset: "sanctions" }, ["options.coveragePreset"]],
    [{ coveragePreset: "sanctions", lists: ["OFAC", "EU", "UK", "UN", "WIKIDATA"] }, []],
    [{ threshold: null, lists: null }, []],
  ] as const)("%j → %j", (overrides, expected) => {
    expect(fields(overrides as Parameters<typeof looseningIssues>[1])).toEqual([...expected]);
  });

  test("lists are judged on what the tenant is enabled for: selecting exactly its lists drops nothing", () => {
    const defaults = RiskProfileOptions.parse({});
    const enabled = new Set(["OFAC", "UN"] as const);
    const fieldsFor = (overrides: Parameters<typeof looseningIssues>[1]) => looseningIssues(defaults, overrides, enabled).map((i) => i.field);
    expect(fieldsFor({ lists: ["OFAC", "UN"] })).toEqual([]);
    expect(fieldsFor({ coveragePreset: "sanctions" })).toEqual([]);
    expect(fieldsFor({ lists: ["OFAC"] })).toEqual(["options.lists"]);
    expect(looseningIssues(defaults, { lists: ["OFAC"] }, enabled)[0]?.message).toContain("UN");
    // Without the tenant's lists the same request drops EU, UK and WIKIDATA.
    expect(looseningIssues(defaults, { lists: ["OFAC", "UN"] }).map((i) => i.field)).toEqual(["options.lists"]);
  });

  test("a profile with adverse media or monitoring on refuses turning them off", () => {
    const strict = RiskProfileOptions.parse({ adverseMedia: true, monitor: true });
    expect(looseningIssues(strict, { adverseMedia: false, monitor: false }).map((i) => i.field)).toEqual(["options.adverseMedia", "options.monitor"]);
    const preset = RiskProfileOptions.parse({ coveragePreset: "full" });
    expect(looseningIssues(preset, { coveragePreset: "sanctions_pep" }).map((i) => i.field)).toEqual(["options.coveragePreset"]);
  });
});
