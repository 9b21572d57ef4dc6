import type { MatchIndex } from "./index";
import { TOKEN_NOISE } from "./normalise";
import type { QueryPlan, QueryToken } from "./query";
import { buffersOf, R_ACC_CANDIDATE, R_ACC_QUERY, R_BEST, R_ESTIMATE, R_MATCHED, RECORD, reserveStamps, type SearchBuffers } from "./scratch";
import { combineCoverage, isSubstantive, minQueryShare } from "./score";

/**
 * Candidates whose retrieval estimate is this far below the threshold are not scored. The estimate
 * is rough (it ignores alignment details), so the margin is wide; the eval checks it costs no recall.
 */
export const PRESCORE_MARGIN = 0.15;

export interface RetrieveOptions {
  readonly threshold: number;
  readonly candidateLimit: number;
  /** Bit k set = SOURCE_LISTS[k] may produce candidates. */
  readonly sourceMask: number;
}

interface Slot {
  readonly token: QueryToken;
  readonly weight: number;
  /** May this slot's postings create candidates, or only add to existing ones? */
  readonly creates: boolean;
  /** Substantive query tokens this slot stands for (0, 1, or 2 for a joined pair). */
  readonly substantive: number;
  readonly joined: boolean;
}

/**
 * Which query tokens must be looked up to find every name that could still reach the threshold:
 * rarest first, until the tokens left out could not reach it on their own, either by weight
 * (a name sharing only "Mohammed" with "Mohammed Nasrallah" can never score high enough) or by
 * count (a multi-token query needs two tokens matched, see SINGLE_TOKEN_FACTOR). The postings of
 * the other tokens ("mohammed": 10^5 names at production scale) only add to names already found.
 */
function planSlots(plan: QueryPlan, threshold: number): Slot[] {
  const order = plan.tokens
    .map((t, i) => ({ t, i }))
    .filter(({ t }) => !(t.flags & TOKEN_NOISE) && t.expansions.length > 0)
    .sort((a, b) => b.t.weight - a.t.weight || a.i - b.i);
  const required = minQueryShare(threshold) * plan.totalWeight;
  const needTwo = plan.substantive >= 2;
  let remainingSubstantive = plan.substantive;
  const creating = new Set<number>();
  let remaining = plan.totalWeight;
  const substantiveOf = (i: number) => (isSubstantive(plan.texts[i]!, plan.tokens[i]!.flags) ? 1 : 0);
  for (const { t, i } of order) {
    const outOfReach = remaining < required || (needTwo && remainingSubstantive < 2);
    if (outOfReach && creating.size > 0) break;
    creating.add(i);
    remaining -= t.weight;
    remainingSubstantive -= substantiveOf(i);
  }
  const slots: Slot[] = order.map(({ t, i }) => ({
    token: t,
    weight: t.weight,
    creates: creating.has(i),
    substantive: substantiveOf(i),
    joined: false,
  }));
  for (const j of plan.joined) {
    if (j.token.expansions.length === 0) continue;
    const weight = plan.tokens[j.start]!.weight + plan.tokens[j.start + 1]!.weight;
    const creates = creating.has(j.start) || creating.has(j.start + 1);
    slots.push({ token: j.token, weight, creates, substantive: substantiveOf(j.start) + substantiveOf(j.start + 1), joined: true });
  }
  // Creating slots first, so updating slots only ever touch names that already exist.
  return slots.sort((a, b) => Number(b.creates) - Number(a.creates));
}


/** Adds one slot's best similarity to a candidate's record (first hit of the slot, or a better one). */
function credit(buf: SearchBuffers, n: number, stamp: number, slot: Slot, sim: number, candidateWeight: number): void {
  const r = n * RECORD;
  const { ints, floats } = buf;
  if (ints[r] === stamp) {
    const best = floats[r + R_BEST]!;
    if (sim > best) {
      floats[r + R_ACC_QUERY]! += slot.weight * (sim - best);
      floats[r + R_BEST] = sim;
    }
    return;
  }
  floats[r + R_ACC_QUERY]! += slot.weight * sim;
  floats[r + R_ACC_CANDIDATE]! += candidateWeight;
  ints[r + R_MATCHED]! += slot.substantive;
  ints[r] = stamp;
  floats[r + R_BEST] = sim;
}

