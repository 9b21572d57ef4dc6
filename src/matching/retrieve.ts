import { type MatchIndex, tokenWeight } from "./index";
import { isPatronymic, TOKEN_NOISE } from "./normalise";
import type { Expansion } from "./expand";
import type { Csr, GrowableU32 } from "./growable";
import type { QueryPlan, QueryToken } from "./query";
import { buffersOf, nextMark, R_ACC_CANDIDATE, R_ACC_QUERY, R_BEST, RECORD, type SearchBuffers } from "./scratch";
import { combineCoverage, isSubstantive, minQueryShare, spellsNoiseWord } from "./score";
import { INITIAL_WEIGHT, OMISSION_PENALTY, PATRONYMIC_WEIGHT } from "./weights";

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
 * Which query tokens must be looked up to find every name that could still reach the threshold.
 * A name that shares none of the "creating" tokens can only gather what the other tokens offer
 * (and the gate's free weight, see ShareGate); once that is too little, by weight (a name sharing only
 * "Mohammed" with "Mohammed Nasrallah" can never score high enough) or by count (a multi-token
 * query needs two tokens matched, see SINGLE_TOKEN_FACTOR), the other tokens' postings only add to
 * names already found. A token's postings are its spellings' postings and noise postings alike.
 * Two choices of creating tokens are tried, rarest-first and fewest-postings-first, and the one
 * reading fewer postings wins: in "Lin Al-Amid" the rare "amid" has 10^4 spellings' worth of
 * names at production scale, "lin" a few thousand, and either alone finds every possible match.
 */
function planSlots(index: MatchIndex, plan: QueryPlan, gate: ShareGate): Slot[] {
  const starts = index.vocab.postings.start;
  const postingsOf = (t: QueryToken) => {
    let total = t.noisePostings;
    for (const e of t.expansions) total += starts[e.token + 1]! - starts[e.token]!;
    return total;
  };
  const substantiveOf = (i: number) => (isSubstantive(plan.texts[i]!, plan.tokens[i]!.flags) ? 1 : 0);
  // Tokens looked up on their own; with those of a joined spelling that can match, the tokens that
  // can add anything to a name.
  const lookedUp = (t: QueryToken) => !(t.flags & TOKEN_NOISE) && t.expansions.length > 0;
  const reachable = plan.tokens.map(lookedUp);
  for (const j of plan.joined) {
    if (j.token.expansions.length === 0) continue;
    reachable[j.start] = !(plan.tokens[j.start]!.flags & TOKEN_NOISE);
    reachable[j.start + 1] = !(plan.tokens[j.start + 1]!.flags & TOKEN_NOISE);
  }
  let reachWeight = 0;
  let reachSubstantive = 0;
  plan.tokens.forEach((t, i) => {
    if (!reachable[i]) return;
    reachWeight += t.weight;
    reachSubstantive += substantiveOf(i);
  });
  const lookups = plan.tokens.map((t, i) => ({ t, i, postings: postingsOf(t) })).filter(({ t }) => lookedUp(t));
  const { required, free } = gate;
  const needTwo = plan.substantive >= 2;
  const choose = (order: typeof lookups): { set: Set<number>; cost: number } => {
    const set = new Set<number>();
    let remaining = reachWeight;
    let remainingSubstantive = reachSubstantive;
    let cost = 0;
    for (const { t, i, postings } of order) {
      const outOfReach = remaining + free < required || (needTwo && remainingSubstantive < 2);
      if (outOfReach && set.size > 0) break;
      set.add(i);
      cost += postings;
      remaining -= t.weight;
      remainingSubstantive -= substantiveOf(i);
    }
    return { set, cost };
  };
  const byWeight = choose([...lookups].sort((a, b) => b.t.weight - a.t.weight || a.i - b.i));
  const byCost = choose([...lookups].sort((a, b) => a.postings - b.postings || a.i - b.i));
  const creating = byCost.cost < byWeight.cost ? byCost.set : byWeight.set;
  const slots: Slot[] = lookups
    .sort((a, b) => b.t.weight - a.t.weight || a.i - b.i)
    .map(({ t, i }) => ({ token: t, weight: t.weight, creates: creating.has(i), substantive: substantiveOf(i), joined: false }));
  for (const j of plan.joined) {
    if (j.token.expansions.length === 0) continue;
    const weight = plan.tokens[j.start]!.weight + plan.tokens[j.start + 1]!.weight;
    const creates = creating.has(j.start) || creating.has(j.start + 1);
    slots.push({ token: j.token, weight, creates, substantive: substantiveOf(j.start) + substantiveOf(j.start + 1), joined: true });
  }
  // Creating slots first, so updating slots only ever touch names that already exist.
  return slots.sort((a, b) => Number(b.creates) - Number(a.creates));
}

