import { PEP_TIERS, SANCTIONS_LISTS, SOURCE_LISTS, type SourceList } from "../watchlists/entity";
import { parseDate } from "./dates";
import { listedWords, type MatchIndex } from "./index";
import type { ResolvedOptions } from "./options-resolve";
import { computeOutcome } from "./outcome";
import { pepTiersOf } from "../watchlists/pep-tier";
import { ageInDays } from "../watchlists/published-at";
import { planQuery } from "./query";
import { type Refined, refine, subjectFacts } from "./refine";
import { retrieve } from "./retrieve";
import { type NameScore, scoreName } from "./score";
import { otherReadings, type QueryReading } from "./readings";
import type { Match, ScreenContext, ScreenQuery, ScreenResult } from "./types";
import { MAX_BONUS, WEAK_ALIAS_FACTOR } from "./weights";

interface Best {
  readonly entity: number;
  readonly nameId: number;
  readonly base: number;
  readonly name: NameScore;
  readonly field: string;
  readonly text: string;
  readonly reading: QueryReading | null;
}

/**
 * Sources selected by the options whose data is older than maxDataAgeDays: more whole days old
 * than the limit (the ageDays that /v1/lists/version shows), or undated (no date, or text that is
 * no ISO 8601 date), or not loaded.
 */
export function staleSources(options: Pick<ResolvedOptions, "lists" | "maxDataAgeDays">, ctx: Pick<ScreenContext, "sourcePublishedAt" | "now">): SourceList[] {
  // ?? null: options stored by any version read back without the field mean no limit, not NaN.
  const limit = options.maxDataAgeDays ?? null;
  if (limit === null) return [];
  return options.lists.filter((source) => {
    const age = ageInDays(ctx.sourcePublishedAt[source] ?? null, ctx.now);
    return age === null || age > limit;
  });
}

/** The subject's names, each as written and in its other readings (readings.ts). */
function queryNames(index: MatchIndex, query: ScreenQuery): { field: string; text: string; reading: QueryReading | null; read: string }[] {
  const aliases = (query.aliases ?? []).map((text, i) => ({ field: `aliases[${i}]`, text }));
  const listed = listedWords(index);
  const seen = new Set<string>();
  // A name given twice (an alias equal to fullName, or to another alias) is screened once.
  const written = [{ field: "fullName", text: query.fullName }, ...aliases].filter((n) => {
    const fresh = n.text.trim().length > 0 && !seen.has(n.text);
    seen.add(n.text);
    return fresh;
  });
  return written.flatMap((name) => [
    { ...name, reading: null, read: name.text },
    ...otherReadings(name.text, listed).map((other) => ({ ...name, reading: other.reading, read: other.text })),
  ]);
}

/** Best-scoring listed name per entity over all the subject's names. */
function collect(index: MatchIndex, query: ScreenQuery, options: ResolvedOptions, stats: { candidates: number }): Map<number, Best> {
  const sourceMask = options.lists.reduce((mask, s) => mask | (1 << SOURCE_LISTS.indexOf(s)), 0);
  const expand = { trigramFloor: options.trigramFloor, phonetic: options.phonetic, nicknames: options.nicknames, exactOnly: options.exactMatch };
  const floor = options.dobMismatchSurfacing ? Math.min(options.threshold, options.dobMismatchHighScoreThreshold) : options.threshold;
  const best = new Map<number, Best>();
  for (const { field, text, reading, read } of queryNames(index, query)) {
    const plan = planQuery(index, read, expand);
    const candidates = retrieve(index, plan, { threshold: floor, candidateLimit: options.candidateLimit, sourceMask });
    stats.candidates += candidates.length;
    for (const nameId of candidates) {
      const name = scoreName(index, plan, nameId, options.exactMatch);
      const base = name.score * (index.names.weak[nameId] ? WEAK_ALIAS_FACTOR : 1);
      if (base + MAX_BONUS < floor) continue;
      const entity = index.names.entity[nameId]!;
      const prev = best.get(entity);
      if (!prev || base > prev.base || (base === prev.base && nameId < prev.nameId)) {
        best.set(entity, { entity, nameId, base, name, field, text, reading });
      }
    }
  }
  return best;
}

