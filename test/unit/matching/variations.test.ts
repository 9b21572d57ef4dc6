import { describe, expect, test } from "bun:test";
import type { RiskProfileOverrides } from "../../../src/matching/options";
import { CTX, find, key, run } from "./helpers";

/**
 * Name variations between a customer record and a list entry, one row each. `target` must be
 * found at or above the default threshold (and be the top match unless `anywhere`).
 */
interface Case {
  readonly name: string;
  readonly query: string;
  readonly target: string;
  readonly minScore?: number;
  readonly kind?: string;
  readonly anywhere?: boolean;
  readonly overrides?: RiskProfileOverrides;
}

const CASES: Case[] = [
  { name: "exact name", query: "Hassan Nasrallah", target: "OFAC:10032", minScore: 0.99, kind: "exact" },
  { name: "reordered tokens", query: "Nasrallah Hassan", target: "OFAC:10032", minScore: 0.99 },
  { name: "OFAC LAST, First order", query: "Sirajuddin Haqqani", target: "OFAC:5001", minScore: 0.99 },
  { name: "dropped middle name", query: "Ayman al-Zawahiri", target: "OFAC:6366", minScore: 0.8 },
  { name: "dropped patronymic", query: "Roman Abramovich", target: "UK:RUS1000", minScore: 0.85 },
  { name: "extra middle name in query", query: "Hassan Abdel Karim Nasrallah", target: "OFAC:10032", minScore: 0.8 },
  { name: "typo in surname", query: "Hassan Nasralah", target: "OFAC:10032", minScore: 0.9, kind: "fuzzy" },
  { name: "transposed letters", query: "Hassan Nasrallha", target: "OFAC:10032", minScore: 0.88 },
  { name: "typo in given name", query: "Bahsar al-Assad", target: "UK:SYR0001", minScore: 0.85 },
  { name: "transliteration variant", query: "Evgeniy Prigojin", target: "EU:EU.200.5", minScore: 0.8, anywhere: true },
  { name: "kh/h and ou/u spellings", query: "Hasan Nasrullah", target: "OFAC:10032", minScore: 0.85 },
  { name: "Cyrillic original script", query: "Путин Владимир", target: "UK:RUS0251", minScore: 0.85, anywhere: true },
  { name: "Arabic script without vowels", query: "حسن نصر الله", target: "OFAC:10032", minScore: 0.85, kind: "transliteration" },
  { name: "Hangul original script", query: "김정은", target: "UN:KPi.033", minScore: 0.95 },
  { name: "nickname Bob~Robert", query: "Bob Smith", target: "OFAC:9001", minScore: 0.8, kind: "nickname" },
  { name: "cross-language given name Yusuf~Joseph", query: "Ramzi Ahmed Joseph", target: "OFAC:9100", kind: "nickname" },
  { name: "Mohamed~Muhammad spelling", query: "Mohamed Ali Hasan", target: "UN:QDi.100", minScore: 0.9 },
  { name: "hyphen/spacing: joined particle", query: "Alqaida", target: "OFAC:6366Q", minScore: 0.95 },
  { name: "hyphen/spacing: split hyphen", query: "Jean Pierre Bemba", target: "EU:EU.300.1", minScore: 0.8 },
  { name: "hyphen/spacing: Nasr Allah", query: "Hassan Nasr Allah", target: "OFAC:10032", minScore: 0.9 },
  { name: "legal form noise", query: "Rosoboronexport JSC", target: "EU:EU.100.1", minScore: 0.9 },
  { name: "legal form spelled out", query: "Bank Melli Iran Public Limited Company", target: "OFAC:3001", minScore: 0.9 },
  { name: "honorific noise", query: "Sheikh Hassan Nasrallah", target: "OFAC:10032", minScore: 0.97 },
  { name: "title and initials", query: "Dr. R. J. Smith", target: "OFAC:9001", minScore: 0.7, kind: "initial", overrides: { threshold: 0.7 } },
  { name: "diacritics and case", query: "BASHAR AL-ASSÁD", target: "UK:SYR0001", minScore: 0.95 },
  { name: "vessel name with number", query: "Adrian Darya-1", target: "OFAC:8001", minScore: 0.95 },
];

describe("name variations find the listed entity", () => {
  for (const c of CASES) {
    test(c.name, () => {
      const result = run(c.query, c.overrides);
      const hit = find(result, c.target);
      expect(hit).toBeDefined();
      if (!c.anywhere) expect(key(result.matches[0] ?? result.suppressedMatches[0])).toBe(c.target);
      expect(hit!.score).toBeGreaterThanOrEqual(c.minScore ?? 0.8);
      if (c.kind) expect(hit!.explanation.alignments.some((a) => a.kind === c.kind)).toBe(true);
    });
  }
});

describe("unlisted names stay clear", () => {
  const CLEAR: [string, string][] = [
    ["shares only a common given name", "Mohammed Smithson"],
    ["shares a rare surname with a different given name", "Maria Zawahiri"],
    ["different person, similar letters", "Hassan Rouhani"],
    ["given name of one listed person, surname of another", "Ayman Nasrallah"],
    ["single common token", "Ali"],
    ["unrelated name", "Patricia Lucas Wheeler"],
  ];
  for (const [name, query] of CLEAR) {
    test(name, () => {
      expect(run(query).outcome.decision).toBe("Clear");
    });
  }
});

test("weak alias scores lower than a strong one", () => {
  const weak = find(run("Abu Muhammad"), "OFAC:6366");
  expect(weak?.explanation.aliasQuality).toBe("weak");
  expect(weak!.explanation.aliasFactor).toBeLessThan(1);
  expect(weak!.score).toBeLessThan(weak!.explanation.nameScore);
});

test("which subject name matched is reported", () => {
  const r = run({ fullName: "John Doe", aliases: ["Hassan Nasrallah"] });
  expect(find(r, "OFAC:10032")?.queryField).toBe("aliases[0]");
  expect(CTX.now.toISOString()).toBe("2026-03-01T00:00:00.000Z");
});
