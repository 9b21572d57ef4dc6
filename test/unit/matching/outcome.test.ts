import { describe, expect, test } from "bun:test";
import { computeOutcome, riskBand } from "../../../src/matching/outcome";
import type { Match } from "../../../src/matching/types";
import type { PepTier, SourceList } from "../../../src/watchlists/entity";

function match(source: SourceList, score: number, tiers: PepTier[] = [], surfaced = false): Match {
  return {
    source,
    externalId: `${source}-${score}`,
    entityType: "person",
    primaryName: "X",
    matchedName: "X",
    matchedNameKind: "primary",
    queryField: "fullName",
    queryName: "X",
    score,
    programmes: [],
    pepTiers: tiers,
    deceased: false,
    verifyUrl: "",
    staleSource: false,
    explanation: {
      nameScore: score,
      alignments: [],
      unmatchedQuery: [],
      unmatchedCandidate: [],
      matchedWeight: 0,
      omissionPenalty: 0,
      conflictPenalty: 0,
      singleTokenFactor: 1,
      aliasQuality: "strong",
      aliasFactor: 1,
      dob: { relation: "unknown", effect: 0 },
      nationality: { relation: "unknown", effect: 0 },
      dobMismatchSurfaced: surfaced,
    },
  };
}

describe("decision, risk and classification", () => {
  const CASES: [string, Match[], boolean, Partial<ReturnType<typeof computeOutcome>>][] = [
    ["nothing matched is clear", [], false, { decision: "Clear", riskScore: 0, riskBand: "Low", classification: null, isMatch: false, matchCount: 0 }],
    ["a strong sanctions match", [match("OFAC", 0.99)], false, { decision: "Match", riskBand: "Critical", classification: "sanctions" }],
    ["a weak sanctions match needs review", [match("UN", 0.84)], false, { decision: "Review", riskBand: "High", classification: "sanctions" }],
    ["a foreign PEP", [match("WIKIDATA", 1, ["Foreign"])], false, { decision: "Match", riskScore: 75, classification: "pep", pepTiers: ["Foreign"] }],
    ["a family member of a PEP", [match("WIKIDATA", 0.8, ["FamilyOrAssociate"])], false, { riskScore: 30, riskBand: "Medium" }],
    ["sanctions rank above PEP", [match("WIKIDATA", 1, ["Domestic"]), match("UK", 0.82)], false, { classification: "sanctions", sourceLists: ["UK", "WIKIDATA"], matchCount: 2 }],
    ["adverse media alone is review", [], true, { decision: "Review", classification: "adverse_media", riskScore: 40, isMatch: true }],
    ["a DOB-mismatch match kept for review is never Match", [match("OFAC", 0.97, [], true)], false, { decision: "Review" }],
  ];
  for (const [name, matches, adverse, expected] of CASES) {
    test(name, () => {
      const o = computeOutcome({ matches, threshold: 0.8, adverseMediaHit: adverse });
      expect(o).toMatchObject(expected);
    });
  }
  test("score is the best counted match", () => {
    expect(computeOutcome({ matches: [match("UN", 0.85), match("EU", 0.93)], threshold: 0.8 }).score).toBe(0.93);
  });
  test("risk bands", () => {
    expect([0, 24, 25, 49, 50, 74, 75, 100].map(riskBand)).toEqual(["Low", "Low", "Medium", "Medium", "High", "High", "Critical", "Critical"]);
  });
});