function toMatch(index: MatchIndex, b: Best, refined: Refined, homeCountry: string | null, stale: ReadonlySet<SourceList>): Match {
  const entity = index.cards.get(b.entity);
  const listed = entity.names[index.names.ordinal[b.nameId]!]!;
  return {
    source: entity.source,
    externalId: entity.externalId,
    entityType: entity.entityType,
    primaryName: entity.primaryName,
    matchedName: listed.name,
    matchedNameKind: listed.kind,
    queryField: b.field,
    queryName: b.text,
    ...(b.reading ? { queryReading: b.reading } : {}),
    score: Math.round(refined.score * 10000) / 10000,
    programmes: entity.programmes,
    pepTiers: pepTiersOf(entity.pep, homeCountry),
    deceased: entity.deceased,
    verifyUrl: entity.verifyUrl,
    staleSource: stale.has(entity.source),
    explanation: {
      nameScore: b.name.score,
      alignments: b.name.alignments,
      unmatchedQuery: b.name.unmatchedQuery,
      unmatchedCandidate: b.name.unmatchedCandidate,
      matchedWeight: b.name.matchedWeight,
      omissionPenalty: b.name.omissionPenalty,
      conflictPenalty: b.name.conflictPenalty,
      singleTokenFactor: b.name.singleTokenFactor,
      aliasQuality: listed.quality,
      aliasFactor: refined.aliasFactor,
      dob: refined.dob,
      nationality: refined.nationality,
      dobMismatchSurfaced: refined.dobMismatchSurfaced,
    },
  };
}

function byRank(a: Match, b: Match): number {
  return (
    b.score - a.score ||
    SOURCE_LISTS.indexOf(a.source) - SOURCE_LISTS.indexOf(b.source) ||
    (a.externalId < b.externalId ? -1 : a.externalId > b.externalId ? 1 : 0)
  );
}

/** Screens one subject against the index. Pure and deterministic for given inputs (timings aside). */
export function screen(index: MatchIndex, query: ScreenQuery, options: ResolvedOptions, ctx: ScreenContext): ScreenResult {
  const started = ctx.timings ? performance.now() : 0;
  const stats = { candidates: 0 };
  const best = collect(index, query, options, stats);
  const collected = ctx.timings ? performance.now() : 0;
  const facts = subjectFacts(query.dateOfBirth ? parseDate(query.dateOfBirth) : null, query.nationality);
  const homeCountry = ctx.homeCountry ?? options.homeCountry;
  const stale = staleSources(options, ctx);
  const staleSet = new Set(stale);
  const tierFilter = PEP_TIERS.every((t) => options.pepTiers.includes(t)) ? null : new Set(options.pepTiers);
  const matches: Match[] = [];
  const suppressed: Match[] = [];
  for (const b of best.values()) {
    const refined = refine(index, b.entity, b.name.score, index.names.weak[b.nameId] === 1, facts, options);
    if (refined.score < options.threshold) continue;
    const match = toMatch(index, b, refined, homeCountry, staleSet);
    if (tierFilter && !SANCTIONS_LISTS.includes(match.source) && !match.pepTiers.some((t) => tierFilter.has(t))) continue;
    (match.deceased ? suppressed : matches).push(match);
  }
  matches.sort(byRank);
  suppressed.sort(byRank);
  const outcome = computeOutcome({ matches, threshold: options.threshold, staleSources: stale });
  const result: ScreenResult = {
    matches: matches.slice(0, options.resultCap),
    suppressedMatches: suppressed.slice(0, options.resultCap),
    outcome,
  };
  if (!ctx.timings) return result;
  const done = performance.now();
  return {
    ...result,
    timings: { searchMs: collected - started, refineMs: done - collected, totalMs: done - started, candidates: stats.candidates },
  };
}
