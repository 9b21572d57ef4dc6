import { PEP_TIERS, type PepTier, SANCTIONS_LISTS, SOURCE_LISTS, type SourceList } from "../watchlists/entity";
import type { Match } from "./types";

/**
 * Outcome rules (also in docs/matching.md):
 * - Counted matches are the reported matches at or above the threshold; deceased persons' matches
 *   are suppressed and never counted. matchCount counts all of them, even beyond resultCap.
 * - decision: Clear when nothing is counted (and no adverse-media hit). Match when the best match
 *   scores at least max(threshold, STRONG_MATCH) and was not only kept by dobMismatchSurfacing.
 *   Review otherwise: a human must look.
 * - riskScore (0–100) = 100 × max over counted matches of severity × strength, where severity ranks
 *   the kind of listing (sanctions 1.0 > Foreign PEP 0.75 > Domestic PEP 0.65 > International-
 *   organisation PEP 0.6 > family/associate 0.5 > adverse media 0.4) and strength maps the score from
 *   the threshold (0.6) to 1.0 (1.0). Clear is 0.
 * - riskBand: Low < 25 ≤ Medium < 50 ≤ High < 75 ≤ Critical.
 * - classification: sanctions if any counted match is on a sanctions list, else pep, else
 *   adverse_media when the adverse-media check hit, else null.
 */
export type Decision = "Clear" | "Review" | "Match";
export type RiskBand = "Low" | "Medium" | "High" | "Critical";
export type Classification = "sanctions" | "pep" | "adverse_media";

export interface Outcome {
  readonly isMatch: boolean;
  readonly score: number;
  readonly decision: Decision;
  readonly riskScore: number;
  readonly riskBand: RiskBand;
  readonly classification: Classification | null;
  readonly pepTiers: readonly PepTier[];
  readonly sourceLists: readonly SourceList[];
  readonly matchCount: number;
  /** Selected sources whose data is older than maxDataAgeDays (or undated); empty without a limit. */
  readonly staleSources: readonly SourceList[];
}

export const STRONG_MATCH = 0.95;
const TIER_SEVERITY: Record<PepTier, number> = {
  Foreign: 0.75,
  Domestic: 0.65,
  InternationalOrganization: 0.6,
  FamilyOrAssociate: 0.5,
};
const PEP_WITHOUT_TIER_SEVERITY = 0.6;
const ADVERSE_MEDIA_SEVERITY = 0.4;

export function isSanctions(source: SourceList): boolean {
  return SANCTIONS_LISTS.includes(source);
}

export function severity(match: Match): number {
  if (isSanctions(match.source)) return 1;
  if (match.pepTiers.length === 0) return PEP_WITHOUT_TIER_SEVERITY;
  return Math.max(...match.pepTiers.map((t) => TIER_SEVERITY[t]));
}

function strength(score: number, threshold: number): number {
  if (threshold >= 1) return 1;
  return 0.6 + 0.4 * Math.min(1, Math.max(0, (score - threshold) / (1 - threshold)));
}

export function riskBand(riskScore: number): RiskBand {
  if (riskScore >= 75) return "Critical";
  if (riskScore >= 50) return "High";
  if (riskScore >= 25) return "Medium";
  return "Low";
}

export interface OutcomeInput {
  /** Counted matches (not suppressed), in any order, before resultCap. */
  readonly matches: readonly Match[];
  readonly threshold: number;
  readonly adverseMediaHit?: boolean;
  readonly staleSources?: readonly SourceList[];
}

export function computeOutcome(input: OutcomeInput): Outcome {
  const { matches, threshold } = input;
  const adverse = input.adverseMediaHit === true;
  let best: Match | null = null;
  let risk = adverse ? ADVERSE_MEDIA_SEVERITY : 0;
  for (const m of matches) {
    if (!best || m.score > best.score) best = m;
    risk = Math.max(risk, severity(m) * strength(m.score, threshold));
  }
  const strong = best !== null && best.score >= Math.max(threshold, STRONG_MATCH) && !best.explanation.dobMismatchSurfaced;
  const decision: Decision = strong ? "Match" : best || adverse ? "Review" : "Clear";
  const sources = new Set(matches.map((m) => m.source));
  const tiers = new Set(matches.flatMap((m) => m.pepTiers));
  const riskScore = Math.round(100 * risk);
  const classification: Classification | null = matches.some((m) => isSanctions(m.source))
    ? "sanctions"
    : matches.length > 0
      ? "pep"
      : adverse
        ? "adverse_media"
        : null;
  return {
    isMatch: matches.length > 0 || adverse,
    score: best ? best.score : 0,
    decision,
    riskScore,
    riskBand: riskBand(riskScore),
    classification,
    pepTiers: PEP_TIERS.filter((t) => tiers.has(t)),
    sourceLists: SOURCE_LISTS.filter((s) => sources.has(s)),
    matchCount: matches.length,
    staleSources: input.staleSources ?? [],
  };
}
