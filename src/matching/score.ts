import { type AlignedPair, align, type CandidateName, candidateName } from "./align";
import type { MatchKind } from "./expand";
import type { MatchIndex } from "./index";
import { exactKey, isPatronymic, TOKEN_ABJAD, TOKEN_JOIN_NEXT, TOKEN_NOISE, TOKEN_PARTICLE } from "./normalise";
import type { QueryPlan } from "./query";
import {
  CONFLICT_PENALTY,
  CREDIT_KNEE,
  INITIAL_WEIGHT,
  MAX_BONUS,
  OMISSION_PENALTY,
  PATRONYMIC_WEIGHT,
  REVERSED_SYLLABLE_FACTOR,
  SINGLE_TOKEN_FACTOR,
} from "./weights";

/**
 * Name score. Aligned pairs give evidence M = Σ sim·w (w = mean rarity weight of both sides);
 * unmatched tokens cost OMISSION_PENALTY × their weight, and when both sides have unmatched tokens
 * the smaller side costs CONFLICT_PENALTY more:
 *   score = M / (Σ w_pairs + λo·(Uq + Uc) + λc·min(Uq, Uc))
 * So a dropped middle name costs little, a different given name costs a lot, and sharing only a
 * common token ("Mohammed") scores low because its weight is small next to what is left unmatched.
 */
export interface ScoredAlignment {
  readonly query: string;
  readonly candidate: string;
  readonly similarity: number;
  readonly kind: MatchKind;
  readonly weight: number;
  /** Set when the pair reads a word's syllables out of their written order (credited at REVERSED_SYLLABLE_FACTOR). */
  readonly outOfOrder?: true;
}

export interface WeightedToken {
  readonly token: string;
  readonly weight: number;
}

export interface NameScore {
  readonly score: number;
  readonly alignments: readonly ScoredAlignment[];
  readonly unmatchedQuery: readonly WeightedToken[];
  readonly unmatchedCandidate: readonly WeightedToken[];
  /** Σ similarity × weight over aligned pairs. */
  readonly matchedWeight: number;
  readonly omissionPenalty: number;
  readonly conflictPenalty: number;
  /**
   * SINGLE_TOKEN_FACTOR when a query of two or more substantive tokens matched through one only,
   * else 1. Query tokens that spell the listed legal-form or title word they are aligned to
   * (spellsNoiseWord) count as that word, not as substantive tokens.
   */
  readonly singleTokenFactor: number;
}

function unmatchedWeight(text: string, weight: number): number {
  return isPatronymic(text) ? weight * PATRONYMIC_WEIGHT : weight;
}

/** What the part of `texts[i]` an initial does not explain costs (`rest` of its weight); see scoreName. */
function initialRest(texts: readonly string[], i: number, rest: number): number {
  return texts.length >= 3 ? unmatchedWeight(texts[i]!, rest) : rest;
}

export function combineParts(matched: number, pairWeight: number, uq: number, uc: number): number {
  const denominator = pairWeight + OMISSION_PENALTY * (uq + uc) + CONFLICT_PENALTY * Math.min(uq, uc);
  return denominator > 0 ? matched / denominator : 0;
}

/**
 * Retrieval's estimate from coverage shares alone (q of the query weight, c of the candidate's).
 * It charges what is unmatched as omissions only: a query token retrieval did not pair (a typo
 * under the trigram floor, "Sugn") may still pair in scoring, so no conflict is assumed yet.
 */
export function combineCoverage(q: number, queryWeight: number, c: number, candidateWeight: number): number {
  const matched = (q * queryWeight + c * candidateWeight) / 2;
  const unmatched = (1 - q) * queryWeight + (1 - c) * candidateWeight;
  return matched / Math.max(1e-9, matched + OMISSION_PENALTY * unmatched);
}

/**
 * The least share of query weight a name must match to possibly reach `threshold`: all bonuses
 * granted, every matched pair exact, nothing unmatched on the name's side, so only the query's
 * unmatched tokens cost (as omissions): M / (M + λo·(W − M)) ≥ t.
 */
export function minQueryShare(threshold: number): number {
  const t = Math.min(0.99, Math.max(0.05, threshold - MAX_BONUS));
  return (t * OMISSION_PENALTY) / (1 - t + t * OMISSION_PENALTY);
}

function exactScore(plan: QueryPlan, cand: CandidateName): NameScore {
  const same = exactKey({ tokens: cand.texts, flags: cand.flags }) === plan.exactKey;
  return {
    score: same ? 1 : 0,
    alignments: same ? cand.texts.map((t, j) => ({ query: t, candidate: t, similarity: 1, kind: "exact", weight: cand.weights[j]! })) : [],
    unmatchedQuery: [],
    unmatchedCandidate: [],
    matchedWeight: same ? cand.weights.reduce((a, b) => a + b, 0) : 0,
    omissionPenalty: 0,
    conflictPenalty: 0,
    singleTokenFactor: 1,
  };
}

