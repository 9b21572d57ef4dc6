import { beforeAll, describe, expect, test } from "bun:test";
import { listedWords } from "../../../src/matching/index";
import { normaliseName, TOKEN_NOISE } from "../../../src/matching/normalise";
import { type ListedWords, otherReadings } from "../../../src/matching/readings";
import { find, fixtureIndex, loadRealIndex, REAL_LISTS, REAL_LOAD_TIMEOUT, type RealLists, run, screenReal } from "./helpers";

/**
 * Three ways a subject writes a listed name that a matching review found screened Clear: another
 * generic company word ("… Trading Corp" for "… TRADING CORPORATION"), two names written as one
 * ("VladimirPutin"), Russian initials for the given name and patronymic ("V.V. Putin"), and a
 * Korean name in another romanisation ("Kim Chong Un", "Lee" for "Ri").
 */

describe("generic company words are legal-form noise", () => {
  test.each(["Corporation", "Corp", "Company", "Co", "Compagnie", "Companhia"])("%s", (word) => {
    const name = normaliseName(`Kwangsong Trading ${word}`);
    expect(name.flags.map((f) => f & TOKEN_NOISE)).toEqual([0, 0, TOKEN_NOISE]);
  });

  test("one written with a hyphen onto a neighbour stays part of that word", () => {
    expect(normaliseName("Co-operative Bank").flags[0]! & TOKEN_NOISE).toBe(0);
    expect(normaliseName("Augusto Mario-Co").flags[2]! & TOKEN_NOISE).toBe(0);
    // Within a legal form it is noise with the rest.
    expect(normaliseName("Acme Trading Co-Ltd").flags.map((f) => f & TOKEN_NOISE)).toEqual([0, 0, TOKEN_NOISE, TOKEN_NOISE]);
  });

  test("a name of only such words keeps them as name words", () => {
    expect(normaliseName("Company").flags[0]! & TOKEN_NOISE).toBe(0);
  });
});

describe("a word that no list has is also read as the two listed words it joins", () => {
  /** Listed names as word lists: a word is listed when some name has it, two together when one name has both. */
  function listedOf(...names: string[]): ListedWords {
    const words = names.map((n) => new Set(n.split(" ")));
    return {
      has: (word) => words.some((w) => w.has(word)),
      together: (a, b) => words.some((w) => w.has(a) && w.has(b)),
    };
  }
  const listed = listedOf("vladimir putin", "noor mohammad saqib", "basic element", "kim jong un", "isa khan", "bella smith");

  test.each([
    ["VladimirPutin", "vladimir putin"],
    ["NOORMOHAMMAD Saqib", "noor mohammad Saqib"],
    ["BasicElement Ltd", "basic element Ltd"],
  ])("%s", (name, read) => {
    expect(otherReadings(name, listed)).toContainEqual({ reading: "splitWords", text: read });
  });

  test.each([
    ["a listed word is read as written", "Vladimir Putin"],
    ["a word shorter than seven letters", "kimkim"],
    ["parts shorter than three letters", "vladimirxy"],
    ["a part that no list has", "vladimirputn"],
    ["parts that no one listed name has together", "Isabella Jones"],
  ])("none where %s", (_label, name) => {
    expect(otherReadings(name, listed).filter((r) => r.reading === "splitWords")).toEqual([]);
  });

  test("the last split of an odd length is tried (8 + 3 letters)", () => {
    expect(otherReadings("MohammadAli Khan", listedOf("mohammad ali khan"))).toContainEqual({ reading: "splitWords", text: "mohammad ali Khan" });
  });

  test("the index answers from its names", () => {
    const fromIndex = listedWords(fixtureIndex());
    expect(fromIndex.has("putina")).toBe(true);
    expect(fromIndex.together("vladimir", "putin")).toBe(true);
    // Both are listed (Lyudmila Putina, Vladimir Putin), never in one name.
    expect(fromIndex.together("lyudmila", "putin")).toBe(false);
    expect(fromIndex.together("vladimir", "unlistedword")).toBe(false);
    // Either way round, and through a legal form's words (noise postings).
    expect(fromIndex.together("putin", "vladimir")).toBe(true);
    expect(fromIndex.together("putin", "lyudmila")).toBe(false);
  });

  test("the most even split is taken", () => {
    // "abc"+"defghi" (3/6) and "abcdef"+"ghi" (6/3) are equally even; the shorter head is tried first.
    expect(otherReadings("abcdefghi", listedOf("ab abc abcdef defghi ghi cdefghi"))).toEqual([{ reading: "splitWords", text: "abc defghi" }]);
  });
});

