import { SOURCE_LISTS, type WatchlistEntity } from "../watchlists/entity";
import { packCountry } from "./countries";
import { birthRange } from "./dates";
import { buildEquivalents, type Equivalents } from "./equivalents";
import { GrowableU32 } from "./growable";
import { type FoldCache, joinedForms, normaliseName, TOKEN_ABJAD, TOKEN_NOISE, TOKEN_PARTICLE } from "./normalise";
import { CardStore, ENTITY_TYPES } from "./cards";
import { orderPostingsByWeight } from "./postings-order";
import type { ListedWords } from "./readings";
import { createScratch, type SearchScratch } from "./scratch";
import { runSteps } from "../lib/steps";
import { type Vocabulary, vocabularySteps } from "./vocab";
import { INITIAL_WEIGHT, MIN_IDF, NOISE_WEIGHT, PARTICLE_WEIGHT } from "./weights";

export interface NameTable {
  readonly count: number;
  readonly entity: Uint32Array;
  /** SOURCE_LISTS index of the name's entity (copied here so retrieval reads one small array). */
  readonly source: Uint8Array;
  /** Position of the name in entity.names, to show the name as published. */
  readonly ordinal: Uint16Array;
  readonly weak: Uint8Array;
  readonly tokenStart: Uint32Array;
  readonly tokens: Uint32Array;
  readonly tokenFlags: Uint8Array;
  /** Sum of the rarity weights of the name's tokens. */
  readonly weightSum: Float32Array;
  /**
   * 1 when a token occurs twice in the name ("Muhammad Muhammad Ali"): postings list a name once
   * per token, so retrieval cannot tell from them that two query tokens may both match it.
   */
  readonly repeats: Uint8Array;
}

export interface EntityTable {
  readonly source: Uint8Array;
  readonly type: Uint8Array;
  readonly deceased: Uint8Array;
  /** Four Int32 per listed birth date: yearFrom, yearTo, month, day. */
  readonly dobStart: Uint32Array;
  readonly dob: Int32Array;
  readonly natStart: Uint32Array;
  readonly nat: Uint16Array;
}

/**
 * The in-memory matching index. Built once per list snapshot from its entities; its data never
 * changes afterwards, so a new version is a new index swapped in by reference. Per-name and
 * per-entity facts live in typed arrays (a few bytes per name), not in an object per name.
 */
export interface MatchIndex {
  readonly entityCount: number;
  /** Per entity, what a match shows of it (decoded on demand, see CardStore). */
  readonly cards: CardStore;
  readonly vocab: Vocabulary;
  readonly names: NameTable;
  readonly entityTable: EntityTable;
  readonly equivalents: Equivalents;
  /** Reusable buffers for one synchronous search at a time; not part of the index data. */
  readonly scratch: SearchScratch;
  readonly buildMs: number;
}

/**
 * The lists' words as the `splitWords` reading asks about them (readings.ts): whether a word is
 * listed, and whether one listed name has two words. A word's names are its postings and its noise
 * postings (a legal form's words are mostly the latter: "corporation" has no other), so both are
 * read; the shorter word's names go into a set and the other's are looked up in it, which gives the
 * same answer either way round, joined spellings ("alqaida") included.
 */
export function listedWords(index: MatchIndex): ListedWords {
  let listed = LISTED_WORDS.get(index);
  if (!listed) {
    listed = listedWordsOf(index);
    LISTED_WORDS.set(index, listed);
  }
  return listed;
}

/** One ListedWords per index, made on the first screen, not one per screen on the request path. */
const LISTED_WORDS = new WeakMap<MatchIndex, ListedWords>();

