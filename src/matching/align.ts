import { latinLengthFits } from "./abjad";
import { type Expansion, joinTooShortAcross, type MatchKind, vocabForm } from "./expand";
import { type MatchIndex, tokenWeight } from "./index";
import { carrierDropped, joinTokens, TOKEN_ABJAD, TOKEN_NOISE } from "./normalise";
import type { QueryPlan, QueryToken } from "./query";
import { looseForm } from "./similarity";
import { compareTokens } from "./token-match";

/** One aligned pair: query tokens [qStart, qEnd) matched to candidate tokens [cStart, cEnd). */
export interface AlignedPair {
  readonly qStart: number;
  readonly qEnd: number;
  readonly cStart: number;
  readonly cEnd: number;
  readonly sim: number;
  readonly kind: MatchKind;
}

/** The candidate name as the aligner sees it. */
export interface CandidateName {
  readonly ids: readonly number[];
  readonly texts: readonly string[];
  readonly flags: readonly number[];
  readonly weights: readonly number[];
}

// Names longer than this are aligned on their first tokens only (bit sets of 31 bits).
export const MAX_ALIGN_TOKENS = 31;
const MERGE_MIN_SIM = 0.85;

export function candidateName(index: MatchIndex, nameId: number): CandidateName {
  const { names, vocab } = index;
  const start = names.tokenStart[nameId]!;
  const end = Math.min(names.tokenStart[nameId + 1]!, start + MAX_ALIGN_TOKENS);
  const ids: number[] = [];
  const texts: string[] = [];
  const flags: number[] = [];
  const weights: number[] = [];
  for (let p = start; p < end; p++) {
    const id = names.tokens[p]!;
    const text = vocab.strings[id]!;
    ids.push(id);
    texts.push(text);
    flags.push(names.tokenFlags[p]!);
    weights.push(tokenWeight(vocab.idf[id]!, names.tokenFlags[p]!, text.length));
  }
  return { ids, texts, flags, weights };
}

/** Similarity of a query token and a vocabulary token: expansion if known, else computed and cached. */
function pairSim(index: MatchIndex, q: QueryToken, v: number): Expansion | null {
  let sims = q.sims;
  if (sims === null) {
    sims = new Map();
    for (const e of q.expansions) sims.set(e.token, e);
    q.sims = sims;
  }
  const known = sims.get(v);
  if (known !== undefined) return known;
  const other = vocabForm(index, v);
  if (q.joined && other.abjad !== q.form.abjad && joinTooShortAcross(q.joined, q.form.abjad ? q.text : other.text)) {
    sims.set(v, null);
    return null;
  }
  const c = compareTokens(q.form, other);
  const result = c.sim > 0 ? { token: v, sim: c.sim, kind: c.kind } : null;
  sims.set(v, result);
  return result;
}

/**
 * Similarity of a query token and a candidate's adjacent pair written as one token ("nasr allah" →
 * "nasrallah"), cached per query token by the pair's vocabulary ids: the candidates of one query
 * share their common pairs ("al ali", "abd al"), and the folded spelling (fifteen regular
 * expression passes) was most of what scoring a many-candidate name cost.
 */
function mergedSim(index: MatchIndex, q: QueryToken, a: number, b: number, abjad: boolean): number {
  const first = index.vocab.strings[a]!;
  const second = index.vocab.strings[b]!;
  // Cheap gates first, before the pair is joined: most query tokens cannot be a spelling of it.
  const joinedLength = first.length + second.length - (carrierDropped(second, abjad) ? 1 : 0);
  if (q.text.length < 4 || !lengthsCanMatch(q.text.length, q.form.abjad, joinedLength, abjad)) return 0;
  if (!abjad && !q.form.abjad && q.text.charCodeAt(0) !== first.charCodeAt(0)) return 0;
  const pair = a * index.vocab.size + b;
  // The joined spelling and the similarity depend on whether both tokens came from an abjad script
  // (joinTokens drops the second one's carrier), so both are kept per pair and flag.
  const key = pair * 2 + (abjad ? 1 : 0);
  q.mergedSims ??= new Map();
  const known = q.mergedSims.get(key);
  if (known !== undefined) return known;
  const text = joinTokens(first, second, abjad);
  const sim = compareTokens(q.form, { text, loose: mergedLoose(index, key, text), abjad }).sim;
  q.mergedSims.set(key, sim);
  return sim;
}