export function isSubstantive(text: string, flags: number): boolean {
  return text.length > 1 && !(flags & (TOKEN_NOISE | TOKEN_PARTICLE));
}

/** Shortest word that a spelling variant (not the same spelling) may stand for as a legal form or title. */
const MIN_VARIANT_LENGTH = 4;

/**
 * Whether a subject's word (or two written as one) of `queryLength` letters, aligned with
 * similarity `sim` to a listed legal-form or title word of `candidateLength` letters, spells it: the
 * same word (similarity 1 is exact), or a spelling variant credited in full (CREDIT_KNEE) of a word
 * of at least MIN_VARIANT_LENGTH letters on both sides. A looser likeness ("Imran" ~ the title
 * "Imam"), an initial, or a variant of a short word proves nothing: "Ye" (叶) folds to the suffix
 * "II", "Yu" to the "You" of "you xian gong si", and a one-letter change of an abbreviation is
 * another one. Retrieval counts its noise-posting hits by the same rule (retrieve.ts).
 */
export function spellsNoiseWord(sim: number, queryLength: number, candidateLength: number): boolean {
  if (sim === 1) return true;
  return sim >= CREDIT_KNEE && Math.min(queryLength, candidateLength) >= MIN_VARIANT_LENGTH;
}

function pairLength(texts: readonly string[], start: number, end: number): number {
  let length = 0;
  for (let i = start; i < end; i++) length += texts[i]!.length;
  return length;
}

function spanText(texts: readonly string[], start: number, end: number): string {
  return texts.slice(start, end).join(" ");
}

/**
 * Whether tokens i and i+1 are syllables of one written word (a hyphen, Hangul, ideographs) whose
 * order is the name's. Not the first pair of a word that holds the surname too: a word of three
 * syllables or more (김정은, 习近平), or a name written as one word beside titles only (王伟,
 * "Mr 王伟"), starts with the surname, which moves freely ("Jong Un Kim", "Wei Wang").
 */
function joinedSyllables(flags: readonly number[], i: number): boolean {
  if (i + 1 >= flags.length) return false;
  const f = flags[i]!;
  if (!(f & TOKEN_JOIN_NEXT) || (f | flags[i + 1]!) & (TOKEN_NOISE | TOKEN_PARTICLE | TOKEN_ABJAD)) return false;
  let start = i;
  while (start > 0 && flags[start - 1]! & TOKEN_JOIN_NEXT) start--;
  if (i > start) return true;
  let end = i + 1;
  while (end < flags.length - 1 && flags[end]! & TOKEN_JOIN_NEXT) end++;
  if (end - start >= 2) return false;
  for (let k = 0; k < flags.length; k++) if ((k < start || k > end) && !(flags[k]! & TOKEN_NOISE)) return true;
  return false;
}

/**
 * The next name token after i, past particles and legal-form or title words: a word's parts stay
 * together across them ("Ortega-Saavedra" is "ORTEGA Y SAAVEDRA", "Sanchez-Lozada" "SANCHEZ DE
 * LOZADA"). -1 when there is none.
 */
function nextNameToken(flags: readonly number[], i: number): number {
  for (let k = i + 1; k < flags.length; k++) if (!(flags[k]! & (TOKEN_NOISE | TOKEN_PARTICLE))) return k;
  return -1;
}

function singleToken(p: AlignedPair): boolean {
  return p.qEnd - p.qStart === 1 && p.cEnd - p.cStart === 1;
}

/**
 * Pairs that read one side's word out of order: the syllables of a word written as one (광수,
 * "Kwang-su") aligned to the other side's tokens in the other order ("KIM Su-gwang") or apart.
 * Alignment is order-free, as word order is free ("Kim Kwang Su" is "Kwang Su Kim"), but within one
 * word the order is the name: Kwang-su and Su-gwang are two given names. Of the two pairs, the one
 * later in the subject's name is marked, so a word joined on both sides is marked once.
 */
