import { buildCsr, type Csr, GrowableU32, KeyedRows } from "./growable";
import { phoneticKeys } from "./phonetic";
import { abjadSkeletons, looseForm, skeleton } from "./similarity";

/**
 * The vocabulary of distinct name tokens and its lookup structures. Fuzzy matching runs against
 * the vocabulary (~10^5 tokens even at a million names), never against names directly.
 */
export interface Vocabulary {
  readonly size: number;
  readonly strings: readonly string[];
  readonly ids: ReadonlyMap<string, number>;
  /** Rarity weight per token: inverse document frequency over entities. */
  readonly idf: Float32Array;
  /** 1 when the token came from a script without written vowels (Arabic, Hebrew, Thai). */
  readonly abjad: Uint8Array;
  /** Trigram code → tokens containing it. */
  readonly grams: Csr;
  /** Distinct trigram count per token. */
  readonly gramCount: Uint8Array;
  /** Length of each token (capped at 255), read where touching the string would cost a cache miss. */
  readonly lengths: Uint8Array;
  /** Tokens by phonetic key. */
  readonly phonetic: KeyedRows;
  /**
   * Consonant skeletons, for transliterations across scripts: the abjad tokens under every skeleton a
   * Latin spelling of them may have (abjadSkeletons), the others under their own.
   */
  readonly abjadSkeletons: KeyedRows;
  readonly latinSkeletons: KeyedRows;
  /** Transliteration-folded spelling per token, and tokens by folded spelling. */
  readonly loose: readonly string[];
  readonly looseIds: KeyedRows;
  /** Token → names containing it (including joined spellings used only for retrieval), lightest names first (postings-order.ts). */
  readonly postings: Csr;
  /**
   * Token → names containing it as a noise word (part of a legal form or a title, flagged
   * TOKEN_NOISE there), lightest names first. Kept apart from `postings`: no query token that is
   * itself recognised as noise is looked up, but an unrecognised one ("Public Joint Stock Compamy",
   * "Promoil Liability") aligns with these words in scoring, so retrieval must credit it too.
   * Mostly empty: 305 of the real lists' 38,714 tokens, 20,724 postings.
   */
  readonly noisePostings: Csr;
  readonly maxIdf: number;
}

const GRAM_BASE = 37;
export const GRAM_SPACE = GRAM_BASE * GRAM_BASE * GRAM_BASE;

function charCode(c: number): number {
  if (c >= 97 && c <= 122) return c - 96;
  if (c >= 48 && c <= 57) return c - 21;
  return 0;
}

/** Distinct padded trigram codes of a token (" al", "ali", "li "). */
export function trigramCodes(token: string): number[] {
  const codes: number[] = [];
  const n = token.length;
  for (let i = -1; i < n - 1; i++) {
    const a = i < 0 ? 0 : charCode(token.charCodeAt(i));
    const b = charCode(token.charCodeAt(i + 1));
    const c = i + 2 < n ? charCode(token.charCodeAt(i + 2)) : 0;
    const code = (a * GRAM_BASE + b) * GRAM_BASE + c;
    if (!codes.includes(code)) codes.push(code);
  }
  return codes;
}

export interface VocabularyInput {
  strings: string[];
  ids: Map<string, number>;
  abjad: number[];
  /** Number of entities each token occurs in. */
  entityFrequency: number[];
  entityCount: number;
  postingToken: GrowableU32;
  postingName: GrowableU32;
  noisePostingToken: GrowableU32;
  noisePostingName: GrowableU32;
}

/** Tokens handled between two yields of vocabularySteps: about 20-30 µs of work each. */
const TOKENS_PER_STEP = 256;

/**
 * The vocabulary of an index's tokens, in steps: it yields every TOKENS_PER_STEP tokens, so a server
 * building an index beside its requests (watchlists/runtime.ts) can pause between them. runSteps
 * runs it whole.
 */
export function* vocabularySteps(input: VocabularyInput): Generator<void, Vocabulary> {
  const size = input.strings.length;
  const idf = new Float32Array(size);
  const n = Math.max(1, input.entityCount);
  for (let t = 0; t < size; t++) idf[t] = Math.log((n + 1) / (input.entityFrequency[t]! + 1)) + 1;
  const gramCount = new Uint8Array(size);
  const lengths = new Uint8Array(size);
  const gramRow = new GrowableU32(size * 8);
  const gramToken = new GrowableU32(size * 8);
  const phonetic = new KeyedRows();
  const abjadSkeletonRows = new KeyedRows();
  const latinSkeletonRows = new KeyedRows();
  const loose: string[] = new Array(size);
  const looseIds = new KeyedRows();
  for (let t = 0; t < size; t++) {
    const token = input.strings[t]!;
    const codes = trigramCodes(token);
    gramCount[t] = Math.min(255, codes.length);
    lengths[t] = Math.min(255, token.length);
    for (const code of codes) {
      gramRow.push(code);
      gramToken.push(t);
    }
    for (const key of phoneticKeys(token)) phonetic.add(key, t);
    if (input.abjad[t] === 1) for (const key of abjadSkeletons(token)) abjadSkeletonRows.add(key, t);
    else {
      const key = skeleton(token);
      if (key.length > 0) latinSkeletonRows.add(key, t);
    }
    loose[t] = looseForm(token);
    looseIds.add(loose[t]!, t);
    if (t % TOKENS_PER_STEP === TOKENS_PER_STEP - 1) yield;
  }
  yield;
  return {
    size,
    strings: input.strings,
    ids: input.ids,
    idf,
    abjad: Uint8Array.from(input.abjad),
    grams: buildCsr(GRAM_SPACE, gramRow, gramToken),
    gramCount,
    lengths,
    phonetic: phonetic.finish(),
    abjadSkeletons: abjadSkeletonRows.finish(),
    latinSkeletons: latinSkeletonRows.finish(),
    loose,
    looseIds: looseIds.finish(),
    postings: buildCsr(size, input.postingToken, input.postingName),
    noisePostings: buildCsr(size, input.noisePostingToken, input.noisePostingName),
    maxIdf: Math.log(n + 1) + 1,
  };
}
