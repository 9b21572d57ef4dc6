import { describe, expect, test } from "bun:test";
import { buildIndex } from "../../../src/matching/index";
import { resolveOptions } from "../../../src/matching/options-resolve";
import { planQuery } from "../../../src/matching/query";
import { scoreName } from "../../../src/matching/score";
import { screen } from "../../../src/matching/screen";
import type { EntityType, WatchlistEntity } from "../../../src/watchlists/entity";
import { newEntity } from "../../../src/watchlists/importers/common/build";
import { FIXTURE_ENTITIES } from "../../fixtures/matching/entities";
import { CTX } from "./helpers";

/**
 * Retrieval's gates drop names before scoring, so they must bound what scoring can credit: a name
 * that full scoring puts at some score is returned at every threshold up to that score. (Except a
 * name matched through one of two or more substantive tokens, which the two-token count drops at
 * any threshold: docs/matching.md §8.)
 */
function listed(type: EntityType, id: string, name: string): WatchlistEntity {
  return {
    ...newEntity({ source: "OFAC", externalId: id, entityType: type, verifyUrl: `https://example.test/${id}` }),
    primaryName: name,
    names: [{ name, kind: "primary", quality: "strong", originalScript: false }],
  };
}

const WORDS = ["ALFA", "BETA", "GAMMA", "DELTA", "OMEGA", "SIGMA", "KAPPA", "ZETA", "THETA", "IOTA", "LAMBDA", "TAU"];
const index = buildIndex([
  ...FIXTURE_ENTITIES,
  ...WORDS.flatMap((w, i) => [
    listed("organisation", `F${i}A`, `${w} TRADING JOINT STOCK COMPANY`),
    listed("organisation", `F${i}B`, `${w}SERVICE LIMITED LIABILITY COMPANY`),
    listed("organisation", `F${i}C`, `${w} CAPITAL BANK`),
    listed("person", `F${i}P`, `Ivan ${w}OV`),
  ]),
  listed("organisation", "17013", "VTB BANK PUBLIC JOINT STOCK COMPANY"),
  listed("organisation", "45528", "PROMOIL LIMITED LIABILITY COMPANY"),
  listed("organisation", "A2", "ACME WIDGETS PUBLIC JOINT STOCK COMPANY"),
  listed("person", "P1", "Ivan PETROV"),
  listed("person", "P2", "Oleg PETROV"),
]);
const EXPAND = { trigramFloor: 0.3, phonetic: true, nicknames: true, exactOnly: false };

/** Per entity, the best full score of its names and whether the single-token factor applied to it. */
function fullScores(query: string): Map<string, { score: number; single: boolean }> {
  const plan = planQuery(index, query, EXPAND);
  const out = new Map<string, { score: number; single: boolean }>();
  for (let n = 0; n < index.names.count; n++) {
    const s = scoreName(index, plan, n, false);
    const id = index.cards.get(index.names.entity[n]!).externalId;
    const prev = out.get(id);
    if (!prev || s.score > prev.score) out.set(id, { score: s.score, single: s.singleTokenFactor < 1 });
  }
  return out;
}

describe("retrieval returns a name at every threshold up to its full score", () => {
  const QUERIES = [
    // A legal form the subject misspelt: its words are credited through the names' noise postings.
    "VTB BANK PUBLIC JOINT STOCK COMPAMY",
    "Promoil Limted Liability Compani",
    "Acme Widgets Gizmos Public Joint Stock Compani",
    // An unmatched patronymic costs 40% of its weight, so 60% of it counts as matched in the gates.
    "Ivan Aleksandrovich Petrov",
    "Ivan Konstantinovich Petrov",
    // The subject's own legal form is never looked up but pairs with the listed one.
    "Acme Widgets Gizmos Public Joint Stock Company",
    "Hassan Nasrallah",
    "Sheikh Hasan Nasralah",
  ];
  for (const query of QUERIES) {
    test(query, () => {
      let checked = 0;
      for (const [id, { score, single }] of fullScores(query)) {
        if (single || score < 0.5) continue;
        // Two decimals below the score (the threshold option's grain), never below its minimum.
        const threshold = Math.max(0.5, Math.floor(score * 100) / 100);
        const r = screen(index, { fullName: query }, resolveOptions({}, { threshold, resultCap: 500 }), CTX);
        const found = [...r.matches, ...r.suppressedMatches].some((m) => m.externalId === id);
        expect(`${id} at ${threshold}: ${found}`).toBe(`${id} at ${threshold}: true`);
        checked++;
      }
      expect(checked).toBeGreaterThan(0);
    });
  }
});