/**
 * Adds one slot's best query credit (query weight × similarity) to the record of the found name
 * at `place` (first hit of the slot, or a better one), with `count` substantive tokens matched on a
 * first hit. Returns whether the slot's best for the name is now `amount`.
 */
function credit(buf: SearchBuffers, place: number, stamp: number, amount: number, count: number, candidateWeight: number): boolean {
  const r = place * RECORD;
  const { ints, floats } = buf;
  if (ints[r] === stamp) {
    const best = floats[r + R_BEST]!;
    if (amount <= best) return false;
    floats[r + R_ACC_QUERY]! += amount - best;
    floats[r + R_BEST] = amount;
    return true;
  }
  floats[r + R_ACC_QUERY]! += amount;
  floats[r + R_ACC_CANDIDATE]! += candidateWeight;
  buf.matched[place]! += count;
  ints[r] = stamp;
  floats[r + R_BEST] = amount;
  return true;
}

/**
 * What a hit of `slot` through spelling `token` (similarity `sim`) where the listed name has it as a
 * noise word (a legal-form or title word) can add in scoring, bounded as the gates need it:
 * - on the query's side, the slot's weight × similarity like any hit, except for an initial ("Y"
 *   against the "y" of "y cia"), which scoring credits only up to the smaller weight and at most
 *   INITIAL_WEIGHT, charging the rest of the query token as unmatched;
 * - as a substantive token matched, only where scoring may read the subject's word as that noise
 *   word (spellsNoiseWord), so that it is not one of the subject's substantive tokens: a noise word
 *   never counts as a listed substantive token, and a looser likeness ("Yu" ~ the "you" of a
 *   Chinese legal form) leaves the subject's word a substantive token that is not matched.
 */
function noiseHit(index: MatchIndex, slot: Slot, token: number, sim: number): { amount: number; count: number; candidateWeight: number } {
  const candidate = noiseWeight(index, token);
  const queryLength = slot.token.text.length;
  const length = index.vocab.lengths[token]!;
  const initial = sim < 1 && (queryLength === 1 || length === 1);
  const weight = initial ? Math.min(INITIAL_WEIGHT, slot.weight, candidate) : slot.weight;
  return { amount: weight * sim, count: spellsNoiseWord(sim, queryLength, length) ? slot.substantive : 0, candidateWeight: candidate * sim };
}

/**
 * Credits found names with the slot's best spelling among their own tokens (noise words included,
 * credited on the name's side at their noise weight, as the walks credit noise postings): the
 * names at the places listed in `places`, or with `places` null the first `count` names found. With `track`
 * (some slots share a spelling, see twinSlots) the walks' rule holds here too: a name is not
 * credited through the token another slot already used for it, unless the name repeats it.
 * Deferred slots run after every walk, so the rule applies to any slot of a family, not only to
 * the later ones: whichever slot comes second skips the shared token.
 */
