import { describe, expect, test } from "bun:test";
import {
  exactKey,
  joinedForms,
  normaliseName,
  TOKEN_ABJAD,
  TOKEN_JOIN_NEXT,
  TOKEN_NOISE,
  TOKEN_PARTICLE,
} from "../../../src/matching/normalise";

const tokens = (s: string) => normaliseName(s).tokens;

describe("normaliseName folds script, case and punctuation", () => {
  const CASES: [string, string, string[]][] = [
    ["case and diacritics", "José MÜLLER-Łódź", ["jose", "muller", "lodz"]],
    ["NFKC fullwidth letters", "ＡＢＣ Ｄｅｆ", ["abc", "def"]],
    ["apostrophes are dropped, not split", "O'Brien D’Souza", ["obrien", "dsouza"]],
    ["hyphen splits", "Al-Qaida", ["al", "qaida"]],
    ["Cyrillic is transliterated", "Владимир Путин", ["vladimir", "putin"]],
    ["Greek is transliterated", "Νικόλαος", ["nikolaos"]],
    ["Arabic keeps its consonants", "محمد علي", ["mhmd", "aly"]],
    ["a word's leading alif, hamza or ayin is kept as a", "عبدالله أحمد احمد إبراهيم", ["abdllh", "ahmd", "ahmd", "abrhym"]],
    ["Hebrew alef and ayin are kept as a", "אברהם עמר", ["avrhm", "amr"]],
    ["separate Arabic article becomes al", "ال ودي", ["al", "wdy"]],
    ["Chinese syllables split", "习近平", ["xi", "jin", "ping"]],
    ["Hangul follows family spellings", "김정은", ["kim", "jong", "un"]],
    // 정 is the surname Jung only where it starts a name: a two-syllable word beside others is a given name.
    ["a Hangul given name takes no surname spelling", "김 정은", ["kim", "jong", "un"]],
    ["a Hangul surname written alone", "정은 이", ["jong", "un", "lee"]],
    ["a Hangul name of two syllables written alone starts with the surname", "정민", ["jung", "min"]],
    ["commas and dots are separators", "ZAWAHIRI, Ayman al-", ["zawahiri", "ayman", "al"]],
  ];
  for (const [name, input, expected] of CASES) test(name, () => expect(tokens(input)).toEqual(expected));
});

describe("token flags", () => {
  test("honorifics are noise", () => {
    const n = normaliseName("Sheikh Dr Hassan Nasrallah");
    expect(n.flags.map((f) => (f & TOKEN_NOISE) !== 0)).toEqual([true, true, false, false]);
  });
  test("multi-word legal forms are noise", () => {
    const n = normaliseName("Acme Trading Limited Liability Company");
    expect(n.flags.map((f) => (f & TOKEN_NOISE) !== 0)).toEqual([false, false, true, true, true]);
  });
  test("Russian legal form OOO is noise", () => {
    expect(normaliseName("OOO Romashka").flags[0]! & TOKEN_NOISE).toBe(TOKEN_NOISE);
  });
  test("a name made only of noise words keeps its weight", () => {
    expect(normaliseName("Sheikh").flags[0]! & TOKEN_NOISE).toBe(0);
  });
  test("particles bind to the next token", () => {
    const n = normaliseName("Usama bin Laden");
    expect(n.flags[1]! & TOKEN_PARTICLE).toBe(TOKEN_PARTICLE);
    expect(joinedForms(n).map((j) => j.text)).toContain("binladen");
  });
  test("hyphenated parts are joined for retrieval", () => {
    const n = normaliseName("Jean-Pierre");
    expect(n.flags[0]! & TOKEN_JOIN_NEXT).toBe(TOKEN_JOIN_NEXT);
    expect(joinedForms(n).map((j) => j.text)).toEqual(["jeanpierre"]);
  });
  test("Arabic words joined lose the second one's carrier, as in one word", () => {
    expect(joinedForms(normaliseName("عبد الله")).map((j) => j.text)).toEqual(["abdllh"]);
    expect(normaliseName("عبدالله").tokens).toEqual(["abdllh"]);
    // A Latin "a" is a letter: joined spellings of Latin names keep it.
    expect(joinedForms(normaliseName("Abd-Allah")).map((j) => j.text)).toEqual(["abdallah"]);
  });
  test("Arabic-script tokens are flagged, and are never titles", () => {
    const n = normaliseName("در");
    expect(n.tokens).toEqual(["dr"]);
    expect(n.flags[0]! & TOKEN_ABJAD).toBe(TOKEN_ABJAD);
    expect(n.flags[0]! & TOKEN_NOISE).toBe(0);
  });
});

describe("exactKey: normalised exact equality", () => {
  const SAME: [string, string, string][] = [
    ["hyphen/spacing", "Al-Qaida", "Alqaida"],
    ["spaces", "Al Qaida", "AL-QAIDA"],
    ["token order", "Nasrallah Hassan", "Hassan Nasrallah"],
    ["titles", "Mr Hassan Nasrallah", "Hassan Nasrallah"],
    ["legal form", "Acme Trading LLC", "ACME TRADING"],
    ["case and accents", "José Núñez", "JOSE NUNEZ"],
  ];
  for (const [name, a, b] of SAME) test(name, () => expect(exactKey(normaliseName(a))).toBe(exactKey(normaliseName(b))));
  test("different names differ", () => expect(exactKey(normaliseName("Hassan Nasrallah"))).not.toBe(exactKey(normaliseName("Hasan Nasrallah"))));
});
