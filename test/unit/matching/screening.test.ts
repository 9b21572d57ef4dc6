import { describe, expect, test } from "bun:test";
import { DEFAULT_OPTIONS } from "../../../src/matching/options";
import { CTX, find, fixtureIndex, key, run } from "./helpers";

describe("date of birth", () => {
  test("exact date raises the score", () => {
    const base = find(run("Hassan Nasrallah"), "OFAC:10032")!;
    const exact = find(run({ fullName: "Hasan Nasralah", dateOfBirth: "1960-08-31" }), "OFAC:10032")!;
    expect(exact.explanation.dob).toEqual({ relation: "exact", effect: 0.04 });
    expect(base.explanation.dob.relation).toBe("unknown");
  });
  test("partial date (year only) counts as a year match", () => {
    expect(find(run({ fullName: "Hassan Nasrallah", dateOfBirth: "1960" }), "OFAC:10032")!.explanation.dob.relation).toBe("year");
  });
  test("day-first dates are understood", () => {
    expect(find(run({ fullName: "Hassan Nasrallah", dateOfBirth: "31/08/1960" }), "OFAC:10032")!.explanation.dob.relation).toBe("exact");
  });
  test("a year within dobYearTolerance is not a mismatch", () => {
    const m = find(run({ fullName: "Hassan Nasrallah", dateOfBirth: "1961" }), "OFAC:10032")!;
    expect(m.explanation.dob.relation).toBe("near");
    const strict = find(run({ fullName: "Hassan Nasrallah", dateOfBirth: "1961" }, { dobYearTolerance: 0, dobMismatchSurfacing: false }), "OFAC:10032");
    expect(strict?.explanation.dob.relation ?? "dropped").not.toBe("near");
  });
  test("dob mismatch penalty lowers the score", () => {
    const m = find(run({ fullName: "Hasan Nasralah", dateOfBirth: "1990-01-01" }, { threshold: 0.5, dobMismatchSurfacing: false }), "OFAC:10032")!;
    expect(m.explanation.dob).toEqual({ relation: "mismatch", effect: -0.15 });
    expect(m.score).toBeCloseTo(m.explanation.nameScore - 0.15, 3);
  });
  test("dob mismatch surfacing keeps a very strong name match for review", () => {
    const r = run({ fullName: "Hassan Nasrallah", dateOfBirth: "1990-01-01" }, { dobMismatchPenalty: 0.5 });
    const m = find(r, "OFAC:10032")!;
    expect(m.explanation.dobMismatchSurfaced).toBe(true);
    expect(m.score).toBe(DEFAULT_OPTIONS.threshold);
    expect(r.outcome.decision).toBe("Review");
  });
  test("without surfacing the mismatching match disappears", () => {
    const r = run({ fullName: "Hassan Nasrallah", dateOfBirth: "1990-01-01" }, { dobMismatchPenalty: 0.5, dobMismatchSurfacing: false });
    expect(find(r, "OFAC:10032")).toBeUndefined();
  });
  test("surfacing needs a name score above dobMismatchHighScoreThreshold", () => {
    const r = run({ fullName: "Hasan Nasralah", dateOfBirth: "1990-01-01" }, { dobMismatchPenalty: 0.5, dobMismatchHighScoreThreshold: 0.99 });
    expect(find(r, "OFAC:10032")).toBeUndefined();
  });
});

describe("nationality", () => {
  test("a matching nationality adds a little, a different one takes a little", () => {
    const same = find(run({ fullName: "Hassan Nasrallah", nationality: "Lebanon" }), "OFAC:10032")!;
    const other = find(run({ fullName: "Hassan Nasrallah", nationality: "FR" }), "OFAC:10032")!;
    expect(same.explanation.nationality).toEqual({ relation: "match", effect: 0.02 });
    expect(other.explanation.nationality).toEqual({ relation: "mismatch", effect: -0.03 });
  });
});

