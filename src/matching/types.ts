import type { QueryReading } from "./readings";
import type { AliasQuality, EntityType, NameKind, PepTier, SourceList } from "../watchlists/entity";
import type { DobRelation } from "./dates";
import type { Outcome } from "./outcome";
import type { NameScore } from "./score";

/** The subject to screen. */
export interface ScreenQuery {
  readonly fullName: string;
  readonly aliases?: readonly string[];
  /** "YYYY", "YYYY-MM", "YYYY-MM-DD" or day-first "DD/MM/YYYY". */
  readonly dateOfBirth?: string | null;
  /** ISO 3166-1 alpha-2 or an English country name. */
  readonly nationality?: string | null;
}

export interface ScreenContext {
  /** Overrides the profile's homeCountry for PEP tiers. */
  readonly homeCountry?: string | null;
  /** Publication date of each loaded source's current version (for maxDataAgeDays). */
  readonly sourcePublishedAt: Partial<Record<SourceList, string | null>>;
  readonly now: Date;
  /** Measure stage timings (wall clock, so not deterministic; off by default). */
  readonly timings?: boolean;
}

export type NationalityRelation = "match" | "mismatch" | "unknown";

/** Why a listed entity matched: every feature and what it contributed. */
export interface MatchExplanation extends Omit<NameScore, "score"> {
  /** Token-alignment score of the matched name (NameScore.score) before alias, date and nationality effects. */
  readonly nameScore: number;
  readonly aliasQuality: AliasQuality;
  /** Multiplier for the alias's quality (weak aliases score lower). */
  readonly aliasFactor: number;
  readonly dob: { readonly relation: DobRelation; readonly effect: number };
  readonly nationality: { readonly relation: NationalityRelation; readonly effect: number };
  /** True when the score was lifted to the threshold by dobMismatchSurfacing. */
  readonly dobMismatchSurfaced: boolean;
}

export interface Match {
  readonly source: SourceList;
  readonly externalId: string;
  readonly entityType: EntityType;
  readonly primaryName: string;
  /** The listed name that matched, as published. */
  readonly matchedName: string;
  readonly matchedNameKind: NameKind;
  /** Which subject name matched: "fullName" or "aliases[i]". */
  readonly queryField: string;
  readonly queryName: string;
  /** How queryName was read to find this match, when not as written (readings.ts); absent otherwise. */
  readonly queryReading?: QueryReading;
  readonly score: number;
  readonly programmes: readonly string[];
  readonly pepTiers: readonly PepTier[];
  readonly deceased: boolean;
  readonly verifyUrl: string;
  /** The source's data is older than maxDataAgeDays (or its date is unknown). */
  readonly staleSource: boolean;
  readonly explanation: MatchExplanation;
}

export interface ScreenTimings {
  /** Normalising, retrieving and scoring names. */
  readonly searchMs: number;
  /** Dates, nationality, filters and outcome. */
  readonly refineMs: number;
  readonly totalMs: number;
  /** Listed names fully scored. */
  readonly candidates: number;
}

export interface ScreenResult {
  readonly matches: readonly Match[];
  /** Matches of deceased persons: shown for information, excluded from the decision. */
  readonly suppressedMatches: readonly Match[];
  readonly outcome: Outcome;
  readonly timings?: ScreenTimings;
}
