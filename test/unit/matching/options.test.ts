import { describe, expect, test } from "bun:test";
import { DEFAULT_OPTIONS, RiskProfileOptions, RiskProfileOverrides, SPEC_OPTION_NAMES } from "../../../src/matching/options";
import { parseFormOptions } from "../../../src/matching/options-form";
import { resolveOptions } from "../../../src/matching/options-resolve";

const SPEC_LIST =
  "threshold, exactMatch, adverseMedia, monitor, lists, pepTiers, coveragePreset, maxDataAgeDays, phonetic, nicknames, trigramFloor, candidateLimit, resultCap, dobYearTolerance, dobMismatchPenalty, dobMismatchSurfacing, dobMismatchHighScoreThreshold";

describe("the options schema", () => {
  test("covers exactly the spec's per-upload options", () => {
    const names: string[] = [...SPEC_OPTION_NAMES].sort();
    expect(names).toEqual(SPEC_LIST.split(", ").sort());
  });
  test("every field is documented", () => {
    const schema = RiskProfileOptions.toJSONSchema() as { properties: Record<string, { description?: string }> };
    for (const name of [...SPEC_OPTION_NAMES, "homeCountry"]) expect(schema.properties[name]?.description?.length).toBeGreaterThan(20);
  });
  test("an empty profile takes the defaults", () => {
    const p = RiskProfileOptions.parse({});
    expect(p.threshold).toBe(DEFAULT_OPTIONS.threshold);
    expect(p.pepTiers).toEqual(["Domestic", "Foreign", "InternationalOrganization", "FamilyOrAssociate"]);
  });
  test("overrides reject unknown keys", () => {
    expect(RiskProfileOverrides.safeParse({ treshold: 0.9 }).success).toBe(false);
  });
  test("overrides reject out-of-range values with the field named", () => {
    const r = RiskProfileOverrides.safeParse({ threshold: 1.5 });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.path).toEqual(["threshold"]);
  });
  test("overrides accept null as 'use the profile'", () => {
    expect(RiskProfileOverrides.parse({ threshold: null, lists: null })).toEqual({ threshold: null, lists: null });
  });
});

describe("multipart form strings", () => {
  const CASES: [string, Record<string, string>, Record<string, unknown>][] = [
    ["booleans", { exactMatch: "true", phonetic: "0", monitor: "yes" }, { exactMatch: true, phonetic: false, monitor: true }],
    ["numbers", { threshold: "0.85", candidateLimit: "300" }, { threshold: 0.85, candidateLimit: 300 }],
    ["comma lists", { lists: "OFAC, un" }, { lists: ["OFAC", "UN"] }],
    ["tier codes", { pepTiers: "PEP1,Foreign" }, { pepTiers: ["Domestic", "Foreign"] }],
    ["empty means use the profile", { threshold: "", lists: "" }, { threshold: null, lists: null }],
  ];
  for (const [name, form, expected] of CASES) {
    test(name, () => {
      const r = parseFormOptions(form);
      expect(r.success).toBe(true);
      expect(r.data).toEqual(expected);
    });
  }
  test("a value that is not a number is rejected", () => {
    expect(parseFormOptions({ threshold: "high" }).success).toBe(false);
  });
  test("an unknown field is rejected", () => {
    expect(parseFormOptions({ colour: "blue" }).success).toBe(false);
  });
  test("an unknown list is rejected", () => {
    expect(parseFormOptions({ lists: "OFAC,INTERPOL" }).success).toBe(false);
  });
});

describe("resolveOptions", () => {
  test("an override replaces the profile value; null keeps it", () => {
    const o = resolveOptions({ threshold: 0.9 }, { threshold: null, resultCap: 5 });
    expect(o.threshold).toBe(0.9);
    expect(o.resultCap).toBe(5);
  });
  test("coverage presets expand to lists", () => {
    expect(resolveOptions({ coveragePreset: "sanctions" }).lists).toEqual(["OFAC", "EU", "UK", "UN"]);
    expect(resolveOptions({ coveragePreset: "sanctions_pep" }).lists).toContain("WIKIDATA");
  });
  test("explicit lists win over the preset", () => {
    expect(resolveOptions({ coveragePreset: "full" }, { lists: ["UN"] }).lists).toEqual(["UN"]);
  });
  test("adverse media follows the preset unless set", () => {
    expect(resolveOptions({ coveragePreset: "full" }).adverseMedia).toBe(true);
    expect(resolveOptions({ coveragePreset: "sanctions" }).adverseMedia).toBe(false);
    expect(resolveOptions({ coveragePreset: "sanctions", adverseMedia: true }).adverseMedia).toBe(true);
  });
  test("an invalid profile throws", () => {
    expect(() => resolveOptions({ homeCountry: "gbr" })).toThrow();
  });
});