function listedWordsOf(index: MatchIndex): ListedWords {
  const { ids, postings, noisePostings } = index.vocab;
  const count = (id: number) => postings.start[id + 1]! - postings.start[id]! + noisePostings.start[id + 1]! - noisePostings.start[id]!;
  function forEachName(id: number, visit: (name: number) => boolean): boolean {
    for (const list of [postings, noisePostings]) {
      for (let p = list.start[id]!; p < list.start[id + 1]!; p++) if (visit(list.values[p]!)) return true;
    }
    return false;
  }
  return {
    has: (word) => ids.has(word),
    together(a, b) {
      const idA = ids.get(a);
      const idB = ids.get(b);
      if (idA === undefined || idB === undefined) return false;
      const [fewer, more] = count(idA) <= count(idB) ? [idA, idB] : [idB, idA];
      const names = new Set<number>();
      forEachName(fewer, (name) => {
        names.add(name);
        return false;
      });
      return forEachName(more, (name) => names.has(name));
    },
  };
}

/** Weight of one token occurrence: rarity, lowered for noise words, particles and initials. */
export function tokenWeight(idf: number, flags: number, length: number): number {
  const base = length === 1 ? Math.min(INITIAL_WEIGHT, idf) : Math.max(MIN_IDF, idf);
  if (flags & TOKEN_NOISE) return base * NOISE_WEIGHT;
  if (flags & TOKEN_PARTICLE) return base * PARTICLE_WEIGHT;
  return base;
}

/** True when the entity already has a name with exactly these tokens (aliases often normalise alike). */
function duplicateOf(tokens: GrowableU32, tokenStart: GrowableU32, from: number, to: number, ids: readonly number[]): boolean {
  for (let name = from; name < to; name++) {
    const start = tokenStart.get(name);
    const end = name + 1 < to ? tokenStart.get(name + 1) : tokens.length;
    if (end - start !== ids.length) continue;
    let same = true;
    for (let i = 0; i < ids.length && same; i++) same = tokens.get(start + i) === ids[i];
    if (same) return true;
  }
  return false;
}

/**
 * Builds an index one entity at a time, so a caller streaming entities from storage never holds
 * them all: each entity leaves only its tokens, a few typed-array facts and its card behind.
 * add() is cheap per entity, so a server can yield to requests between batches; finish() does the
 * whole-vocabulary work (rarity weights, trigram and posting lists) in one go.
 */
export class IndexBuilder {
  private readonly started = performance.now();
  private readonly cache: FoldCache = new Map();
  private readonly strings: string[] = [];
  private readonly ids = new Map<string, number>();
  // 1 = seen only in consonant transliterations, 2 = seen in a Latin spelling (wins).
  private readonly abjad: number[] = [];
  private readonly entityFrequency: number[] = [];
  private readonly lastEntity: number[] = [];
  private readonly lastName: number[] = [];
  private readonly lastNoiseName: number[] = [];
  /** Names posted twice under one token (see NameTable.repeats); rare, so a list, not a column. */
  private readonly repeating: number[] = [];
  private readonly nameEntity = new GrowableU32(1 << 14);
  private readonly nameOrdinal = new GrowableU32(1 << 14);
  private readonly nameWeak = new GrowableU32(1 << 14);
  private readonly tokenStart = new GrowableU32(1 << 14);
  private readonly tokens = new GrowableU32(1 << 16);
  private readonly flagsBuf = new GrowableU32(1 << 16);
  private readonly postingToken = new GrowableU32(1 << 16);
  private readonly postingName = new GrowableU32(1 << 16);
  private readonly noisePostingToken = new GrowableU32(1 << 12);
  private readonly noisePostingName = new GrowableU32(1 << 12);
  private readonly entitySource = new GrowableU32(1 << 14);
  private readonly entityType = new GrowableU32(1 << 14);
  private readonly entityDeceased = new GrowableU32(1 << 14);
  private readonly dobStart = new GrowableU32(1 << 14);
  private readonly natStart = new GrowableU32(1 << 14);
  private readonly dob: number[] = [];
  private readonly nat: number[] = [];
  private readonly cards = new CardStore();
  /** Reused per name: index build must not leave a trail of small arrays behind at 10^6 names. */
  private readonly nameIds: number[] = [];
  private entityCount = 0;
  private finished = false;