function creditExisting(index: MatchIndex, buf: SearchBuffers, slot: Slot, stamp: number, places: GrowableU32 | null, count: number, track: boolean): void {
  const { names, vocab } = index;
  const { tokenSims: sims, touched, ints, via } = buf;
  // Whether a name may have one of the slot's spellings as a noise word: nearly never, and then
  // the flags of its tokens, a further memory read per name, are not needed.
  const noisy = slot.token.noisePostings > 0;
  for (const e of slot.token.expansions) sims[e.token] = e.sim;
  for (let k = 0; k < count; k++) {
    const place = places === null ? k : places.get(k);
    const n = touched.get(place);
    // A name this slot already credited (its walk, then creditFound) may only improve, as in the walk.
    const used = track && ints[place * RECORD] !== stamp && !names.repeats[n] ? via[n]! : -1;
    let best = 0;
    let token = 0;
    let matched = slot.substantive;
    let candidateWeight = 0;
    for (let p = names.tokenStart[n]!; p < names.tokenStart[n + 1]!; p++) {
      const t = names.tokens[p]!;
      const s = sims[t]!;
      if (s === 0 || t === used) continue;
      if (noisy && names.tokenFlags[p]! & TOKEN_NOISE) {
        const hit = noiseHit(index, slot, t, s);
        // The best credit (the first of equal ones, as the walks keep it), or an equal one that counts more.
        if (hit.amount > best || (hit.amount === best && hit.count > matched)) {
          best = hit.amount;
          token = t;
          matched = hit.count;
          candidateWeight = hit.candidateWeight;
        }
      } else if (slot.weight * s > best || (slot.weight * s === best && slot.substantive > matched)) {
        best = slot.weight * s;
        token = t;
        matched = slot.substantive;
        candidateWeight = vocab.idf[t]! * s;
      }
    }
    if (best > 0 && credit(buf, place, stamp, best, matched, candidateWeight) && track) via[n] = token;
  }
  for (const e of slot.token.expansions) sims[e.token] = 0;
}

/** A slot whose names are credited from their own tokens after the walks (see retrieve). */
interface DeferredSlot {
  readonly slot: Slot;
  readonly stamp: number;
}

/**
 * The places of the found names that could still pass select()'s share and two-token gates if
 * every deferred slot matched them fully: only these are worth the deferred slots' per-name token
 * checks. (The estimate gate is left to select: a particle's spellings include rare tokens, so its
 * bound on the name's side is loose, and reading each name's weight here costs more than it saves.)
 */
function survivors(buf: SearchBuffers, plan: QueryPlan, gate: ShareGate, deferred: readonly DeferredSlot[]): GrowableU32 {
  const { floats, matched, touched } = buf;
  const out = buf.survivors;
  out.length = 0;
  let weight = 0;
  let substantive = 0;
  for (const d of deferred) {
    weight += d.slot.weight;
    substantive += d.slot.substantive;
  }
  const needTwo = plan.substantive >= 2;
  // A hair of tolerance: float32 sums must never drop a name the gate would keep.
  const minAcc = gate.required - gate.free - weight - 1e-4;
  for (let k = 0; k < touched.length; k++) {
    if (needTwo && matched[k]! + substantive < 2) continue;
    if (floats[k * RECORD + R_ACC_QUERY]! < minAcc) continue;
    out.push(k);
  }
  return out;
}

const AVERAGE_NAME_TOKENS = 4;

/**
 * What checking one found name's own tokens against a slot's spellings costs, in postings an
 * updating walk reads in the same time. The check reads the name's token run from a random place
 * in a table of 10^6 names (about 80 ns at production scale, plus the survivors pass); an updating
 * walk reads its postings in order and only the one-byte mark of each name (3–6 ns a posting).
 */
const DEFERRED_CHECK_COST = 16;

/**
 * A slot stops reading further low-similarity spellings once it has read this many postings: at
 * production scale a common given name has dozens of fuzzy spellings with 10^5 names between them,
 * and the weakest add time but no matches that could reach a threshold.
 */
export const SLOT_POSTINGS_BUDGET = 150_000;
const BUDGET_EXEMPT_SIM = 0.9;

/**
 * How heavy a listed name may be and still pass select()'s estimate gate. A name credited by a
 * spelling worth `credit` (rarity × similarity) on the candidate side, plus at most the best the
 * other slots could add, keeps the rest of its weight unmatched; past this weight its estimate is
 * below the pre-score floor however the rest of the query matches. Posting lists are ordered
 * lightest name first, so a walk stops at the first heavier name and still finds every candidate
 * the gate would keep. A creating slot after the first is bounded tighter: a name it finds new
 * was not found by the creating slots before it, so their query tokens stay unmatched for it
 * ("Ahmed Ahmad Hasim": names under "ahmed" without a Hasim must be nearly all Ahmed and Ahmad).
 * Names those earlier slots found are credited by this slot separately (creditExisting).
 */
