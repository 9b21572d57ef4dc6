/**
 * The matching engine's public surface. Everything else in src/matching is internal.
 *   const index = buildIndex(entities);                       // per list version, immutable
 *   const options = resolveOptions(profile, overrides);        // tenant profile + request
 *   const result = screen(index, subject, options, context);  // matches, suppressed, outcome
 */
export { buildIndex, IndexBuilder, type MatchIndex, startIndex } from "./index";
export {
  COVERAGE_PRESETS,
  type CoveragePreset,
  DEFAULT_OPTIONS,
  defaultProfile,
  PRESET_LISTS,
  RiskProfileOptions,
  RiskProfileOverrides,
  SPEC_OPTION_NAMES,
} from "./options";
export { parseFormOptions } from "./options-form";
export { type ResolvedOptions, resolveOptions } from "./options-resolve";
export { type Classification, computeOutcome, type Decision, type Outcome, type OutcomeInput, type RiskBand, STRONG_MATCH } from "./outcome";
export { screen, staleSources } from "./screen";
export type { Match, MatchExplanation, ScreenContext, ScreenQuery, ScreenResult, ScreenTimings } from "./types";
