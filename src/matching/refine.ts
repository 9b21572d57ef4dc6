import { countryCode, packCountry } from "./countries";
import { compareDob, type DateRange, type DobRelation } from "./dates";
import type { MatchIndex } from "./index";
import type { ResolvedOptions } from "./options-resolve";
import type { NationalityRelation } from "./types";
import {
  DOB_EXACT_BONUS,
  DOB_YEAR_BONUS,
  NATIONALITY_MATCH_BONUS,
  NATIONALITY_MISMATCH_PENALTY,
  WEAK_ALIAS_FACTOR,
} from "./weights";

/** The subject's secondary facts, parsed once per screening. */
export interface SubjectFacts {
  readonly dob: DateRange | null;
  /** Packed ISO2 code, or -1. */
  readonly nationality: number;
}

export function subjectFacts(dob: DateRange | null, nationality: string | null | undefined): SubjectFacts {
  const code = countryCode(nationality);
  return { dob, nationality: code ? packCountry(code) : -1 };
}

export interface Refined {
  readonly score: number;
  readonly aliasFactor: number;
  readonly dob: { readonly relation: DobRelation; readonly effect: number };
  readonly nationality: { readonly relation: NationalityRelation; readonly effect: number };
  readonly dobMismatchSurfaced: boolean;
}

function listedDobs(index: MatchIndex, entity: number): DateRange[] {
  const t = index.entityTable;
  const out: DateRange[] = [];
  for (let p = t.dobStart[entity]!; p < t.dobStart[entity + 1]!; p += 4) {
    out.push({ yearFrom: t.dob[p]!, yearTo: t.dob[p + 1]!, month: t.dob[p + 2]!, day: t.dob[p + 3]! });
  }
  return out;
}

function nationalityRelation(index: MatchIndex, entity: number, code: number): NationalityRelation {
  const t = index.entityTable;
  const start = t.natStart[entity]!;
  const end = t.natStart[entity + 1]!;
  if (code < 0 || start === end) return "unknown";
  for (let p = start; p < end; p++) if (t.nat[p] === code) return "match";
  return "mismatch";
}

/**
 * From name score to match score: alias quality, then date of birth and nationality. A DOB
 * mismatch subtracts dobMismatchPenalty; with dobMismatchSurfacing a name score at or above
 * dobMismatchHighScoreThreshold is kept at the threshold so a reviewer still sees it.
 */
export function refine(
  index: MatchIndex,
  entity: number,
  nameScore: number,
  weak: boolean,
  facts: SubjectFacts,
  options: ResolvedOptions,
): Refined {
  const aliasFactor = weak ? WEAK_ALIAS_FACTOR : 1;
  const base = nameScore * aliasFactor;
  const dobRelation = compareDob(facts.dob, listedDobs(index, entity), options.dobYearTolerance);
  const dobEffect =
    dobRelation === "exact"
      ? DOB_EXACT_BONUS
      : dobRelation === "year"
        ? DOB_YEAR_BONUS
        : dobRelation === "mismatch"
          ? -options.dobMismatchPenalty
          : 0;
  const natRelation = nationalityRelation(index, entity, facts.nationality);
  const natEffect = natRelation === "match" ? NATIONALITY_MATCH_BONUS : natRelation === "mismatch" ? -NATIONALITY_MISMATCH_PENALTY : 0;
  let score = Math.min(1, Math.max(0, base + dobEffect + natEffect));
  let surfaced = false;
  if (
    dobRelation === "mismatch" &&
    options.dobMismatchSurfacing &&
    base >= options.dobMismatchHighScoreThreshold &&
    score < options.threshold
  ) {
    score = options.threshold;
    surfaced = true;
  }
  return {
    score,
    aliasFactor,
    dob: { relation: dobRelation, effect: dobEffect },
    nationality: { relation: natRelation, effect: natEffect },
    dobMismatchSurfaced: surfaced,
  };
}