describe("an initial never costs more than leaving the name out", () => {
  // The fixtures list "Vladimir Vladimirovich PUTIN" (UK RUS0251).
  test("V.V. Putin scores at least what V. Putin does against the name with the patronymic", () => {
    const withPatronymic = find(run("V.V. Putin", { threshold: 0.5 }), "UK:RUS0251");
    const without = find(run("V. Putin", { threshold: 0.5 }), "UK:RUS0251");
    expect(withPatronymic).toBeDefined();
    expect(without).toBeDefined();
    expect(withPatronymic!.score).toBeGreaterThanOrEqual(without!.score);
  });
});

describe("a Korean syllable's romanisations are equivalent", () => {
  test("Kim Chong Un (McCune-Reischauer) and Kim Jeong Eun (Revised) find KIM JONG UN", () => {
    for (const query of ["Kim Chong Un", "Kim Jeong Eun"]) {
      const hit = find(run(query), "UN:KPi.033");
      expect(hit).toBeDefined();
      expect(hit!.explanation.alignments.filter((a) => a.kind === "nickname").length).toBeGreaterThan(0);
    }
  });

  test("not with the option that turns equivalents off", () => {
    expect(find(run("Kim Chong Un", { nicknames: false }), "UN:KPi.033")).toBeUndefined();
  });
});

let real: RealLists;

beforeAll(async () => {
  if (REAL_LISTS) real = await loadRealIndex();
}, REAL_LOAD_TIMEOUT);

describe.skipIf(!REAL_LISTS)("not found on the real lists, at the default threshold", () => {
  test.each([
    ["an -ovich surname is not a patronymic in a two-word name", "Roman A.", "UK:14212"],
    ["Yi is not Lee (a pinyin syllable too)", "Pao Yu Lee", "OFAC:11289"],
  ])("%s: %s", (_label, query, target) => {
    expect(find(screenReal(real, query), target)).toBeUndefined();
  });
});

describe.skipIf(!REAL_LISTS)("on the real lists, at the default threshold", () => {
  const FOUND: [label: string, query: string, target: string, reading: string | undefined, atLeast: number][] = [
    ["Corp for CORPORATION", "Korea Kwangsong Trading Corp", "OFAC:9523", undefined, 0.95],
    ["Co for CORPORATION", "Korea Kwangsong Trading Co", "OFAC:9523", undefined, 0.95],
    ["Company for CORPORATION", "Korea Kwangsong Trading Company", "UN:KPe.026", undefined, 0.95],
    ["two names written as one", "VladimirPutin", "OFAC:35096", "splitWords", 0.95],
    ["two upper-case names written as one", "NOORMOHAMMAD Saqib", "UK:7431", "splitWords", 0.95],
    ["a company's two words written as one", "BasicElement", "OFAC:24224", "splitWords", 0.95],
    ["initials of the given name and patronymic", "V.V. Putin", "OFAC:35096", undefined, 0.82],
    ["initials after the surname", "Lavrov S.V.", "UK:14197", undefined, 0.82],
    ["McCune-Reischauer Chong for Jong", "Kim Chong Un", "OFAC:20157", undefined, 0.95],
    ["Lee for Ri", "Lee Pyong Chol", "OFAC:23215", undefined, 0.95],
    ["Choi for Choe", "Choi Ryong Hae", "OFAC:23213", undefined, 0.95],
    ["a name joined to its legal form", "Korea Kwangsong TradingCorporation", "OFAC:9523", "splitWords", 0.95],
    ["German tsch for ch (0.847 before)", "Igor Setschin", "OFAC:16692", undefined, 0.95],
  ];
  for (const [label, query, target, reading, atLeast] of FOUND) {
    test(`${label}: ${JSON.stringify(query)} → ${target}`, () => {
      const hit = find(screenReal(real, query), target);
      expect(hit).toBeDefined();
      expect(hit!.score).toBeGreaterThanOrEqual(atLeast);
      expect(hit!.queryReading).toBe(reading as never);
    });
  }
});
