import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { resolveOptions } from "../../../src/matching/options-resolve";
import { screen } from "../../../src/matching/screen";
import { GOLDEN_CONTEXT } from "../../fixtures/matching/golden-context";
import { fixtureIndex } from "./helpers";

/**
 * Known matches stay stable: each golden line records the top entity, decision, match count,
 * alignment kinds and score of one query. Scores may drift by SCORE_TOLERANCE (weight tuning);
 * anything else is a behaviour change. Regenerate with test/fixtures/matching/update-golden.ts.
 */
const SCORE_TOLERANCE = 0.03;

interface GoldenLine {
  query: { fullName: string; aliases?: string[]; dateOfBirth?: string; nationality?: string };
  options?: Record<string, unknown>;
  top: string | null;
  score: number;
  decision: string;
  matchCount: number;
  kinds: string[];
}

const lines = readFileSync(join(import.meta.dir, "../../fixtures/matching/golden.jsonl"), "utf8")
  .split("\n")
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l) as GoldenLine);

describe("golden matches", () => {
  for (const g of lines) {
    const label = `${g.query.fullName}${g.query.dateOfBirth ? ` (${g.query.dateOfBirth})` : ""}${g.options ? ` ${JSON.stringify(g.options)}` : ""}`;
    test(label, () => {
      const r = screen(fixtureIndex(), g.query, resolveOptions({}, g.options ?? {}), GOLDEN_CONTEXT);
      const top = r.matches[0] ?? r.suppressedMatches[0];
      expect(top ? `${top.source}:${top.externalId}` : null).toBe(g.top);
      expect(r.outcome.decision as string).toBe(g.decision);
      expect(r.outcome.matchCount).toBe(g.matchCount);
      expect(Math.abs((top?.score ?? 0) - g.score)).toBeLessThanOrEqual(SCORE_TOLERANCE);
      const kinds: string[] = top ? [...new Set(top.explanation.alignments.map((a) => a.kind))].sort() : [];
      expect(kinds).toEqual(g.kinds);
    });
  }
});
