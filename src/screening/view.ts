import type { ScreeningRecord } from "./types";

/**
 * The screening as HTTP returns it. Every JSON body's `correlationId` is the current request's (an
 * app-wide convention applied when the response is written), so the id of the request that created
 * the screening travels as `screeningCorrelationId`.
 */
export function screeningView(record: ScreeningRecord) {
  const { correlationId, ...rest } = record;
  return { ...rest, screeningCorrelationId: correlationId };
}

/**
 * A screening's outcome without its subject or matches: what the summaries show (bulk rows,
 * `aml screen` lines, the screening.completed event).
 */
export function outcomeSummary(r: ScreeningRecord) {
  return {
    isMatch: r.isMatch,
    score: r.score,
    decision: r.decision,
    riskScore: r.riskScore,
    riskBand: r.riskBand,
    classification: r.classification,
    pepTiers: r.pepTiers,
    sourceLists: r.sourceLists,
    matchCount: r.matchCount,
    adverseMediaStatus: r.adverseMediaStatus,
  };
}
