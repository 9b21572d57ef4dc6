import { type Expansion, type ExpandOptions, expandToken, type Joined, queryForm, queryTokenWeight } from "./expand";
import { type MatchIndex, tokenWeight } from "./index";
import { exactKey, joinTokens, type NormalisedName, normaliseName, TOKEN_ABJAD, TOKEN_NOISE, TOKEN_PARTICLE } from "./normalise";
import type { CachedToken } from "./scratch";
import type { TokenForm } from "./token-match";

/** A query token with its vocabulary expansions and a cache of similarities computed while scoring. */
export interface QueryToken {
  readonly text: string;
  /** Whether the token is two adjacent words joined (expand.ts Joined). */
  readonly joined: Joined;
  readonly form: TokenForm;
  readonly flags: number;
  readonly weight: number;
  /**
   * The token's weight as a noise word (NOISE_WEIGHT of its rarity): what it weighs where scoring
   * reads it as the listed name's legal form or title it spells ("Compani", score.ts).
   */
  readonly noiseWeight: number;
  readonly expansions: readonly Expansion[];
  /**
   * Names posted under the expansions as a noise word (vocab.noisePostings): 0 for nearly every
   * token. Summed once with the expansions, so that retrieval does not read the noise rows of 48
   * random vocabulary tokens per query token to find them empty.
   */
  readonly noisePostings: number;
  /**
   * Vocabulary token → similarity (expansions, then direct comparisons made during scoring), built
   * by the first comparison: most query tokens are never scored (a name that matches nothing has no
   * candidates), and filling the map up front from up to 48 expansions was most of what planning a
   * query allocated.
   */
  sims: Map<number, Expansion | null> | null;
  /** Candidate token pairs read as one token → similarity (align's mergedSim), built on first use. */
  mergedSims: Map<number, number> | null;
}

/** Two adjacent query tokens written as one ("al qaida" → "alqaida"); covers tokens start, start+1. */
export interface JoinedQueryToken {
  readonly start: number;
  readonly token: QueryToken;
}

export interface QueryPlan {
  readonly raw: string;
  readonly name: NormalisedName;
  readonly tokens: readonly QueryToken[];
  readonly joined: readonly JoinedQueryToken[];
  readonly totalWeight: number;
  readonly exactKey: string;
  /** Per-token weights and texts, and the number of substantive tokens (not noise, particle, initial). */
  readonly weights: readonly number[];
  readonly texts: readonly string[];
  readonly substantive: number;
}

const CACHE_LIMIT = 20000;

/**
 * A single token's form and expansions, from the index's cache. Joined pairs are expanded per query
 * (makeToken), not cached: a pair of adjacent tokens is close to unique to its name ("patricia
 * lucas"), while single tokens repeat across names (the 50,000 yente negatives have 17,897 distinct
 * tokens). Cached, the pairs were most of the misses and filled the cache, whose clears then
 * discarded the single tokens whose trigram and phonetic search is the costly part: over 20,000
 * unlisted names screened three times, about 0.15-0.20 ms a query cached against 0.05-0.14 ms not; a
 * pair's expansion (spelling only) is cheap to redo. Uncached, pairs are also garbage that dies young
 * instead of entries that survive young collections and are dropped all at once by the next clear.
 */
function cachedToken(index: MatchIndex, text: string, abjad: boolean, options: ExpandOptions): CachedToken {
  const cache = index.scratch.expansionCache;
  const flags = (abjad ? 1 : 0) | (options.phonetic ? 2 : 0) | (options.nicknames ? 4 : 0) | (options.exactOnly ? 8 : 0);
  const key = `${text}|${flags}|${options.trigramFloor}`;
  let hit = cache.get(key);
  if (!hit) {
    if (cache.size >= CACHE_LIMIT) cache.clear();
    hit = expandedToken(index, text, abjad, options, false);
    cache.set(key, hit);
  }
  return hit;
}

/** A token's comparison form, computed once, and its expansions. */
function expandedToken(index: MatchIndex, text: string, abjad: boolean, options: ExpandOptions, joined: Joined): CachedToken {
  const form = queryForm(text, abjad);
  const expansions = expandToken(index, form, options, joined);
  const { start } = index.vocab.noisePostings;
  let noisePostings = 0;
  for (const e of expansions) noisePostings += start[e.token + 1]! - start[e.token]!;
  return { form, expansions, noisePostings };
}