function reversedSyllables(pairs: readonly AlignedPair[], qFlags: readonly number[], cFlags: readonly number[]): boolean[] | null {
  // Scored for every candidate name, so nothing is allocated unless a pair is marked.
  let marked: boolean[] | null = null;
  for (let a = 0; a < pairs.length; a++) {
    const p = pairs[a]!;
    if (!singleToken(p)) continue;
    for (let b = 0; b < pairs.length; b++) {
      const o = pairs[b]!;
      if (b === a || !singleToken(o)) continue;
      const queryWord = o.qStart === p.qStart + 1 && o.cStart !== nextNameToken(cFlags, p.cStart) && joinedSyllables(qFlags, p.qStart);
      const candidateWord = o.cStart === p.cStart + 1 && o.qStart !== nextNameToken(qFlags, p.qStart) && joinedSyllables(cFlags, p.cStart);
      if (!queryWord && !candidateWord) continue;
      marked ??= new Array<boolean>(pairs.length).fill(false);
      marked[o.qStart > p.qStart ? b : a] = true;
    }
  }
  return marked;
}

function countMarked(marked: readonly boolean[] | null): number {
  let n = 0;
  if (marked) for (const m of marked) if (m) n++;
  return n;
}

/**
 * Greedy alignment breaks ties by position, not by order: "Li Li-Hua" against "Li-Hua LI" paired
 * the first "li" with the first "li" and read Li-Hua backwards. Two pairs whose subject tokens or
 * whose listed tokens are the same word, at the same weight, can trade their listed tokens without
 * changing any similarity or weight; they do when that leaves fewer pairs out of order. Runs only
 * when a pair is marked.
 */
function untangle(pairs: AlignedPair[], marked: boolean[], plan: QueryPlan, cand: CandidateName): { pairs: AlignedPair[]; marked: boolean[] | null } {
  let best = pairs;
  let bestMarked: boolean[] | null = marked;
  let bestCount = countMarked(marked);
  for (let round = 0; round < 4 && bestCount > 0; round++) {
    let improved = false;
    for (let a = 0; a < best.length; a++) {
      for (let b = a + 1; b < best.length; b++) {
        const pa = best[a]!;
        const pb = best[b]!;
        if (!singleToken(pa) || !singleToken(pb)) continue;
        const sameListed = cand.ids[pa.cStart] === cand.ids[pb.cStart] && cand.weights[pa.cStart] === cand.weights[pb.cStart];
        const sameSubject = plan.texts[pa.qStart] === plan.texts[pb.qStart] && plan.weights[pa.qStart] === plan.weights[pb.qStart];
        if (!sameListed && !sameSubject) continue;
        const trial = best.slice();
        trial[a] = { ...pa, cStart: pb.cStart, cEnd: pb.cEnd };
        trial[b] = { ...pb, cStart: pa.cStart, cEnd: pa.cEnd };
        const trialMarked = reversedSyllables(trial, plan.name.flags, cand.flags);
        const trialCount = countMarked(trialMarked);
        if (trialCount < bestCount) {
          best = trial;
          bestMarked = trialMarked;
          bestCount = trialCount;
          improved = true;
        }
      }
    }
    if (!improved) break;
  }
  return { pairs: best, marked: bestMarked };
}

function credited(p: AlignedPair, outOfOrder: boolean): number {
  return outOfOrder ? p.sim * REVERSED_SYLLABLE_FACTOR : p.sim;
}