/**
 * An updating slot either walks its postings or, when fewer, checks each found candidate's own
 * tokens against the slot's spellings ("john" has 10^4 postings, "John Smith" finds 20 Smiths).
 * Joined slots always walk postings: joined spellings are not stored as name tokens.
 */
function updateByCandidates(index: MatchIndex, buf: SearchBuffers, slot: Slot, stamp: number, postings: number): boolean {
  const { names, vocab } = index;
  const count = buf.touched.length;
  if (slot.joined || count * AVERAGE_NAME_TOKENS >= postings) return false;
  const sims = buf.tokenSims;
  for (const e of slot.token.expansions) sims[e.token] = e.sim;
  for (let k = 0; k < count; k++) {
    const n = buf.touched.get(k);
    let best = 0;
    let token = 0;
    for (let p = names.tokenStart[n]!; p < names.tokenStart[n + 1]!; p++) {
      const s = sims[names.tokens[p]!]!;
      if (s > best) {
        best = s;
        token = names.tokens[p]!;
      }
    }
    if (best > 0) credit(buf, n, stamp, slot, best, vocab.idf[token]! * best);
  }
  for (const e of slot.token.expansions) sims[e.token] = 0;
  return true;
}

const AVERAGE_NAME_TOKENS = 4;

/**
 * A slot stops reading further low-similarity spellings once it has read this many postings: at
 * production scale a common given name has dozens of fuzzy spellings with 10^5 names between them,
 * and the weakest add time but no matches that could reach a threshold.
 */
export const SLOT_POSTINGS_BUDGET = 150_000;
const BUDGET_EXEMPT_SIM = 0.9;

/** Candidate names in pre-score order, at most `candidateLimit`. */
export function retrieve(index: MatchIndex, plan: QueryPlan, options: RetrieveOptions): number[] {
  if (plan.totalWeight <= 0) return [];
  const buf = buffersOf(index.scratch);
  const slots = planSlots(plan, options.threshold);
  const first = reserveStamps(index.scratch, buf, slots.length);
  const starts = index.vocab.postings.start;
  buf.touched.length = 0;
  for (let k = 0; k < slots.length; k++) {
    const slot = slots[k]!;
    const stamp = first + k;
    if (!slot.creates) {
      let total = 0;
      for (const e of slot.token.expansions) total += starts[e.token + 1]! - starts[e.token]!;
      if (updateByCandidates(index, buf, slot, stamp, total)) continue;
    }
    walkPostings(index, buf, slot, stamp, first, options.sourceMask);
  }
  return select(index, plan, options, buf.touched.length);
}

/**
 * The hot loop: one slot's postings, first hits creating candidates (creating slots only) and
 * every hit crediting the slot's best similarity. Written out flat, no calls per posting.
 */