function makeToken(index: MatchIndex, text: string, flags: number, options: ExpandOptions, joined: Joined = false): QueryToken {
  const abjad = (flags & TOKEN_ABJAD) !== 0;
  const { form, expansions, noisePostings } = joined ? expandedToken(index, text, abjad, options, joined) : cachedToken(index, text, abjad, options);
  const rarity = queryTokenWeight(index, expansions);
  const weight = tokenWeight(rarity, flags, text.length);
  const noiseWeight = tokenWeight(rarity, flags | TOKEN_NOISE, text.length);
  return { text, joined, form, flags, weight, noiseWeight, expansions, noisePostings, sims: null, mergedSims: null };
}

/** A token kept at most this many times in one query name: "Mohammed bin Mohammed" keeps both. */
const MAX_TOKEN_REPEATS = 2;
/** Tokens planned for one query name; the longest listed names have about 20. */
export const MAX_QUERY_TOKENS = 32;

/**
 * The name's tokens, each at most twice and at most 32 in all. A name is up to 500 characters, so
 * without a bound "Al Al Al …" (160 tokens, each with a long posting list and a joined pair) cost
 * 45 ms to screen, and 21 such names in one subject 0.4 s of the one thread every tenant's requests
 * share. Neither bound touches a real name. Past them, the tokens kept score as they would: a name
 * with over 32 words, or a word three times, holds so many words no listed name has that its score
 * against any listed name is far below a threshold either way.
 */
function boundedName(name: NormalisedName): NormalisedName {
  if (withinBounds(name.tokens)) return name;
  const seen = new Map<string, number>();
  const tokens: string[] = [];
  const flags: number[] = [];
  for (let i = 0; i < name.tokens.length && tokens.length < MAX_QUERY_TOKENS; i++) {
    const text = name.tokens[i]!;
    const times = (seen.get(text) ?? 0) + 1;
    seen.set(text, times);
    if (times > MAX_TOKEN_REPEATS) continue;
    tokens.push(text);
    flags.push(name.flags[i]!);
  }
  return tokens.length === name.tokens.length ? name : { tokens, flags };
}

/** Whether no token repeats more than twice among at most 32: a pairwise scan, no allocation (nearly every name). */
function withinBounds(tokens: readonly string[]): boolean {
  const n = tokens.length;
  if (n > MAX_QUERY_TOKENS) return false;
  for (let i = 0; i < n; i++) {
    let times = 1;
    for (let j = i + 1; j < n; j++) if (tokens[j] === tokens[i] && ++times > MAX_TOKEN_REPEATS) return false;
  }
  return true;
}

/**
 * The Arabic article written apart ("al Assad", "el Sayed") or an Arabic-script particle, before the
 * next word: joined, it may read as a short consonant form (الاسد). Not Latin particles at large:
 * Le, Du, An and Di are East Asian surnames ("Le Lei" is not ليلى).
 */
const LATIN_ARTICLES: ReadonlySet<string> = new Set(["al", "el", "ul"]);

function joinsArticle(name: NormalisedName, start: number): boolean {
  const flags = name.flags[start]!;
  if (!(flags & TOKEN_PARTICLE)) return false;
  return (flags & TOKEN_ABJAD) !== 0 || LATIN_ARTICLES.has(name.tokens[start]!);
}

export function planQuery(index: MatchIndex, raw: string, options: ExpandOptions): QueryPlan {
  const name = boundedName(normaliseName(raw));
  const tokens = name.tokens.map((text, i) => makeToken(index, text, name.flags[i]!, options));
  // Every adjacent pair is also tried written as one: "Nasr Allah" = "Nasrallah", "Abd al Rahman"
  // = "Abdalrahman", "عبد الله" = "Abdullah". The list side indexes joined particles the same way.
  const joined: JoinedQueryToken[] = [];
  for (let start = 0; start + 1 < name.tokens.length; start++) {
    if ((name.flags[start]! | name.flags[start + 1]!) & TOKEN_NOISE) continue;
    const abjad = name.flags[start]! & name.flags[start + 1]! & TOKEN_ABJAD;
    const text = joinTokens(name.tokens[start]!, name.tokens[start + 1]!, abjad !== 0);
    joined.push({ start, token: makeToken(index, text, abjad, options, joinsArticle(name, start) ? "after-particle" : "pair") });
  }
  let totalWeight = 0;
  for (const t of tokens) totalWeight += t.weight;
  return {
    raw,
    name,
    tokens,
    joined,
    totalWeight,
    exactKey: exactKey(name),
    weights: tokens.map((t) => t.weight),
    texts: tokens.map((t) => t.text),
    substantive: tokens.filter((t) => t.text.length > 1 && !(t.flags & (TOKEN_NOISE | TOKEN_PARTICLE))).length,
  };
}