export function scoreName(index: MatchIndex, plan: QueryPlan, nameId: number, exactMode: boolean): NameScore {
  const cand = candidateName(index, nameId);
  if (exactMode) return exactScore(plan, cand);
  let pairs: AlignedPair[] = align(index, plan, cand);
  const { weights: qWeights, texts: qTexts } = plan;
  let reversed = reversedSyllables(pairs, plan.name.flags, cand.flags);
  if (reversed) ({ pairs, marked: reversed } = untangle(pairs, reversed, plan, cand));
  const qUsed = new Array<boolean>(qTexts.length).fill(false);
  const cUsed = new Array<boolean>(cand.texts.length).fill(false);
  const pairWeights = new Array<number>(pairs.length);
  let matched = 0;
  let pairWeight = 0;
  let uq = 0;
  let uc = 0;
  let substantive = false;
  let matchedSubstantive = 0;
  let readAsNoise = 0;
  for (let k = 0; k < pairs.length; k++) {
    const p = pairs[k]!;
    let wq = 0;
    let wc = 0;
    let covers = 0;
    let coversCandidate = false;
    let candidateNoise = true;
    for (let j = p.cStart; j < p.cEnd; j++) {
      if (isSubstantive(cand.texts[j]!, cand.flags[j]!)) coversCandidate = true;
      if (!(cand.flags[j]! & TOKEN_NOISE)) candidateNoise = false;
    }
    // Subject words that spell a listed legal form or title ("Compani", "Limted", "Organisation",
    // or "Liability" outside the legal form the subject wrote in full) are read as that legal form or
    // title, on the subject's side as on the listed name's: weighted as noise, and not name parts
    // the listed name lacks. A misspelt legal form then scores as the correctly spelt one would.
    const asNoise = candidateNoise && spellsNoiseWord(p.sim, pairLength(qTexts, p.qStart, p.qEnd), pairLength(cand.texts, p.cStart, p.cEnd));
    for (let i = p.qStart; i < p.qEnd; i++) {
      wq += asNoise ? plan.tokens[i]!.noiseWeight : qWeights[i]!;
      qUsed[i] = true;
      // Only a name word matched to a name word is evidence: a subject word matched only to the
      // listed name's legal form or title ("Compani" to the "Company" of "Promoil LLC") is not.
      if (!(plan.tokens[i]!.flags & TOKEN_NOISE) && !candidateNoise) substantive = true;
      if (isSubstantive(qTexts[i]!, plan.tokens[i]!.flags)) covers++;
    }
    // A joined pair that is a real spacing variant ("abd allh" = Abdullah) accounts for both of
    // its query tokens; a loose one ("ji un" ~ "yun") only for one.
    if (coversCandidate && p.kind !== "initial") matchedSubstantive += p.sim >= 0.9 ? covers : Math.min(covers, 1);
    if (asNoise) readAsNoise += covers;
    for (let j = p.cStart; j < p.cEnd; j++) {
      wc += cand.weights[j]!;
      cUsed[j] = true;
    }
    let w = (wq + wc) / 2;
    if (p.kind === "initial") {
      // An initial stands for the full name only up to INITIAL_WEIGHT; the rest is unexplained, and
      // costs what that much of the name left out would: a patronymic's rest at PATRONYMIC_WEIGHT,
      // so that "V.V. Putin" never scores below "V. Putin", which leaves the patronymic out. Only
      // in a name of three words or more: in two ("Roman ABRAMOVICH") the -ovich is the surname.
      w = Math.min(INITIAL_WEIGHT, wq, wc);
      uq += initialRest(qTexts, p.qStart, wq - w);
      uc += initialRest(cand.texts, p.cStart, wc - w);
    }
    matched += credited(p, reversed?.[k] === true) * w;
    pairWeight += w;
    pairWeights[k] = w;
  }
  // Unmatched titles and legal forms cost nothing: "Acme LLC" is "Acme Ltd".
  const queryUnmatched = (i: number): number => (plan.tokens[i]!.flags & TOKEN_NOISE ? 0 : unmatchedWeight(qTexts[i]!, qWeights[i]!));
  const candidateUnmatched = (j: number): number => (cand.flags[j]! & TOKEN_NOISE ? 0 : unmatchedWeight(cand.texts[j]!, cand.weights[j]!));
  for (let i = 0; i < qTexts.length; i++) if (!qUsed[i]) uq += queryUnmatched(i);
  for (let j = 0; j < cand.texts.length; j++) if (!cUsed[j]) uc += candidateUnmatched(j);
  // Two substantive query tokens matched through one: "Noura Lee" against the alias "Noura".
  const querySubstantive = plan.substantive - readAsNoise;
  const singleTokenFactor = querySubstantive >= 2 && matchedSubstantive < 2 ? SINGLE_TOKEN_FACTOR : 1;
  const score = substantive ? combineParts(matched, pairWeight, uq, uc) * singleTokenFactor : 0;
  // The explanation is read only for the best name of each entity that reaches the floor, a few of
  // the dozens or hundreds of names scored for a common name, so its strings are built on demand.
  let alignments: ScoredAlignment[] | null = null;
  let unmatchedQuery: WeightedToken[] | null = null;
  let unmatchedCandidate: WeightedToken[] | null = null;
  return {
    score,
    singleTokenFactor,
    get alignments() {
      alignments ??= pairs.map((p, k) => ({
        query: spanText(qTexts, p.qStart, p.qEnd),
        candidate: spanText(cand.texts, p.cStart, p.cEnd),
        similarity: credited(p, reversed?.[k] === true),
        kind: p.kind,
        weight: pairWeights[k]!,
        ...(reversed?.[k] ? { outOfOrder: true as const } : {}),
      }));
      return alignments;
    },
    get unmatchedQuery() {
      unmatchedQuery ??= qTexts.flatMap((token, i) => (qUsed[i] ? [] : [{ token, weight: queryUnmatched(i) }]));
      return unmatchedQuery;
    },
    get unmatchedCandidate() {
      unmatchedCandidate ??= cand.texts.flatMap((token, j) => (cUsed[j] ? [] : [{ token, weight: candidateUnmatched(j) }]));
      return unmatchedCandidate;
    },
    matchedWeight: matched,
    omissionPenalty: OMISSION_PENALTY * (uq + uc),
    conflictPenalty: CONFLICT_PENALTY * Math.min(uq, uc),
  };
}