interface WeightCut {
  readonly queryWeight: number;
  /** (1 − floor) / (floor × OMISSION_PENALTY); Infinity when the floor is 0 or below. */
  readonly slack: number;
  /** Per slot: the most its spellings can credit on the candidate side. */
  readonly credits: readonly number[];
  readonly totalCredit: number;
  /** Per slot: credits and query weights of the slots after it. */
  readonly laterCredit: readonly number[];
  readonly laterWeight: readonly number[];
}

function weightCut(index: MatchIndex, plan: QueryPlan, slots: readonly Slot[], threshold: number): WeightCut {
  const idf = index.vocab.idf;
  const credits = slots.map((slot) => {
    let best = 0;
    for (const e of slot.token.expansions) best = Math.max(best, idf[e.token]! * e.sim);
    return best;
  });
  const laterCredit = new Array<number>(slots.length).fill(0);
  const laterWeight = new Array<number>(slots.length).fill(0);
  for (let k = slots.length - 2; k >= 0; k--) {
    laterCredit[k] = laterCredit[k + 1]! + credits[k + 1]!;
    laterWeight[k] = laterWeight[k + 1]! + slots[k + 1]!.weight;
  }
  const floor = threshold - PRESCORE_MARGIN;
  return {
    queryWeight: plan.totalWeight,
    slack: floor > 0 ? (1 - floor) / (floor * OMISSION_PENALTY) : Number.POSITIVE_INFINITY,
    credits,
    totalCredit: credits.reduce((x, y) => x + y, 0),
    laterCredit,
    laterWeight,
  };
}

/** Heaviest name slot k may still credit usefully: every other slot may add its best. */
function heaviestCredited(cut: WeightCut, k: number, credit: number): number {
  const a = credit + cut.totalCredit - cut.credits[k]!;
  return a + ((cut.queryWeight + a) / 2) * cut.slack;
}

/** Heaviest name creating slot k may add as a new candidate: only slot k and later slots can match it. */
function heaviestCreated(cut: WeightCut, k: number, slot: Slot, e: Expansion, credit: number): number {
  const a = credit + cut.laterCredit[k]!;
  const matchedQuery = Math.min(cut.queryWeight, slot.weight * e.sim + cut.laterWeight[k]!);
  return a + ((matchedQuery + a) / 2) * cut.slack - (cut.queryWeight - matchedQuery);
}

