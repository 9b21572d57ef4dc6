import { existsSync } from "node:fs";
import { loadRealLists, WATCHLIST_ROOT } from "../../../bench/lib/real-lists";
import { buildIndex, type MatchIndex } from "../../../src/matching/index";
import type { RiskProfileOverrides } from "../../../src/matching/options";
import { resolveOptions } from "../../../src/matching/options-resolve";
import { screen } from "../../../src/matching/screen";
import type { Match, ScreenContext, ScreenQuery, ScreenResult } from "../../../src/matching/types";
import type { SourceList, WatchlistEntity } from "../../../src/watchlists/entity";
import { newEntity } from "../../../src/watchlists/importers/common/build";
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

/** The real lists are beside the project (CI clones with ../shared); tests on them skip without. */
export const REAL_LISTS = existsSync(WATCHLIST_ROOT);
/** Parsing and indexing the real lists takes a few seconds, more on a busy machine. */
export const REAL_LOAD_TIMEOUT = 120_000;

export interface RealLists {
  readonly entities: WatchlistEntity[];
  readonly index: MatchIndex;
  readonly ctx: ScreenContext;
}

/** The real OFAC, UN, OFSI and Wikidata files, parsed in place and indexed as the eval does. */
export async function loadRealIndex(): Promise<RealLists> {
  const loaded = await loadRealLists();
  return {
    entities: loaded.entities,
    index: buildIndex(loaded.entities),
    ctx: { sourcePublishedAt: loaded.publishedAt, now: new Date("2026-03-01T00:00:00Z") },
  };
}

/** One name screened against the real lists at the default profile (or `threshold`), every match kept. */
export function screenReal(real: RealLists, query: string, threshold = 0.82): ScreenResult {
  return screen(real.index, { fullName: query }, resolveOptions({}, { threshold, resultCap: 500 }), real.ctx);
}

/** A listed person for a fixture index: the first name primary, the others strong aliases. */
export function listedPerson(source: SourceList, id: string, names: readonly string[], originalScript = false): WatchlistEntity {
  return {
    ...newEntity({ source, externalId: id, entityType: "person", verifyUrl: `https://example.test/${source}/${id}` }),
    primaryName: names[0]!,
    names: names.map((name, i) => ({ name, kind: i === 0 ? "primary" : "aka", quality: "strong", originalScript })),
  };
}