  constructor() {
    this.dobStart.push(0);
    this.natStart.push(0);
  }

  add(entity: WatchlistEntity): void {
    if (this.finished) throw new Error("IndexBuilder.add after finish");
    const e = this.entityCount++;
    const source = SOURCE_LISTS.indexOf(entity.source);
    const type = Math.max(0, ENTITY_TYPES.indexOf(entity.entityType));
    this.entitySource.push(source);
    this.entityType.push(type);
    this.entityDeceased.push(entity.deceased ? 1 : 0);
    for (const birth of entity.birth) {
      const r = birthRange(birth);
      if (r) this.dob.push(r.yearFrom, r.yearTo, r.month, r.day);
    }
    for (const code of entity.nationalities) if (/^[A-Z]{2}$/.test(code)) this.nat.push(packCountry(code));
    this.dobStart.push(this.dob.length);
    this.natStart.push(this.nat.length);
    this.cards.add(entity, source, type);
    this.addNames(entity, e);
  }

  private addNames(entity: WatchlistEntity, e: number): void {
    const { names } = entity;
    const { tokens, tokenStart, nameEntity, nameIds } = this;
    const firstName = nameEntity.length;
    for (let k = 0; k < names.length && k < 65535; k++) {
      const normalised = normaliseName(names[k]!.name, this.cache);
      const n = normalised.tokens.length;
      if (n === 0) continue;
      nameIds.length = 0;
      for (let i = 0; i < n; i++) nameIds.push(this.intern(normalised.tokens[i]!, e, (normalised.flags[i]! & TOKEN_ABJAD) !== 0));
      if (duplicateOf(tokens, tokenStart, firstName, nameEntity.length, nameIds)) continue;
      const nameId = nameEntity.length;
      nameEntity.push(e);
      this.nameOrdinal.push(k);
      this.nameWeak.push(names[k]!.quality === "weak" ? 1 : 0);
      tokenStart.push(tokens.length);
      for (let i = 0; i < n; i++) {
        const flags = normalised.flags[i]!;
        tokens.push(nameIds[i]!);
        this.flagsBuf.push(flags);
        this.post(nameIds[i]!, nameId, (flags & TOKEN_NOISE) !== 0);
      }
      for (const joined of joinedForms(normalised)) this.post(this.intern(joined.text, e, false), nameId, false);
    }
  }

  private intern(token: string, e: number, isAbjad: boolean): number {
    let id = this.ids.get(token);
    if (id === undefined) {
      id = this.strings.length;
      this.ids.set(token, id);
      this.strings.push(token);
      this.abjad.push(isAbjad ? 1 : 2);
      this.entityFrequency.push(0);
      this.lastEntity.push(-1);
      this.lastName.push(-1);
      this.lastNoiseName.push(-1);
    }
    if (this.abjad[id] !== 2) this.abjad[id] = isAbjad ? 1 : 2;
    if (this.lastEntity[id] !== e) {
      this.lastEntity[id] = e;
      this.entityFrequency[id]!++;
    }
    return id;
  }

  private repeatsOf(nameCount: number): Uint8Array {
    const repeats = new Uint8Array(nameCount);
    for (const n of this.repeating) repeats[n] = 1;
    return repeats;
  }

  /**
   * Posts a name under one of its tokens: a noise word (legal form, title) in the noise postings,
   * any other token in the postings. Posting a name twice under one token is what marks it as
   * repeating: a token written twice (also once as a name word and once inside a legal form, "Bank
   * ... Non Bank Credit Organization"), or (rarely) a joined spelling equal to one of its tokens,
   * which only makes retrieval count both. Each list holds a name once.
   */
  private post(tokenId: number, nameId: number, noise: boolean): void {
    const last = noise ? this.lastNoiseName : this.lastName;
    const other = noise ? this.lastName : this.lastNoiseName;
    if (other[tokenId] === nameId) this.repeating.push(nameId);
    if (last[tokenId] === nameId) {
      this.repeating.push(nameId);
      return;
    }
    last[tokenId] = nameId;
    (noise ? this.noisePostingToken : this.postingToken).push(tokenId);
    (noise ? this.noisePostingName : this.postingName).push(nameId);
  }

