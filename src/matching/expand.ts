import { abjadMatches } from "./abjad";
import { PARTICLES } from "./data/noise-words";
import type { MatchIndex } from "./index";
import { phoneticKeys } from "./phonetic";
import { buffersOf } from "./scratch";
import { abjadSkeletons, looseForm, skeleton } from "./similarity";
import { compareTokens, type TokenForm } from "./token-match";
import { trigramCodes } from "./vocab";
import { ABJAD_SIM, fuzzyCredit, MAX_EXPANSIONS, NICKNAME_SIM, PHONETIC_BASE_FLOOR, PHONETIC_LIFT, PHONETIC_SIM, WEIGHT_SPELLING_SIM } from "./weights";

/** Why two tokens were taken as the same name part. */
export type MatchKind = "exact" | "fuzzy" | "phonetic" | "transliteration" | "nickname" | "initial";

export interface Expansion {
  readonly token: number;
  readonly sim: number;
  readonly kind: MatchKind;
}

export interface ExpandOptions {
  readonly trigramFloor: number;
  readonly phonetic: boolean;
  readonly nicknames: boolean;
  readonly exactOnly: boolean;
}

export function vocabForm(index: MatchIndex, t: number): TokenForm {
  return { text: index.vocab.strings[t]!, loose: index.vocab.loose[t]!, abjad: index.vocab.abjad[t] === 1 };
}

export function queryForm(text: string, abjad: boolean): TokenForm {
  return { text, loose: looseForm(text), abjad };
}

function offer(found: Map<number, Expansion>, token: number, sim: number, kind: Expansion["kind"]): void {
  const prev = found.get(token);
  if (!prev || prev.sim < sim) found.set(token, { token, sim, kind });
}

/** Vocabulary tokens sharing at least `floor` of the query token's trigrams. */
function trigramNeighbours(index: MatchIndex, text: string, floor: number): number[] {
  const { vocab } = index;
  const buffers = buffersOf(index.scratch);
  const counts = buffers.gramCounts;
  const touched = buffers.gramTouched;
  touched.length = 0;
  const codes = trigramCodes(text);
  for (const code of codes) {
    const end = vocab.grams.start[code + 1]!;
    for (let p = vocab.grams.start[code]!; p < end; p++) {
      const t = vocab.grams.values[p]!;
      const seen = counts[t]!;
      counts[t] = seen + 1;
      if (seen === 0) touched.push(t);
    }
  }
  const needed = Math.max(1, Math.ceil(floor * codes.length));
  const maxDiff = Math.max(2, text.length >> 1);
  const passing: number[] = [];
  const byShared = new Uint32Array(codes.length + 2);
  const lengths = vocab.lengths;
  const length = Math.min(255, text.length);
  for (let k = 0; k < touched.length; k++) {
    const t = touched.get(k);
    const shared = counts[t]!;
    if (shared >= needed && Math.abs(lengths[t]! - length) <= maxDiff) {
      passing.push(t);
      byShared[Math.min(shared, codes.length + 1)]!++;
    } else counts[t] = 0;
  }
  // Verify the tokens sharing the most trigrams first, at most VERIFY_LIMIT of them: a common
  // prefix or suffix ("abdul-", "-evich") can put thousands of tokens over the floor, nearly all
  // of them unrelated. Ties at the cut-off share as many trigrams; the closest in length go first.
  let minShared = needed;
  let above = 0;
  if (passing.length > VERIFY_LIMIT) {
    for (minShared = codes.length + 1; minShared > needed; minShared--) {
      if (above + byShared[minShared]! >= VERIFY_LIMIT) break;
      above += byShared[minShared]!;
    }
  }
  const out: number[] = [];
  const tied: number[] = [];
  for (const t of passing) {
    const shared = counts[t]!;
    if (shared > minShared || (shared === minShared && passing.length <= VERIFY_LIMIT)) out.push(t);
    else if (shared === minShared) tied.push(t);
    counts[t] = 0;
  }
  if (tied.length > 0) {
    const gap = (t: number) => Math.abs(lengths[t]! - length);
    tied.sort((a, b) => gap(a) - gap(b) || a - b);
    for (let k = 0; k < tied.length && out.length < VERIFY_LIMIT; k++) out.push(tied[k]!);
  }
  return out;
}

const VERIFY_LIMIT = 300;
/**
 * A joined pair of words that is not the article and a name ("Shuai Li", "Li Ma", "Eli Lie") reads
 * as one consonant form across scripts only when that form has 5 letters or more (as folded: ش, خ,
 * ذ count 2). Two short romanised words joined leave so much unwritten that 3-4 letters fit by
 * chance: سهيل, الام, الله, جان. In the real lists, the cross-script pairs that need a join and have
 * fewer letters are nearly all the article and a name ("al Assad" = الاسد), which "after-particle"
 * (query.ts joinsArticle) keeps.
 */
