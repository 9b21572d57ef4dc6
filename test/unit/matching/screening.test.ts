import { describe, expect, test } from "bun:test";
import { DEFAULT_OPTIONS } from "../../../src/matching/options";
import { buildIndex } from "../../../src/matching/index";
import { resolveOptions } from "../../../src/matching/options-resolve";
import { screen } from "../../../src/matching/screen";
import { FIXTURE_ENTITIES } from "../../fixtures/matching/entities";
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

describe("candidate pairs read as one token", () => {
  // A query token is compared with each adjacent pair of a candidate's tokens written as one
  // ("Alsaud" with "al saud"). The similarity is cached per query token by the pair, and the pair's
  // folded spelling across queries, so neither may answer for another pair.
  const base = FIXTURE_ENTITIES[0]!;
  const listed = (externalId: string, name: string) => ({
    ...base,
    externalId,
    primaryName: name,
    names: [{ name, kind: "primary" as const, quality: "strong" as const, originalScript: false }],
  });
  const entities = [listed("T1", "Al Asad Al Saud"), listed("T2", "Al Kaida Al Saoud")];
  const explain = (index: ReturnType<typeof buildIndex>, q: string) =>
    screen(index, { fullName: q }, resolveOptions({}, { threshold: 0.5 }), CTX).matches.map((m) => [key(m), m.score, m.explanation.alignments]);

  test("each pair of a name is compared as itself", () => {
    const [first] = explain(buildIndex(entities), "Alsaud");
    expect(first?.[2]).toContainEqual(expect.objectContaining({ query: "alsaud", candidate: "al saud", similarity: 1 }));
  });

  test("what earlier queries left in the caches does not change an answer", () => {
    const warm = buildIndex(entities);
    const queries = ["Alasat", "Alkayda", "Alsaoud", "Alkaida Alsaud", "Alsaut"];
    for (const q of queries) explain(warm, q);
    for (const q of queries) expect(explain(warm, q)).toEqual(explain(buildIndex(entities), q));
  });
});

describe("caches across queries", () => {
  // A candidate pair read as one token ("al qaida" for "Alkaida") is compared once per query token
  // and its folded spelling kept across queries; the answers must not depend on what ran before.
  const queries = ["Alkaida", "Alqayda", "Al-Qaeda", "Hassan Nasr Allah", "Alkaida", "Bashar Alasad", "Salman Alsaud", "Alsaud Alasad Alzawahiri"];
  const explained = (index: ReturnType<typeof fixtureIndex>, q: string) =>
    JSON.stringify(screen(index, { fullName: q }, resolveOptions({}, {}), CTX).matches.map((m) => [key(m), m.score, m.explanation]));

  test("a merged candidate pair scores and explains the same on a warm index as on a fresh one", () => {
    const warm = fixtureIndex();
    for (const q of queries) explained(warm, q);
    for (const q of queries) expect(explained(warm, q)).toBe(explained(buildIndex(FIXTURE_ENTITIES), q));
    const alkaida = run("Alkaida").matches[0]!;
    expect(key(alkaida)).toBe("OFAC:6366Q");
    expect(alkaida.explanation.alignments).toEqual([expect.objectContaining({ query: "alkaida", candidate: "al qaida", kind: "fuzzy" })]);
  });
});