function walkPostings(index: MatchIndex, buf: SearchBuffers, slot: Slot, stamp: number, first: number, mask: number): void {
  const { vocab, names } = index;
  const { ints, floats, touched } = buf;
  const starts = vocab.postings.start;
  const postings = vocab.postings.values;
  const sources = names.source;
  const creates = slot.creates;
  const weight = slot.weight;
  const substantive = slot.substantive;
  let read = 0;
  for (const e of slot.token.expansions) {
    if (read > SLOT_POSTINGS_BUDGET && e.sim < BUDGET_EXEMPT_SIM) break;
    const sim = e.sim;
    const candidateWeight = vocab.idf[e.token]! * sim;
    const begin = starts[e.token]!;
    const end = starts[e.token + 1]!;
    read += end - begin;
    for (let p = begin; p < end; p++) {
      const n = postings[p]!;
      const r = n * RECORD;
      const seen = ints[r]!;
      if (seen === stamp) {
        const best = floats[r + R_BEST]!;
        if (sim > best) {
          floats[r + R_ACC_QUERY]! += weight * (sim - best);
          floats[r + R_BEST] = sim;
        }
        continue;
      }
      if (seen < first) {
        if (!creates || !((mask >>> sources[n]!) & 1)) continue;
        floats[r + R_ACC_QUERY] = weight * sim;
        floats[r + R_ACC_CANDIDATE] = candidateWeight;
        ints[r + R_MATCHED] = substantive;
        touched.push(n);
      } else {
        floats[r + R_ACC_QUERY]! += weight * sim;
        floats[r + R_ACC_CANDIDATE]! += candidateWeight;
        ints[r + R_MATCHED]! += substantive;
      }
      ints[r] = stamp;
      floats[r + R_BEST] = sim;
    }
  }
}

const BINS = 256;

/**
 * Keeps candidates that clear both gates (query share, estimate floor) and returns the best
 * `candidateLimit` by estimate. A histogram finds the cut-off so that common-name queries, which
 * touch 10^5 names at production scale, never sort them all.
 */
function select(index: MatchIndex, plan: QueryPlan, options: RetrieveOptions, count: number): number[] {
  const buf = buffersOf(index.scratch);
  const minShare = minQueryShare(options.threshold);
  const preFloor = options.threshold - PRESCORE_MARGIN;
  const span = Math.max(1e-6, 1 - preFloor);
  const hist = new Uint32Array(BINS);
  const { ints, floats, kept } = buf;
  const needTwo = plan.substantive >= 2;
  kept.length = 0;
  for (let k = 0; k < count; k++) {
    const n = buf.touched.get(k);
    const r = n * RECORD;
    if (needTwo && ints[r + R_MATCHED]! < 2) continue;
    const q = Math.min(1, floats[r + R_ACC_QUERY]! / plan.totalWeight);
    if (q < minShare) continue;
    const weight = index.names.weightSum[n]!;
    const c = Math.min(1, floats[r + R_ACC_CANDIDATE]! / Math.max(1e-6, weight));
    const estimate = combineCoverage(q, plan.totalWeight, c, weight);
    if (estimate < preFloor) continue;
    floats[r + R_ESTIMATE] = estimate;
    kept.push(n);
    hist[Math.min(BINS - 1, Math.floor(((estimate - preFloor) / span) * BINS))]!++;
  }
  let cutoff = 0;
  if (kept.length > options.candidateLimit) {
    let above = 0;
    for (cutoff = BINS - 1; cutoff > 0; cutoff--) {
      above += hist[cutoff]!;
      if (above >= options.candidateLimit) break;
    }
  }
  // Everything above the cut-off bin, then from the cut-off bin in retrieval order (deterministic)
  // until the limit: a bin can hold 10^4 equal estimates that must not all be sorted.
  const chosen: number[] = [];
  const tied: number[] = [];
  for (let k = 0; k < kept.length; k++) {
    const n = kept.get(k);
    const bin = Math.min(BINS - 1, Math.floor(((floats[n * RECORD + R_ESTIMATE]! - preFloor) / span) * BINS));
    if (bin > cutoff || cutoff === 0) chosen.push(n);
    else if (bin === cutoff && chosen.length + tied.length < options.candidateLimit) tied.push(n);
  }
  for (const n of tied) if (chosen.length < options.candidateLimit) chosen.push(n);
  chosen.sort((a, b) => floats[b * RECORD + R_ESTIMATE]! - floats[a * RECORD + R_ESTIMATE]! || a - b);
  if (chosen.length > options.candidateLimit) chosen.length = options.candidateLimit;
  return chosen;
}
