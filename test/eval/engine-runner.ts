import { buildIndex, type MatchIndex } from "../../src/matching/index";
import type { RiskProfileOverrides } from "../../src/matching/options";
import { type ResolvedOptions, resolveOptions } from "../../src/matching/options-resolve";
import { screen } from "../../src/matching/screen";
import type { ScreenContext, ScreenQuery } from "../../src/matching/types";
import type { SourceList, WatchlistEntity } from "../../src/watchlists/entity";

/** Runs the engine the two ways the eval needs: at the default profile, and at a low floor for curves. */
export const CURVE_FLOOR = 0.5;

export class EngineRunner {
  readonly index: MatchIndex;
  readonly defaults: ResolvedOptions;
  readonly curve: ResolvedOptions;
  private readonly ctx: ScreenContext;

  constructor(entities: readonly WatchlistEntity[], publishedAt: Partial<Record<SourceList, string | null>>, lists?: SourceList[]) {
    this.index = buildIndex(entities);
    const listOverride = lists ? { lists } : {};
    this.defaults = resolveOptions({}, { resultCap: 500, ...listOverride });
    this.curve = resolveOptions({}, { threshold: CURVE_FLOOR, resultCap: 500, ...listOverride });
    this.ctx = { sourcePublishedAt: publishedAt, now: new Date("2026-03-01T00:00:00Z") };
  }

  run(query: ScreenQuery, curve: boolean) {
    return screen(this.index, query, curve ? this.curve : this.defaults, this.ctx);
  }

  /** Screens with the default profile plus overrides (ablations). */
  runWith(query: ScreenQuery, overrides: RiskProfileOverrides) {
    return screen(this.index, query, resolveOptions({}, { resultCap: 500, ...overrides }), this.ctx);
  }

  /** Score of one entity (0 if not returned), counting deceased-suppressed matches as found. */
  targetScore(query: ScreenQuery, key: string, curve: boolean): number {
    const r = this.run(query, curve);
    const hit = [...r.matches, ...r.suppressedMatches].find((m) => `${m.source}:${m.externalId}` === key);
    return hit ? hit.score : 0;
  }

  /** Highest counted match score (0 when clear). */
  maxScore(query: ScreenQuery, curve: boolean): number {
    return this.run(query, curve).outcome.score;
  }
}
