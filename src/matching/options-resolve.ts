import type { PepTier, SourceList } from "../watchlists/entity";
import { type CoveragePreset, PRESET_LISTS, type RiskProfileOptions, type RiskProfileOverrides, RiskProfileOptions as Schema } from "./options";

/** Options as the engine uses them: overrides applied, preset expanded into lists and adverse media. */
export interface ResolvedOptions {
  readonly threshold: number;
  readonly exactMatch: boolean;
  readonly adverseMedia: boolean;
  readonly monitor: boolean;
  readonly lists: readonly SourceList[];
  readonly pepTiers: readonly PepTier[];
  readonly coveragePreset: CoveragePreset;
  readonly maxDataAgeDays: number | null;
  readonly phonetic: boolean;
  readonly nicknames: boolean;
  readonly trigramFloor: number;
  readonly candidateLimit: number;
  readonly resultCap: number;
  readonly dobYearTolerance: number;
  readonly dobMismatchPenalty: number;
  readonly dobMismatchSurfacing: boolean;
  readonly dobMismatchHighScoreThreshold: number;
  readonly homeCountry: string | null;
}

/**
 * Applies per-request overrides to a profile. A null or absent override keeps the profile value,
 * so a request cannot clear a profile setting, only replace it. Both inputs are parsed, so a
 * caller may pass raw JSON; an invalid one throws the zod error.
 */
export function resolveOptions(profile: Partial<RiskProfileOptions> = {}, overrides: RiskProfileOverrides = {}): ResolvedOptions {
  const base = Schema.parse(profile);
  const merged: RiskProfileOptions = { ...base };
  for (const [key, value] of Object.entries(overrides)) {
    if (value !== null && value !== undefined) (merged as Record<string, unknown>)[key] = value;
  }
  // The loosening policy is the profile's rule about requests, not an option a screen runs with.
  const { looseningAllowed: _policy, ...checked } = Schema.parse(merged);
  return {
    ...checked,
    lists: checked.lists ?? PRESET_LISTS[checked.coveragePreset],
    adverseMedia: checked.adverseMedia ?? checked.coveragePreset === "full",
  };
}
