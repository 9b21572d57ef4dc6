import { buildIndex, type MatchIndex } from "../../../src/matching/index";
import type { RiskProfileOverrides } from "../../../src/matching/options";
import { resolveOptions } from "../../../src/matching/options-resolve";
import { screen } from "../../../src/matching/screen";
import type { Match, ScreenContext, ScreenQuery, ScreenResult } from "../../../src/matching/types";
import { FIXTURE_ENTITIES } from "../../fixtures/matching/entities";

let cached: MatchIndex | null = null;

/** The fixture index, built once per test file (building is pure, so sharing is safe). */
export function fixtureIndex(): MatchIndex {
  cached ??= buildIndex(FIXTURE_ENTITIES);
  return cached;
}

export const CTX: ScreenContext = {
  sourcePublishedAt: { OFAC: "2026-02-20", EU: "2026-02-20", UK: "2026-02-20", UN: "2026-02-27", WIKIDATA: "2026-02-01" },
  now: new Date("2026-03-01T00:00:00Z"),
};

export function run(query: ScreenQuery | string, overrides: RiskProfileOverrides = {}, ctx: ScreenContext = CTX): ScreenResult {
  const q = typeof query === "string" ? { fullName: query } : query;
  return screen(fixtureIndex(), q, resolveOptions({}, overrides), ctx);
}

export function key(m: Match | undefined): string | null {
  return m ? `${m.source}:${m.externalId}` : null;
}

/** The match for one listed entity among matches and suppressed matches. */
export function find(result: ScreenResult, entityKey: string): Match | undefined {
  return [...result.matches, ...result.suppressedMatches].find((m) => key(m) === entityKey);
}