describe("filters", () => {
  test("deceased suppressed: shown apart and excluded from the decision", () => {
    const r = run("Robert Gabriel Mugabe");
    expect(r.matches).toHaveLength(0);
    expect(key(r.suppressedMatches[0])).toBe("OFAC:2001");
    expect(r.outcome).toMatchObject({ decision: "Clear", matchCount: 0, isMatch: false });
  });
  test("lists limits the sources", () => {
    const r = run("Vladimir Putin", { lists: ["WIKIDATA"] });
    expect(r.matches.map((m) => m.source)).toEqual(["WIKIDATA"]);
  });
  test("coveragePreset sanctions leaves out PEPs", () => {
    const r = run("Vladimir Putin", { coveragePreset: "sanctions" });
    expect(r.matches.every((m) => m.source !== "WIKIDATA")).toBe(true);
    expect(r.outcome.classification).toBe("sanctions");
  });
  test("PEP tier is relative to the tenant's home country", () => {
    const home = run("Keir Starmer", {}, { ...CTX, homeCountry: "GB" });
    const abroad = run("Keir Starmer", {}, { ...CTX, homeCountry: "FR" });
    expect(home.matches[0]?.pepTiers).toEqual(["Domestic"]);
    expect(abroad.matches[0]?.pepTiers).toEqual(["Foreign"]);
  });
  test("pepTiers filters PEP matches but never sanctions matches", () => {
    const r = run("Vladimir Putin", { pepTiers: ["Domestic"] }, { ...CTX, homeCountry: "GB" });
    expect(r.matches.map((m) => m.source)).toEqual(["UK"]);
  });
  test("international organisation and family tiers", () => {
    expect(run("Ursula von der Leyen").matches[0]?.pepTiers).toEqual(["InternationalOrganization"]);
    expect(run("Lyudmila Putina").matches[0]?.pepTiers).toEqual(["FamilyOrAssociate"]);
  });
  test("maxDataAgeDays flags stale sources but keeps their matches", () => {
    const r = run("Hassan Nasrallah", { maxDataAgeDays: 5 });
    expect(r.outcome.staleSources).toEqual(["OFAC", "EU", "UK", "WIKIDATA"]);
    expect(r.matches[0]?.staleSource).toBe(true);
    expect(run("Hassan Nasrallah").outcome.staleSources).toEqual([]);
  });
  test("an undated source counts as stale under maxDataAgeDays", () => {
    const r = run("Hassan Nasrallah", { maxDataAgeDays: 3650 }, { ...CTX, sourcePublishedAt: {} });
    expect(r.outcome.staleSources).toHaveLength(5);
  });
  test("threshold drops weaker matches", () => {
    expect(run("Hasan Nasralah", { threshold: 0.99 }).matches).toHaveLength(0);
  });
  test("resultCap caps the list, not the count", () => {
    const r = run("Vladimir Putin", { resultCap: 1 });
    expect(r.matches).toHaveLength(1);
    expect(r.outcome.matchCount).toBe(2);
  });
});

describe("exactMatch mode", () => {
  test("finds normalised equal names only", () => {
    expect(key(run("nasrallah, HASSAN", { exactMatch: true }).matches[0])).toBe("OFAC:10032");
    expect(run("Hasan Nasralah", { exactMatch: true }).matches).toHaveLength(0);
    expect(run("Alqaida", { exactMatch: true }).matches[0]?.score).toBe(1);
  });
});

describe("retrieval options", () => {
  test("candidateLimit bounds the names scored", () => {
    const r = run("Vladimir Putin", { candidateLimit: 10, threshold: 0.5 }, { ...CTX, timings: true });
    expect(r.timings!.candidates).toBeLessThanOrEqual(10);
  });
  test("a high trigramFloor stops fuzzy spellings from being looked up", () => {
    const loose = run("Hassan Nasrullah", { trigramFloor: 0.3, phonetic: false, nicknames: false });
    const strict = run("Hassan Nasrullah", { trigramFloor: 0.9, phonetic: false, nicknames: false });
    expect(find(loose, "OFAC:10032")).toBeDefined();
    expect(find(strict, "OFAC:10032")).toBeUndefined();
  });
  test("nicknames can be switched off", () => {
    expect(find(run("Bob Smith", { nicknames: false }), "OFAC:9001")).toBeUndefined();
  });
  test("results are deterministic and the index is reusable", () => {
    const a = JSON.stringify(run({ fullName: "Ayman Zawahiri", aliases: ["Abu Muhammad"] }));
    run("Vladimir Putin");
    expect(JSON.stringify(run({ fullName: "Ayman Zawahiri", aliases: ["Abu Muhammad"] }))).toBe(a);
    expect(fixtureIndex().names.tokens).toBeInstanceOf(Uint32Array);
  });
  test("an empty or noise-only name matches nothing", () => {
    expect(run("   ").outcome.decision).toBe("Clear");
    expect(run("---").matches).toHaveLength(0);
  });
});
