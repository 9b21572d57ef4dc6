import { z } from "zod";
import { BODY_CORRELATION_ID, schemaComponent } from "@/http/openapi";
import { COVERAGE_PRESETS } from "@/matching/options";
import { PEP_TIERS, type PepTier, SOURCE_LISTS } from "@/watchlists/entity";
import { MAX_ALIASES, MAX_BULK_ROWS, MAX_NAME_LENGTH, MAX_USER_REFERENCE_LENGTH, Subject } from "./subject";
import { SCREENING_ORIGINS } from "./types";

/** Response shapes for the OpenAPI description only: responses are not validated at run time. */
const Source = z.enum(SOURCE_LISTS);
const Tier = z.enum(PEP_TIERS as readonly PepTier[] as [PepTier, ...PepTier[]]);
export const Decision = z.enum(["Clear", "Review", "Match"]).describe("Clear: nothing counted. Match: a strong match (score ≥ 0.95). Review: a human must look.");
export const RiskBand = z.enum(["Low", "Medium", "High", "Critical"]).describe("Low < 25 ≤ Medium < 50 ≤ High < 75 ≤ Critical, from riskScore.");
const Classification = z.enum(["sanctions", "pep", "adverse_media"]).nullable().describe("The top classification; null on a clean screen.");
const AdverseMedia = z
  .enum(["Skipped", "Ok", "Stale", "Unavailable"])
  .describe("Skipped: not requested. Unavailable: requested but no adverse-media provider is configured, so nothing was looked at — never read it as clean.");

const MatchSchema = z
  .object({
    source: Source,
    externalId: z.string().describe("Id of the official record"),
    entityType: z.enum(["person", "organisation", "vessel", "aircraft"]),
    primaryName: z.string(),
    matchedName: z.string().describe("The listed name that matched, as published"),
    matchedNameKind: z.enum(["primary", "aka", "fka", "nka"]),
    queryField: z.string().describe('Which subject name matched: "fullName" or "aliases[i]"'),
    queryName: z.string(),
    score: z.number().min(0).max(1),
    programmes: z.array(z.string()),
    pepTiers: z.array(Tier),
    deceased: z.boolean(),
    verifyUrl: z.string().describe("Public URL of the official record"),
    staleSource: z.boolean().describe("The source is older than maxDataAgeDays"),
    explanation: z.record(z.string(), z.unknown()).describe("Feature breakdown of the score: token alignments, penalties, alias quality, date-of-birth and nationality effects"),
  })
  .describe("A listed entity that matched, with its explanation.");

const ResolvedOptionsSchema = z
  .object({
    threshold: z.number(),
    exactMatch: z.boolean(),
    adverseMedia: z.boolean(),
    monitor: z.boolean(),
    lists: z.array(Source),
    pepTiers: z.array(Tier),
    coveragePreset: z.enum(COVERAGE_PRESETS),
    maxDataAgeDays: z.number().int().nullable(),
    phonetic: z.boolean(),
    nicknames: z.boolean(),
    trigramFloor: z.number(),
    candidateLimit: z.number().int(),
    resultCap: z.number().int(),
    dobYearTolerance: z.number().int(),
    dobMismatchPenalty: z.number(),
    dobMismatchSurfacing: z.boolean(),
    dobMismatchHighScoreThreshold: z.number(),
    homeCountry: z.string().nullable(),
  })
  .describe("The options the screen ran with: risk profile, then request overrides, limited to the tenant's enabled lists. A rescreen reuses them.");

/** The subject as stored and returned: validated, nationality as its alpha-2 code, absent fields null, aliases []. */
const SubjectView = z
  .object({
    fullName: z.string().min(1).max(MAX_NAME_LENGTH).describe("As sent, trimmed"),
    dateOfBirth: z
      .string()
      .regex(/^\d{4}(?:-\d{2}(?:-\d{2})?)?$/)
      .nullable()
      .describe('"YYYY", "YYYY-MM" or "YYYY-MM-DD", as sent; null when not given'),
    nationality: z
      .string()
      .regex(/^[A-Z]{2}$/)
      .nullable()
      .describe("ISO 3166-1 alpha-2 code (a country name sent is stored as its code); null when not given"),
    aliases: z.array(z.string().min(1).max(MAX_NAME_LENGTH)).max(MAX_ALIASES).describe("Other names, trimmed; [] when none were given"),
    userReference: z.string().min(1).max(MAX_USER_REFERENCE_LENGTH).nullable(),
  })
  .describe("The screened subject, validated.");