const MIN_JOINED_ABJAD_LETTERS = 5;

/** How a query token came to be: one word, two words joined, or an article joined to the next word. */
export type Joined = false | "pair" | "after-particle";

/**
 * Whether a joined query token may not be read as this consonant form across scripts (`abjadText`
 * is the abjad side of the pair, whichever side that is). Retrieval and scoring both ask, so a
 * name found through another word does not get the join back in scoring.
 */
export function joinTooShortAcross(joined: Joined, abjadText: string): boolean {
  return joined === "pair" && abjadText.length < MIN_JOINED_ABJAD_LETTERS;
}

/**
 * The vocabulary tokens a query token may stand for, best first: exact spelling, fuzzy neighbours
 * (trigram floor, then similarity), the same transliteration-folded spelling, phonetic keys,
 * consonant transliterations across scripts, and given-name equivalents. `q` is the query token's
 * form (queryForm), which the caller keeps for scoring.
 */
export function expandToken(index: MatchIndex, q: TokenForm, options: ExpandOptions, joined: Joined): Expansion[] {
  const { text, abjad } = q;
  const { vocab } = index;
  const found = new Map<number, Expansion>();
  const exact = vocab.ids.get(text);
  if (exact !== undefined) offer(found, exact, 1, "exact");
  if (options.exactOnly || text.length < 2) return [...found.values()];
  const consider = (t: number): void => {
    if (found.has(t)) return;
    const c = compareTokens(q, vocabForm(index, t));
    if (c.sim > 0) offer(found, t, c.sim, c.kind);
  };
  // A joined pair ("nasr allah") is looked up by spelling only: its parts are already expanded
  // fuzzily one by one, and scoring re-pairs them, so the costly trigram search adds nothing.
  if (!joined) for (const t of trigramNeighbours(index, text, options.trigramFloor)) consider(t);
  for (const t of vocab.looseIds.get(q.loose)) consider(t);
  if (options.phonetic && !joined) {
    for (const key of phoneticKeys(text)) {
      for (const t of vocab.phonetic.get(key)) {
        const c = compareTokens(q, vocabForm(index, t));
        if (c.kind === "initial" || c.base < PHONETIC_BASE_FLOOR) continue;
        const lifted = Math.min(PHONETIC_SIM, fuzzyCredit(c.base) + PHONETIC_LIFT);
        if (lifted > c.sim) offer(found, t, lifted, "phonetic");
        else offer(found, t, c.sim, c.kind);
      }
    }
  }
  // Across scripts only: two Latin spellings with the same consonants are not evidence enough. A
  // token an exact, loose or phonetic match already credited as much is not checked again.
  const transliteration = (t: number, abjadText: string, latinText: string): void => {
    if ((found.get(t)?.sim ?? 0) >= ABJAD_SIM || joinTooShortAcross(joined, abjadText)) return;
    if (abjadMatches(abjadText, latinText)) offer(found, t, ABJAD_SIM, "transliteration");
  };
  if (abjad) {
    // The abjad side is the query's own token here, so a join too short across scripts skips all keys.
    if (!joinTooShortAcross(joined, text)) {
      for (const key of abjadSkeletons(text)) for (const t of vocab.latinSkeletons.get(key)) transliteration(t, text, vocab.strings[t]!);
    }
  } else {
    for (const t of vocab.abjadSkeletons.get(skeleton(text))) transliteration(t, vocab.strings[t]!, text);
  }
  if (options.nicknames && !joined) {
    for (const name of index.equivalents.get(text) ?? []) {
      // "Al" (Alexander) and "Ed" (Edward) must not become the particles al/ed.
      if (PARTICLES.has(name)) continue;
      const t = vocab.ids.get(name);
      if (t !== undefined) offer(found, t, NICKNAME_SIM, "nickname");
    }
  }
  const list = [...found.values()].sort((a, b) => b.sim - a.sim || a.token - b.token);
  return list.length > MAX_EXPANSIONS ? list.slice(0, MAX_EXPANSIONS) : list;
}

/**
 * Rarity weight of a query token: that of its spelling in the lists, lowered to the commonest close
 * spelling ("Mohamad" weighs what "Mohammad" weighs); a token unknown to the lists counts as rare.
 */
export function queryTokenWeight(index: MatchIndex, expansions: readonly Expansion[]): number {
  let weight = Number.POSITIVE_INFINITY;
  for (const e of expansions) {
    const spelling = e.kind === "exact" || ((e.kind === "fuzzy" || e.kind === "transliteration") && e.sim >= WEIGHT_SPELLING_SIM);
    if (spelling) weight = Math.min(weight, index.vocab.idf[e.token]!);
  }
  return Number.isFinite(weight) ? weight : index.vocab.maxIdf;
}
