import { describe, expect, test } from "bun:test";
import { buildIndex } from "../../../src/matching/index";
import { resolveOptions } from "../../../src/matching/options-resolve";
import { planQuery } from "../../../src/matching/query";
import { retrieve } from "../../../src/matching/retrieve";
import { scoreName } from "../../../src/matching/score";
import { screen } from "../../../src/matching/screen";
import type { ScreenResult } from "../../../src/matching/types";
import type { WatchlistEntity } from "../../../src/watchlists/entity";
import { newEntity } from "../../../src/watchlists/importers/common/build";
import { FIXTURE_ENTITIES } from "../../fixtures/matching/entities";
import { CTX, find, key } from "./helpers";

/**
 * Words of a listed name's legal form or title are noise there (weighted at 10%, and not posted
 * for retrieval), but a subject who misspells the legal form ("COMPAMY", "COMPANI", "LIMTED"),
 * writes it in another spelling ("Organisation") or order, or writes only part of it ("Promoil
 * Company") has them as ordinary name words. Retrieval must still find such names (its gates bound
 * what scoring can credit), and scoring must not count those words as name parts the listed name
 * lacks. Listed names as on the OFAC SDN list and the OFSI list (real ids), plus companies and banks
 * with the same legal forms so that these words are as common here as on the real lists.
 */
function organisation(source: "OFAC" | "UK", id: string, ...names: string[]): WatchlistEntity {
  return {
    ...newEntity({ source, externalId: id, entityType: "organisation", verifyUrl: `https://example.test/${source}/${id}` }),
    primaryName: names[0]!,
    names: names.map((name, i) => ({ name, kind: i === 0 ? "primary" : "aka", quality: "strong", originalScript: false })),
  };
}

const LISTED = [
  organisation("OFAC", "17013", "VTB BANK PUBLIC JOINT STOCK COMPANY", "VTB BANK PJSC", "JSC VTB BANK"),
  organisation("UK", "14195", "VTB BANK (PUBLIC JOINT-STOCK COMPANY)"),
  organisation("OFAC", "45528", "PROMOIL LIMITED LIABILITY COMPANY", "OBSHCHESTVO S OGRANICHENNOI OTVETSTVENNOSTYU PROMOIL"),
  organisation("OFAC", "19031", "JOINT STOCK COMPANY GENBANK", "JSC GENBANK", "AKTSIONERNOE OBSHCHESTVO GENBANK"),
  organisation("OFAC", "46575", "SETTLEMENT NON BANK CREDIT ORGANIZATION METALLURG"),
  organisation("OFAC", "42037", "NEXIGN JOINT STOCK COMPANY"),
];

const FILLER_WORDS = ["ALFA", "BETA", "GAMMA", "DELTA", "OMEGA", "SIGMA", "KAPPA", "ZETA", "THETA", "IOTA", "LAMBDA", "TAU"];
const FILLER = FILLER_WORDS.flatMap((w, i) => [
  organisation("OFAC", `F${i}A`, `${w} TRADING JOINT STOCK COMPANY`),
  organisation("OFAC", `F${i}B`, `${w}SERVICE LIMITED LIABILITY COMPANY`),
  organisation("UK", `F${i}C`, `${w} CAPITAL BANK`),
]);

const index = buildIndex([...FIXTURE_ENTITIES, ...FILLER, ...LISTED]);
const EXPAND = { trigramFloor: 0.3, phonetic: true, nicknames: true, exactOnly: false };

function screenAt(query: string, threshold = 0.82, candidateLimit = 200): ScreenResult {
  return screen(index, { fullName: query }, resolveOptions({}, { threshold, candidateLimit }), CTX);
}

/** The best score full scoring gives any name of the entity, whatever retrieval returns. */
function fullScore(query: string, entityKey: string): number {
  const plan = planQuery(index, query, EXPAND);
  let best = 0;
  for (let n = 0; n < index.names.count; n++) {
    const card = index.cards.get(index.names.entity[n]!);
    if (`${card.source}:${card.externalId}` === entityKey) best = Math.max(best, scoreName(index, plan, n, false).score);
  }
  return best;
}

