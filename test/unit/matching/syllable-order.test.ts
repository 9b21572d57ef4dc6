import { beforeAll, describe, expect, test } from "bun:test";
import { buildIndex } from "../../../src/matching/index";
import { resolveOptions } from "../../../src/matching/options-resolve";
import { screen } from "../../../src/matching/screen";
import { FIXTURE_ENTITIES } from "../../fixtures/matching/entities";
import { CTX, find, listedPerson, loadRealIndex, REAL_LISTS, REAL_LOAD_TIMEOUT, type RealLists, screenReal } from "./helpers";

/**
 * Alignment is order-free, as word order is free ("Kim Kwang Su" is "Kwang Su Kim"), but the
 * syllables of one written word keep their order and stay together: 광수 (Kwang-su) is not
 * Su-gwang, and 承翰 (Cheng-han) is not the Chang of "HAN Chang-su" and the surname Han. Among
 * yente's global negatives, "광수 김" scored 1 against KIM Su-gwang and "영수 이" 0.97 against RI Su
 * Yong. A word that holds the surname too (김정은, 习近平, or a name written as one word) lets the
 * surname move. All on the real lists, at the default threshold.
 */

let real: RealLists;
beforeAll(async () => {
  if (REAL_LISTS) real = await loadRealIndex();
}, REAL_LOAD_TIMEOUT);

function score(query: string, target: string): number {
  return find(screenReal(real, query, 0.5), target)?.score ?? 0;
}

describe.skipIf(!REAL_LISTS)("a given name written as one word is not its syllables in another order", () => {
  test.each([
    ["광수 김", "OFAC:22286", 0.82], // KIM Su-gwang: 1 before
    ["Kim Kwang-su", "OFAC:22286", 0.82], // the same, hyphenated in Latin
    ["Kim Kwang Su", "OFAC:22286", 0.85], // KIM Su-Kwang, hyphenated on the list
    ["영수 이", "OFAC:21735", 0.82], // RI Su Yong: 0.97 before
    ["承翰 蘇", "OFAC:21749", 0.82], // HAN Chang-su: 0.95 before, through Chang-Su HAN
  ])("%s against %s scores under %d", (query, target, below) => {
    expect(score(query, target)).toBeLessThan(below);
  });
});

describe.skipIf(!REAL_LISTS)("names in their own order still match", () => {
  test.each([
    ["Kim Su Kwang", "OFAC:22286"],
    ["Su-Kwang Kim", "OFAC:22286"],
    ["김정은", "OFAC:20157"], // KIM Jong Un: the surname starts the word
    ["Jong Un Kim", "OFAC:20157"],
    ["Un Jong Kim", "OFAC:20157"], // words written apart may move
    ["정은 김", "OFAC:20157"],
    ["김 정은", "OFAC:20157"], // 0.91 before: 정 was read as the surname Jung
    ["Song Jin Ri", "UK:16820"], // RI SONG JIN, listed as 리송진 too
  ])("%s matches %s in full", (query, target) => {
    expect(score(query, target)).toBe(1);
  });
});

describe.skipIf(!REAL_LISTS)("the explanation says which pair was read out of order", () => {
  test("광수 김 against KIM Su-gwang: one pair marked, credited at a quarter, the evidence their sum", () => {
    const hit = find(screenReal(real, "광수 김", 0.5), "OFAC:22286");
    const explanation = hit!.explanation;
    const marked = explanation.alignments.filter((a) => a.outOfOrder);
    expect(marked).toHaveLength(1);
    expect(marked[0]!.similarity).toBe(0.25);
    const evidence = explanation.alignments.reduce((sum, a) => sum + a.similarity * a.weight, 0);
    expect(explanation.matchedWeight).toBeCloseTo(evidence, 9);
  });
});

const person = (id: string, ...names: string[]) => listedPerson("OFAC", id, names);

const fixture = buildIndex([
  ...FIXTURE_ENTITIES,
  person("S1", "Daniel ORTEGA Y SAAVEDRA"),
  person("S2", "Gabriel GARCIA-MARQUEZ"),
  person("S3", "Gonzalo SANCHEZ DE LOZADA"),
  person("S4", "Li-Hua LI"),
  person("S5", "San LEE"),
  person("S6", "Chol KIM"),
  person("S7", "Wei WANG"),
]);

function fixtureScore(query: string, target: string): number {
  return find(screen(fixture, { fullName: query }, resolveOptions({}, { threshold: 0.5 }), CTX), target)?.score ?? 0;
}

describe("a word's parts stay together across particles, and ties keep the order", () => {
  test.each([
    ["Daniel Ortega-Saavedra", "OFAC:S1"], // Y between the parts on the list
    ["Gabriel Garcia y Marquez", "OFAC:S2"], // and on the subject's side
    ["Gonzalo Sanchez-Lozada", "OFAC:S3"],
    ["Li Li-Hua", "OFAC:S4"], // the surname is also a syllable of the given name
    ["李丽华", "OFAC:S4"],
    ["Mr 王伟", "OFAC:S7"], // a title does not make 王伟 part of a longer name
  ])("%s matches %s above 0.95", (query, target) => {
    expect(fixtureScore(query, target)).toBeGreaterThan(0.95);
  });

  test("Dr 이산: a title beside a two-syllable Hangul name leaves 이 the surname Lee", () => {
    expect(fixtureScore("Dr 이산", "OFAC:S5")).toBe(1);
  });

  test("김철 씨: so does a Korean honorific, which is noise as a Latin title is", () => {
    expect(fixtureScore("김철 씨", "OFAC:S6")).toBe(1);
  });
});
