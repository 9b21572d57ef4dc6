import { describe, expect, test } from "bun:test";
import { latinLookalikes } from "../../../src/matching/lookalikes";
import { normaliseName } from "../../../src/matching/normalise";
import { otherReadings, type QueryReading } from "../../../src/matching/readings";

const tokens = (name: string) => normaliseName(name).tokens.join(" ");

describe("folding keeps a name whole around East Asian and invisible characters", () => {
  test.each([
    ["a Hangul filler (a blank) after an upper-case name", "KIM JONG UN\u3164", "kim jong un"],
    ["a Hangul filler between names", "VLADIMIR\u3164PUTIN", "vladimir putin"],
    ["the katakana middle dot between names", "VLADIMIR\u30FBPUTIN", "vladimir putin"],
    ["a prolonged-sound mark on a Latin word", "HAMAS\u30FC", "hamas"],
    ["an ideograph on an upper-case word", "PUTIN\u674E", "putin li"],
    ["Latin capitals beside kana", "CST\u6709\u9650\u4F1A\u793E", "cst you xian hui she"],
    ["byte-order marks inside a word", "Pu\uFEFFti\uFEFFn", "putin"],
  ])("%s", (_label, name, expected) => {
    expect(tokens(name)).toBe(expected);
  });

  test("East Asian names fold as before", () => {
    expect(tokens("\u7FD2\u8FD1\u5E73")).toBe("xi jin ping");
    expect(tokens("\uAE40\uC815\uC740")).toBe("kim jong un");
    // The prolonged-sound mark inside kana stays part of the word's run.
    expect(tokens("\u30A6\u30E9\u30B8\u30FC\u30DF\u30EB")).toBe("urajimiru");
  });

  test("a byte-order mark does not make a Latin word Arabic", () => {
    expect(normaliseName("Ol\uFEFFeg").flags[0]! & 4).toBe(0);
  });
});

describe("lookalike letters in a word that mixes scripts", () => {
  test.each([
    ["one Cyrillic letter in a Latin word reads as Latin", "\u0420utin", "putin"],
    ["one Greek letter in a Latin word reads as Latin", "\u0397asan", "hasan"],
    ["Cherokee reads by shape", "\u13E2utin", "putin"],
    ["Armenian in a Latin word reads by shape", "\u054Dn", "un"],
    ["a stray Latin letter in a Cyrillic word reads as Cyrillic (a list's typo)", "\u0412\u0430\u0441\u043E\u0432a", "vasova"],
    ["a Cyrillic word reads by sound", "\u041F\u0443\u0442\u0438\u043D", "putin"],
    ["a Greek word reads by sound", "\u0395\u03BB\u03BB\u03B7\u03BD\u03B9\u03BA\u03AC", "ellinika"],
  ])("%s", (_label, name, expected) => {
    expect(tokens(name)).toBe(expected);
  });

  test("a word in one script is left alone", () => {
    expect(latinLookalikes("\u0412\u0430\u0441\u043E\u0432\u0430")).toBe("\u0412\u0430\u0441\u043E\u0432\u0430");
    expect(latinLookalikes("Putin")).toBe("Putin");
  });
});

describe("other readings of a subject's name", () => {
  test("none for a plain name", () => {
    expect(otherReadings("Vladimir Putin")).toEqual([]);
    expect(otherReadings("V.V. Putin")).toEqual([]);
    expect(otherReadings("Theodore Roosevelt")).toEqual([]);
    expect(otherReadings("The")).toEqual([]);
  });

  test.each([
    ["Vladimir\u200BPutin", "invisibleAsSpace", "Vladimir Putin"],
    ["I.R.G.C.", "joinedInitials", "IRGC"],
    ["Bank of H.A.M.A.S", "joinedInitials", "Bank of HAMAS"],
    ["The Al-Qaida", "withoutThe", "Al-Qaida"],
    ["\u0405\u0412\u0415R\u0412\u0410N\u041A", "latinShapes", "SBERBANK"],
  ])("%s is also read as %s", (name, reading, text) => {
    expect(otherReadings(name)).toContainEqual({ reading: reading as QueryReading, text });
  });

  test("a joiner inside an Indic word is spelling, not a space", () => {
    // As written, the joiner is dropped; read as a space it would cut Kanta into "kan" and "ta".
    expect(otherReadings("\u0915\u093E\u0928\u094D\u200D\u0924\u093E \u092A\u0928\u094D\u0924")).toEqual([]);
    expect(otherReadings("\u0938\u200C\u0902\u091C\u092F")).toEqual([]);
  });

  test("a mixed word whose Latin letters are the most needs no second reading", () => {
    expect(otherReadings("Vladimir \u0420utin")).toEqual([]);
  });
});