/**
 * Whether spellings of these lengths can be one name: within 2 letters in one script; across scripts
 * the Latin side may add a vowel after every consonant (latinLengthFits, as abjadMatches), so
 * "abdlrhmn" (عبدالرحمن) can be "abdul rahman".
 */
function lengthsCanMatch(queryLength: number, queryAbjad: boolean, pairLength: number, pairAbjad: boolean): boolean {
  if (queryAbjad === pairAbjad) return Math.abs(queryLength - pairLength) <= 2;
  const abjadLength = queryAbjad ? queryLength : pairLength;
  const latinLength = queryAbjad ? pairLength : queryLength;
  return latinLength + 2 >= abjadLength && latinLengthFits(abjadLength, latinLength);
}

const MERGED_LOOSE_LIMIT = 50_000;

/** The folded spelling of a merged pair, kept across queries (a pure function of the pair's key). */
function mergedLoose(index: MatchIndex, key: number, text: string): string {
  const cache = index.scratch.mergedLoose;
  let loose = cache.get(key);
  if (loose === undefined) {
    if (cache.size >= MERGED_LOOSE_LIMIT) cache.clear();
    loose = looseForm(text);
    cache.set(key, loose);
  }
  return loose;
}

/**
 * Order-free alignment: every plausible pairing (single tokens, a joined query pair against one
 * candidate token, one query token against a joined candidate pair) is ranked by similarity and
 * taken greedily without reusing a token. Names are short, so greedy is near-optimal and cheap.
 */
export function align(index: MatchIndex, plan: QueryPlan, cand: CandidateName): AlignedPair[] {
  const options: AlignedPair[] = [];
  const nq = Math.min(plan.tokens.length, MAX_ALIGN_TOKENS);
  const nc = cand.ids.length;
  const bestSingle = new Array<number>(nq).fill(0);
  for (let i = 0; i < nq; i++) {
    const q = plan.tokens[i]!;
    for (let j = 0; j < nc; j++) {
      const e = pairSim(index, q, cand.ids[j]!);
      if (!e) continue;
      options.push({ qStart: i, qEnd: i + 1, cStart: j, cEnd: j + 1, sim: e.sim, kind: e.kind });
      if (e.sim > bestSingle[i]!) bestSingle[i] = e.sim;
    }
  }
  for (const joined of plan.joined) {
    if (joined.start + 1 >= nq) continue;
    for (let j = 0; j < nc; j++) {
      const e = pairSim(index, joined.token, cand.ids[j]!);
      if (e && e.kind !== "initial") {
        options.push({ qStart: joined.start, qEnd: joined.start + 2, cStart: j, cEnd: j + 1, sim: e.sim, kind: e.kind });
      }
    }
  }
  for (let j = 0; j + 1 < nc; j++) {
    if ((cand.flags[j]! | cand.flags[j + 1]!) & TOKEN_NOISE) continue;
    const abjad = (cand.flags[j]! & cand.flags[j + 1]! & TOKEN_ABJAD) !== 0;
    for (let i = 0; i < nq; i++) {
      if (bestSingle[i]! >= 0.95) continue;
      const sim = mergedSim(index, plan.tokens[i]!, cand.ids[j]!, cand.ids[j + 1]!, abjad);
      if (sim >= MERGE_MIN_SIM) options.push({ qStart: i, qEnd: i + 1, cStart: j, cEnd: j + 2, sim, kind: sim === 1 ? "exact" : "fuzzy" });
    }
  }
  options.sort(
    (a, b) =>
      b.sim - a.sim ||
      b.qEnd - b.qStart + b.cEnd - b.cStart - (a.qEnd - a.qStart + a.cEnd - a.cStart) ||
      a.qStart - b.qStart ||
      a.cStart - b.cStart,
  );
  let usedQ = 0;
  let usedC = 0;
  const chosen: AlignedPair[] = [];
  for (const o of options) {
    const qMask = ((1 << (o.qEnd - o.qStart)) - 1) << o.qStart;
    const cMask = ((1 << (o.cEnd - o.cStart)) - 1) << o.cStart;
    if (usedQ & qMask || usedC & cMask) continue;
    usedQ |= qMask;
    usedC |= cMask;
    chosen.push(o);
  }
  return chosen;
}