describe("retrieval finds names whose legal form the subject wrote as name words", () => {
  const CASES: [string, string][] = [
    ["VTB BANK PUBLIC JOINT STOCK COMPAMY", "OFAC:17013"],
    ["VTB BANK PUBLIC JOINT STOCK COMPAMY", "UK:14195"],
    ["VTB BANK (PUBLIC JOINTaSTOCK COMPANY)", "OFAC:17013"],
    ["Metallurg Settlement Non Bank Credit Organisation", "OFAC:46575"],
    ["METALLURG ORGANIZATION CREDIT BANK NON SETTLEMENT", "OFAC:46575"],
    ["JOINT STOCK COMPANI GENBANK", "OFAC:19031"],
    ["NEXIGN JOINT STOCK COMPANI", "OFAC:42037"],
  ];
  for (const [query, target] of CASES) {
    test(`${query} → ${target}`, () => {
      // Full scoring puts the listed name over the threshold: the gates must let it through.
      expect(fullScore(query, target)).toBeGreaterThanOrEqual(0.82);
      const hit = find(screenAt(query), target);
      expect(hit).toBeDefined();
      // The same score as at a low threshold: the threshold only decides what is reported.
      expect(hit!.score).toBe(find(screenAt(query, 0.5), target)!.score);
    });
  }

  test("the retrieval gate keeps the name at the threshold scoring passes, for any candidate limit", () => {
    const plan = planQuery(index, "VTB BANK PUBLIC JOINT STOCK COMPAMY", EXPAND);
    for (const candidateLimit of [200, 5000]) {
      const names = retrieve(index, plan, { threshold: 0.82, candidateLimit, sourceMask: 31 });
      const entities = new Set(names.map((n) => index.cards.get(index.names.entity[n]!).externalId));
      expect(entities.has("17013")).toBe(true);
      expect(entities.has("14195")).toBe(true);
    }
  });
});

describe("subject words aligned to a listed legal form are not name parts the listed name lacks", () => {
  test("Promoil Company matches PROMOIL LIMITED LIABILITY COMPANY in full", () => {
    const r = screenAt("Promoil Company");
    expect(r.outcome.decision).toBe("Match");
    const hit = find(r, "OFAC:45528")!;
    expect(hit.score).toBe(1);
    expect(hit.explanation.singleTokenFactor).toBe(1);
    expect(hit.explanation.unmatchedQuery).toEqual([]);
  });

  test("JOINT STOCK COMPANI GENBANK: every word aligned, so no single-token factor", () => {
    const r = screenAt("JOINT STOCK COMPANI GENBANK");
    expect(key(r.matches[0])).toBe("OFAC:19031");
    expect(r.outcome.decision).toBe("Match");
    const hit = find(r, "OFAC:19031")!;
    expect(hit.explanation.singleTokenFactor).toBe(1);
    expect(hit.explanation.alignments.map((a) => a.query).sort()).toEqual(["compani", "genbank", "joint", "stock"]);
    expect(hit.explanation.nameScore).toBeGreaterThan(0.95);
  });

  test("the explanation adds up to the score it reports", () => {
    const hit = find(screenAt("Promoil Company"), "OFAC:45528")!;
    const e = hit.explanation;
    const pairWeight = e.alignments.reduce((s, a) => s + a.weight, 0);
    expect(e.nameScore).toBeCloseTo((e.matchedWeight / (pairWeight + e.omissionPenalty + e.conflictPenalty)) * e.singleTokenFactor, 6);
  });

  test("a subject that is only a legal form does not match companies through their legal form", () => {
    for (const query of ["Public Joint Stock Compamy", "Limted Liability Compani", "Joint Stock Company"]) {
      // Every company here has one of these legal forms; none shares anything else with the subject.
      expect(screenAt(query, 0.5).matches.map((m) => m.matchedName)).toEqual([]);
    }
  });

  test("a second real name word still makes the single-token factor apply", () => {
    // "Promoil" is matched and "Compani" read as the legal form, but "Smirnov" is a name part the
    // listed name lacks: two real name words, one matched.
    const hit = find(screenAt("Promoil Compani Smirnov", 0.5), "OFAC:45528")!;
    expect(hit.explanation.singleTokenFactor).toBe(0.8);
    expect(hit.explanation.unmatchedQuery.map((u) => u.token)).toEqual(["smirnov"]);
  });
});