export const ScreeningResponse = z
  .object({
    id: z.uuid(),
    createdAt: z.string().describe("ISO 8601 date-time (UTC)"),
    correlationId: BODY_CORRELATION_ID,
    screeningCorrelationId: z.string().nullable().describe("Correlation id of the request that created the screening; also on its webhook"),
    userReference: z.string().nullable(),
    subject: SubjectView,
    options: ResolvedOptionsSchema,
    listVersions: z
      .object({
        snapshotId: z.string(),
        sources: z
          .array(
            z.object({
              source: Source,
              versionId: z.string(),
              publishedAt: z.string().nullable().describe("ISO 8601 date-time (UTC)"),
              isDemo: z.boolean().describe("true when this version is the FICTIONAL demo list (`aml serve --demo`), not official data"),
            }),
          )
          .describe("The version read of each selected list (options.lists) the snapshot held"),
        notLoaded: z.array(Source).describe("Selected lists the snapshot did not hold: NOT checked, so a Clear says nothing about them"),
        isDemo: z
          .boolean()
          .describe(
            "true when any source read is the FICTIONAL demo list: the decision says nothing about real sanctions or PEP data. Only `aml serve --demo` loads that list, and only into a data folder that never imported official files",
          ),
      })
      .describe("The watchlist data the screen read"),
    isMatch: z.boolean(),
    score: z.number().describe("Best counted match score (0–1); 0 when Clear"),
    decision: Decision,
    riskScore: z.number().int().min(0).max(100),
    riskBand: RiskBand,
    classification: Classification,
    pepTiers: z.array(Tier).describe("Distinct PEP tiers among the counted matches, unranked"),
    sourceLists: z.array(Source).describe("Distinct lists that produced a counted match"),
    matchCount: z.number().int().describe("Matches that drove the decision; excludes deceased-suppressed ones and counts beyond resultCap"),
    matches: z.array(MatchSchema).describe("Best first, at most resultCap"),
    suppressedMatches: z.array(MatchSchema).describe("Matches of deceased persons: shown for information, excluded from the decision"),
    adverseMediaStatus: AdverseMedia,
    rescreenOf: z.uuid().nullable().describe("The screening this one re-screened"),
    origin: z.enum(SCREENING_ORIGINS),
  })
  .describe("A screening: an immutable record.");

const BulkRow = z.object({
  index: z.number().int().describe("Position in the request array, from 0"),
  status: z.enum(["screened", "failed"]),
  screeningId: z.uuid().nullable().describe("Read the full record with GET /v1/screenings/{id}; null for a failed row"),
  userReference: z.string().nullable(),
  decision: Decision.nullable(),
  isMatch: z.boolean().nullable(),
  score: z.number().nullable(),
  riskScore: z.number().int().nullable(),
  riskBand: RiskBand.nullable(),
  classification: Classification,
  pepTiers: z.array(Tier),
  sourceLists: z.array(Source),
  matchCount: z.number().int().nullable(),
  adverseMediaStatus: AdverseMedia.nullable(),
  error: z
    .object({
      code: z.enum(["VALIDATION_FAILED", "INTERNAL"]),
      detail: z.string(),
      errors: z.array(z.object({ field: z.string(), message: z.string() })),
    })
    .nullable()
    .describe("Why the row failed; null for a screened row"),
});

export const BulkResponse = z.object({
  rows: z.array(BulkRow).describe("One entry per input row, in input order"),
  summary: z.object({ total: z.number().int(), screened: z.number().int(), failed: z.number().int() }),
  correlationId: BODY_CORRELATION_ID,
});

export const BulkRequest = z.array(Subject).min(1).max(MAX_BULK_ROWS).describe("1–1,000 subjects; rows are validated one by one (a bad row fails alone).");

/** Named OpenAPI components: each is published once and referenced by every route and media type using it. */
export const SCREENING_SCHEMA = schemaComponent("Screening", ScreeningResponse);
export const BULK_RESPONSE_SCHEMA = schemaComponent("BulkScreeningResponse", BulkResponse);