  finish(): MatchIndex {
    return runSteps(this.finishSteps());
  }

  /**
   * finish() as steps, yielding between its parts and inside the vocabulary's per-token work, so a
   * server building an index beside its requests can pause between them (watchlists/runtime.ts):
   * run whole, the real lists' vocabulary alone took 160-200 ms of the one request thread.
   */
  *finishSteps(): Generator<void, MatchIndex> {
    if (this.finished) throw new Error("IndexBuilder.finish called twice");
    this.finished = true;
    const { strings } = this;
    this.tokenStart.push(this.tokens.length);
    const vocab = yield* vocabularySteps({
      strings,
      ids: this.ids,
      abjad: this.abjad.map((a) => (a === 1 ? 1 : 0)),
      entityFrequency: this.entityFrequency,
      entityCount: this.entityCount,
      postingToken: this.postingToken,
      postingName: this.postingName,
      noisePostingToken: this.noisePostingToken,
      noisePostingName: this.noisePostingName,
    });
    const nameCount = this.nameEntity.length;
    const tokenArr = this.tokens.toArray();
    const flagArr = Uint8Array.from(this.flagsBuf.toArray());
    const startArr = this.tokenStart.toArray();
    const weightSum = new Float32Array(nameCount);
    for (let n = 0; n < nameCount; n++) {
      let sum = 0;
      for (let p = startArr[n]!; p < startArr[n + 1]!; p++) {
        const t = tokenArr[p]!;
        sum += tokenWeight(vocab.idf[t]!, flagArr[p]!, strings[t]!.length);
      }
      weightSum[n] = sum;
    }
    yield;
    orderPostingsByWeight([vocab.postings, vocab.noisePostings], weightSum);
    yield;
    const entityTable: EntityTable = {
      source: Uint8Array.from(this.entitySource.toArray()),
      type: Uint8Array.from(this.entityType.toArray()),
      deceased: Uint8Array.from(this.entityDeceased.toArray()),
      dobStart: this.dobStart.toArray(),
      dob: Int32Array.from(this.dob),
      natStart: this.natStart.toArray(),
      nat: Uint16Array.from(this.nat),
    };
    const entityOfName = this.nameEntity.toArray();
    const sourceOfName = new Uint8Array(nameCount);
    for (let n = 0; n < nameCount; n++) sourceOfName[n] = entityTable.source[entityOfName[n]!]!;
    const names: NameTable = {
      count: nameCount,
      entity: entityOfName,
      source: sourceOfName,
      ordinal: Uint16Array.from(this.nameOrdinal.toArray()),
      weak: Uint8Array.from(this.nameWeak.toArray()),
      tokenStart: startArr,
      tokens: tokenArr,
      tokenFlags: flagArr,
      weightSum,
      repeats: this.repeatsOf(nameCount),
    };
    this.cards.seal();
    this.cache.clear();
    return {
      entityCount: this.entityCount,
      cards: this.cards,
      vocab,
      names,
      entityTable,
      equivalents: buildEquivalents(),
      scratch: createScratch(nameCount, vocab.size),
      buildMs: performance.now() - this.started,
    };
  }
}

/** A fresh builder: what the watchlist runtime is given to load snapshots with. */
export function startIndex(): IndexBuilder {
  return new IndexBuilder();
}

/** Builds the index of a list snapshot's entities (consumed once, in order: entity k is the k-th). */
export function buildIndex(entities: Iterable<WatchlistEntity>): MatchIndex {
  const builder = new IndexBuilder();
  for (const entity of entities) builder.add(entity);
  return builder.finish();
}