/** End of the part of one posting list postings[begin, end) whose names weigh at most `maxWeight`. */
function cutEnd(index: MatchIndex, postings: Uint32Array, begin: number, end: number, maxWeight: number): number {
  if (!Number.isFinite(maxWeight)) return end;
  const weights = index.names.weightSum;
  // Float32 sums against a float64 bound: a hair of tolerance so rounding never cuts a name the gate keeps.
  const limit = maxWeight * (1 + 1e-5) + 1e-5;
  if (end - begin < 16 || weights[postings[end - 1]!]! <= limit) return end;
  let lo = begin;
  let hi = end;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (weights[postings[mid]!]! <= limit) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Where one slot's walk stops in each expansion's postings and noise postings. */
interface SlotEnds {
  readonly ends: number[];
  /** Null when no spelling of the slot is ever a noise word (nearly always). */
  readonly noiseEnds: number[] | null;
  /** The names found before this slot need its credit from their own tokens (see slotEnds). */
  readonly creditFound: boolean;
}

/** Candidate-side weight of a vocabulary token where a listed name has it as a noise word. */
function noiseWeight(index: MatchIndex, token: number): number {
  return tokenWeight(index.vocab.idf[token]!, TOKEN_NOISE, index.vocab.lengths[token]!);
}

/**
 * Where each of slot k's posting lists stops (see WeightCut). A creating slot may stop earlier for
 * new names; the `found` names of earlier slots then need its credit from their own tokens
 * (`creditFound`: creditExisting), which pays only when it saves more postings than that costs.
 * Joined spellings are not name tokens, so joined slots keep the plain bound. Noise postings are
 * cut alike, with what such a name's noise word credits on its side (a tenth of its rarity).
 */
function slotEnds(index: MatchIndex, cut: WeightCut, k: number, slot: Slot, found: number): SlotEnds {
  const { start, values } = index.vocab.postings;
  const { start: noiseStart, values: noiseValues } = index.vocab.noisePostings;
  const idf = index.vocab.idf;
  const expansions = slot.token.expansions;
  const ends = expansions.map((e) => cutEnd(index, values, start[e.token]!, start[e.token + 1]!, heaviestCredited(cut, k, idf[e.token]! * e.sim)));
  // Most spellings are never a noise word (305 of the real lists' 38,714 tokens are): no lists to cut.
  const noiseEnds = slot.token.noisePostings > 0
    ? expansions.map((e) => cutEnd(index, noiseValues, noiseStart[e.token]!, noiseStart[e.token + 1]!, heaviestCredited(cut, k, noiseWeight(index, e.token) * e.sim)))
    : null;
  if (!slot.creates || slot.joined) return { ends, noiseEnds, creditFound: false };
  const tighter = expansions.map((e, i) => cutEnd(index, values, start[e.token]!, ends[i]!, heaviestCreated(cut, k, slot, e, idf[e.token]! * e.sim)));
  const noiseTighter =
    noiseEnds && expansions.map((e, i) => cutEnd(index, noiseValues, noiseStart[e.token]!, noiseEnds[i]!, heaviestCreated(cut, k, slot, e, noiseWeight(index, e.token) * e.sim)));
  let saved = 0;
  for (let i = 0; i < ends.length; i++) saved += ends[i]! - tighter[i]! + (noiseEnds && noiseTighter ? noiseEnds[i]! - noiseTighter[i]! : 0);
  if (saved > 0 && (found === 0 || saved > found * AVERAGE_NAME_TOKENS)) return { ends: tighter, noiseEnds: noiseTighter, creditFound: found > 0 };
  return { ends, noiseEnds, creditFound: false };
}

/**
 * The query-share gate: a name is kept only if the query weight retrieval credited it, plus
 * `free`, reaches `required`. minQueryShare bounds the score from the query's side, every matched
 * pair at the query token's weight and the rest of the query unmatched; to stay a bound on what
 * scoring can credit it must also see
 * - the subject's own noise words (legal forms, titles: "LLC", "Sheikh"): retrieval never looks
 *   them up, but scoring pairs them with the listed name's, and charges nothing for them unmatched
 *   ("Acme Trading Public Joint Stock Company": the legal form is a tenth of the subject's weight,
 *   and the listed "Acme Public Joint Stock Company" matches it). They count as matched: `free`.
 * - patronymics: unmatched, scoring charges 40% of their weight (PATRONYMIC_WEIGHT), so the
 *   requirement is taken of a query weight with only that 40% ("Ivan Aleksandrovich Petrov" is
 *   "Ivan Petrov" at 0.93). Counting the other 60% as matched would bound it too, but would let
 *   "La Al Anatolyevich" through on any name with "al" (20 ms at production scale, not 3).
 */
interface ShareGate {
  readonly free: number;
  /** The query weight the share is taken of, and the least share (minQueryShare). */
  readonly weight: number;
  readonly minShare: number;
  /** minShare × weight. */
  readonly required: number;
}

function shareGate(plan: QueryPlan, threshold: number): ShareGate {
  let free = 0;
  let weight = plan.totalWeight;
  for (const t of plan.tokens) {
    if (t.flags & TOKEN_NOISE) free += t.weight;
    else if (isPatronymic(t.text)) weight -= t.weight * (1 - PATRONYMIC_WEIGHT);
  }
  const minShare = minQueryShare(threshold);
  return { free, weight, minShare, required: minShare * weight };
}

/** Candidate names in pre-score order, at most `candidateLimit`. */
export function retrieve(index: MatchIndex, plan: QueryPlan, options: RetrieveOptions): number[] {
  if (plan.totalWeight <= 0) return [];
  const buf = buffersOf(index.scratch);
  const gate = shareGate(plan, options.threshold);
  const slots = planSlots(index, plan, gate);
  const cut = weightCut(index, plan, slots, options.threshold);
  const mark = nextMark(index.scratch, buf);
  const starts = index.vocab.postings.start;
  const noiseStarts = index.vocab.noisePostings.start;
  buf.touched.length = 0;
  // An updating slot either walks its postings or, when fewer, is deferred: after the walks, the
  // found names that can still pass the gates check their own tokens against its spellings
  // ("john" has 10^4 postings, "John Smith" finds 20 Smiths; the particle "al" has 10^5, and of
  // the 40,000 names "Al-Saudi" finds only those that also have a Mohammed are worth checking).
  // Joined slots always walk: joined spellings are not name tokens.
  const deferred: DeferredSlot[] = [];
  const twins = twinSlots(slots);
  const tracking = twins !== null;
  for (let k = 0; k < slots.length; k++) {
    const slot = slots[k]!;
    // A record is written whole when its name is found (scratch.ts), so a slot's stamp only has to
    // differ from the other slots' of this search.
    const stamp = k + 1;
    const found = buf.touched.length;
    const { ends, noiseEnds, creditFound } = slotEnds(index, cut, k, slot, found);
    if (!slot.creates && !slot.joined) {
      let total = 0;
      slot.token.expansions.forEach((e, i) => {
        total += ends[i]! - starts[e.token]! + (noiseEnds ? noiseEnds[i]! - noiseStarts[e.token]! : 0);
      });
      if (found * DEFERRED_CHECK_COST < total) {
        deferred.push({ slot, stamp });
        continue;
      }
    }
    const twin = twins?.[k] === true;
    const read = walkPostings(index, buf, slot, stamp, mark, options.sourceMask, index.vocab.postings, false, ends, tracking, twin, 0);
    if (noiseEnds) walkPostings(index, buf, slot, stamp, mark, options.sourceMask, index.vocab.noisePostings, true, noiseEnds, tracking, twin, read);
    if (creditFound) creditExisting(index, buf, slot, stamp, null, found, tracking);
  }
  if (deferred.length === 0) return select(index, buf, plan, options, gate, null, buf.touched.length);
  const places = survivors(buf, plan, gate, deferred);
  for (const d of deferred) creditExisting(index, buf, d.slot, d.stamp, places, places.length, tracking);
  return select(index, buf, plan, options, gate, places, places.length);
}

/**
 * Query tokens of one family ("Muhmmad Muhammad Budarina") share spellings, so both reach a name
 * through its one "Muhammad": counted twice, that name passes the two-token gate and the share
 * gate with a single name part, and 10^4 such names at production scale go on to be sorted and
 * scored for nothing. When slots share a spelling, every walk notes through which token it last
 * credited each name (`via`), and a slot that shares a spelling with an earlier one does not
 * credit a name through the token already used for it, unless the name repeats that token.
 * Returns null when no two slots share a spelling, else per slot whether it must check.
 */
function twinSlots(slots: readonly Slot[]): boolean[] | null {
  const seen = new Set<number>();
  const twins = slots.map((slot) => {
    if (slot.joined) return false;
    const twin = slot.token.expansions.some((e) => seen.has(e.token));
    for (const e of slot.token.expansions) seen.add(e.token);
    return twin;
  });
  return twins.includes(true) ? twins : null;
}

/**
 * The hot loop: one slot's postings, first hits creating candidates (creating slots only) and
 * every hit crediting the slot's best similarity. Written out flat, no calls per posting.
 * `ends[i]` is where expansion i's list stops (see weightCut). The name's mark, not its record,
 * says whether it was found before (see SearchBuffers). Walks `lists`, the postings or (`noise`)
 * the noise postings: a noise posting is credited like any other on the query's side (the
 * subject's word aligns with the name's legal-form or title word in scoring) and at the noise
 * weight on the name's. `read` is what the slot read before; returns it with this walk's.
 */
function walkPostings(
  index: MatchIndex,
  buf: SearchBuffers,
  slot: Slot,
  stamp: number,
  mark: number,
  mask: number,
  lists: Csr,
  noise: boolean,
  ends: readonly number[],
  track: boolean,
  checkTwin: boolean,
  read: number,
): number {
  const { vocab, names } = index;
  const { ints, floats, touched, matched, marks, places, via } = buf;
  const starts = lists.start;
  const postings = lists.values;
  const sources = names.source;
  const repeats = names.repeats;
  const creates = slot.creates;
  const weight = slot.weight;
  const substantive = slot.substantive;
  const expansions = slot.token.expansions;
  for (let x = 0; x < expansions.length; x++) {
    const e = expansions[x]!;
    if (read > SLOT_POSTINGS_BUDGET && e.sim < BUDGET_EXEMPT_SIM) break;
    const token = e.token;
    // What a hit credits: the query credit (R_BEST keeps the slot's best), the substantive tokens
    // matched on a first hit, and the name's side.
    let amount = weight * e.sim;
    let count = substantive;
    let candidateWeight = vocab.idf[token]! * e.sim;
    if (noise) ({ amount, count, candidateWeight } = noiseHit(index, slot, token, e.sim));
    const begin = starts[token]!;
    const end = ends[x]!;
    read += end - begin;
    for (let p = begin; p < end; p++) {
      const n = postings[p]!;
      if (marks[n] !== mark) {
        if (!creates || !((mask >>> sources[n]!) & 1)) continue;
        const place = touched.length;
        const r = place * RECORD;
        marks[n] = mark;
        places[n] = place;
        ints[r] = stamp;
        floats[r + R_BEST] = amount;
        floats[r + R_ACC_QUERY] = amount;
        floats[r + R_ACC_CANDIDATE] = candidateWeight;
        matched[place] = count;
        touched.push(n);
        if (track) via[n] = token;
        continue;
      }
      const place = places[n]!;
      const r = place * RECORD;
      if (ints[r] === stamp) {
        const best = floats[r + R_BEST]!;
        if (amount > best) {
          floats[r + R_ACC_QUERY]! += amount - best;
          floats[r + R_BEST] = amount;
          if (track) via[n] = token;
        }
        continue;
      }
      if (checkTwin && via[n] === token && !repeats[n]) continue;
      floats[r + R_ACC_QUERY]! += amount;
      floats[r + R_ACC_CANDIDATE]! += candidateWeight;
      matched[place]! += count;
      ints[r] = stamp;
      floats[r + R_BEST] = amount;
      if (track) via[n] = token;
    }
  }
  return read;
}

const BINS = 256;

/**
 * Keeps candidates that clear both gates (query share, estimate floor) and returns the best
 * `candidateLimit` by estimate. A histogram finds the cut-off so that common-name queries, which
 * touch 10^5 names at production scale, never sort them all. The share gate is a bound (ShareGate);
 * the estimate is rough by design, and charges the subject's noise words as unmatched as before.
 */
function select(index: MatchIndex, buf: SearchBuffers, plan: QueryPlan, options: RetrieveOptions, gate: ShareGate, places: GrowableU32 | null, count: number): number[] {
  const preFloor = options.threshold - PRESCORE_MARGIN;
  const span = Math.max(1e-6, 1 - preFloor);
  const hist = new Uint32Array(BINS);
  const { floats, kept, matched, estimates, touched } = buf;
  const needTwo = plan.substantive >= 2;
  kept.length = 0;
  for (let k = 0; k < count; k++) {
    const place = places === null ? k : places.get(k);
    const r = place * RECORD;
    if (needTwo && matched[place]! < 2) continue;
    const acc = floats[r + R_ACC_QUERY]!;
    if (Math.min(1, (acc + gate.free) / gate.weight) < gate.minShare) continue;
    const q = Math.min(1, acc / plan.totalWeight);
    const n = touched.get(place);
    const weight = index.names.weightSum[n]!;
    const c = Math.min(1, floats[r + R_ACC_CANDIDATE]! / Math.max(1e-6, weight));
    const estimate = combineCoverage(q, plan.totalWeight, c, weight);
    if (estimate < preFloor) continue;
    estimates[kept.length] = estimate;
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
    const bin = Math.min(BINS - 1, Math.floor(((estimates[k]! - preFloor) / span) * BINS));
    if (bin > cutoff || cutoff === 0) chosen.push(k);
    else if (bin === cutoff && chosen.length + tied.length < options.candidateLimit) tied.push(k);
  }
  for (const k of tied) if (chosen.length < options.candidateLimit) chosen.push(k);
  // Positions in kept, sorted by estimate, ties by name id; then the names themselves.
  chosen.sort((a, b) => estimates[b]! - estimates[a]! || kept.get(a) - kept.get(b));
  if (chosen.length > options.candidateLimit) chosen.length = options.candidateLimit;
  for (let i = 0; i < chosen.length; i++) chosen[i] = kept.get(chosen[i]!);
  return chosen;
}
