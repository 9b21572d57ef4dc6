import { beforeAll, describe, expect, test } from "bun:test";
import type { ScreenResult } from "../../../src/matching/types";
import { find, loadRealIndex, REAL_LISTS, REAL_LOAD_TIMEOUT, type RealLists, screenReal } from "./helpers";

/**
 * A matching review's evasions on the real OFAC, UN and OFSI lists: one invisible, East Asian or
 * lookalike character, a glued or dotted spelling, or a leading "The" turned a listed name Clear.
 * Each must now find its entity at the default threshold. (unicode-evasion.test.ts has the rules.)
 */
let real: RealLists;

beforeAll(async () => {
  if (REAL_LISTS) real = await loadRealIndex();
}, REAL_LOAD_TIMEOUT);

const screenAt = (query: string): ScreenResult => screenReal(real, query);

describe.skipIf(!REAL_LISTS)("evasions of listed names, on the real lists", () => {
  const FOUND: [label: string, query: string, target: string, reading: string | undefined][] = [
    ["a Hangul filler after an upper-case name", "VLADIMIR PUTIN\u3164", "OFAC:35096", undefined],
    ["a Hangul filler after KIM JONG UN", "KIM JONG UN\u3164", "OFAC:20157", undefined],
    ["a Hangul filler after a bank", "SBERBANK OF RUSSIA\u3164", "OFAC:17018", undefined],
    ["a katakana prolonged-sound mark", "HAMAS\u30FC", "OFAC:4695", undefined],
    ["the katakana middle dot between the names", "VLADIMIR\u30FBPUTIN", "OFAC:35096", undefined],
    ["a Cyrillic Р in a Latin word", "Vladimir \u0420utin", "OFAC:35096", undefined],
    ["a Cyrillic Н in a Latin word", "\u041Dasan Nasrallah", "OFAC:2686", undefined],
    ["a Greek Eta in a Latin word", "\u0397asan Nasrallah", "OFAC:2686", undefined],
    ["a Cyrillic ѕ in a Latin word", "Qasem \u0455oleimani", "OFAC:10481", undefined],
    ["a Cherokee letter", "Vladimir \u13E2utin", "OFAC:35096", undefined],
    ["an Armenian letter", "Kim Jong \u054Dn", "OFAC:20157", undefined],
    ["mostly Cyrillic lookalikes", "\u0405\u0412\u0415R\u0412\u0410N\u041A OF RUSSIA", "OFAC:17018", "latinShapes"],
    ["byte-order marks inside a word", "Vladimir Pu\uFEFFti\uFEFFn", "OFAC:35096", undefined],
    ["a zero-width space instead of the space", "Vladimir\u200BPutin", "OFAC:35096", "invisibleAsSpace"],
    ["a zero-width space between upper-case names", "KIM\u200BJONG\u200BUN", "OFAC:20157", "invisibleAsSpace"],
    ["a dotted acronym", "I.R.G.C.", "OFAC:10391", "joinedInitials"],
    ["a leading The", "The Al-Qaida", "OFAC:6366", "withoutThe"],
  ];
  for (const [label, query, target, reading] of FOUND) {
    test(`${label}: ${JSON.stringify(query)} → ${target}`, () => {
      const r = screenAt(query);
      const hit = find(r, target);
      expect(hit).toBeDefined();
      expect(hit!.score).toBeGreaterThanOrEqual(0.82);
      expect(hit!.queryName).toBe(query);
      expect(hit!.queryReading).toBe(reading as never);
    });
  }

  test("an East Asian letter on an upper-case word cuts only itself off", () => {
    const hit = find(screenAt("PUTIN\u674E VLADIMIR"), "OFAC:35096");
    expect(hit).toBeDefined();
    expect(hit!.explanation.alignments.map((a) => a.query)).toEqual(expect.arrayContaining(["putin", "vladimir"]));
  });

  test("names written in their own script are read by sound as before", () => {
    expect(find(screenAt("Путин Владимир"), "OFAC:35096")).toBeDefined();
    expect(find(screenAt("김정은"), "OFAC:20157")).toBeDefined();
  });
});
