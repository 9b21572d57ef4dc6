import { type EntityType, SOURCE_LISTS, type WatchlistEntity } from "../watchlists/entity";
import { packCountry } from "./countries";
import { birthRange } from "./dates";
import { buildEquivalents, type Equivalents } from "./equivalents";
import { GrowableU32 } from "./growable";
import { type FoldCache, joinedForms, normaliseName, TOKEN_ABJAD, TOKEN_NOISE, TOKEN_PARTICLE } from "./normalise";
import { createScratch, type SearchScratch } from "./scratch";
import { buildVocabulary, type Vocabulary } from "./vocab";
import { INITIAL_WEIGHT, MIN_IDF, NOISE_WEIGHT, PARTICLE_WEIGHT } from "./weights";

/**
 * The in-memory matching index. Built once per list version from WatchlistEntity[]; its data never
 * changes afterwards, so a new version is a new index swapped in by reference. Per-name and
 * per-entity facts live in typed arrays (a few bytes per name), not in an object per name.
 */
export const ENTITY_TYPES: readonly EntityType[] = ["person", "organisation", "vessel", "aircraft"];

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

export interface MatchIndex {
  readonly entities: readonly WatchlistEntity[];
  readonly vocab: Vocabulary;
  readonly names: NameTable;
  readonly entityTable: EntityTable;
  readonly equivalents: Equivalents;
  /** Reusable buffers for one synchronous search at a time; not part of the index data. */
  readonly scratch: SearchScratch;
  readonly buildMs: number;
}

/** Weight of one token occurrence: rarity, lowered for noise words, particles and initials. */
export function tokenWeight(idf: number, flags: number, length: number): number {
  const base = length === 1 ? Math.min(INITIAL_WEIGHT, idf) : Math.max(MIN_IDF, idf);
  if (flags & TOKEN_NOISE) return base * NOISE_WEIGHT;
  if (flags & TOKEN_PARTICLE) return base * PARTICLE_WEIGHT;
  return base;
}

function buildEntityTable(entities: readonly WatchlistEntity[]): EntityTable {
  const n = entities.length;
  const source = new Uint8Array(n);
  const type = new Uint8Array(n);
  const deceased = new Uint8Array(n);
  const dobStart = new Uint32Array(n + 1);
  const natStart = new Uint32Array(n + 1);
  const dob: number[] = [];
  const nat: number[] = [];
  for (let e = 0; e < n; e++) {
    const entity = entities[e]!;
    source[e] = SOURCE_LISTS.indexOf(entity.source);
    type[e] = Math.max(0, ENTITY_TYPES.indexOf(entity.entityType));
    deceased[e] = entity.deceased ? 1 : 0;
    for (const birth of entity.birth) {
      const r = birthRange(birth);
      if (r) dob.push(r.yearFrom, r.yearTo, r.month, r.day);
    }
    for (const code of entity.nationalities) if (/^[A-Z]{2}$/.test(code)) nat.push(packCountry(code));
    dobStart[e + 1] = dob.length;
    natStart[e + 1] = nat.length;
  }
  return { source, type, deceased, dobStart, dob: Int32Array.from(dob), natStart, nat: Uint16Array.from(nat) };
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

export function buildIndex(entities: readonly WatchlistEntity[]): MatchIndex {
  const started = performance.now();
  const cache: FoldCache = new Map();
  const strings: string[] = [];
  const ids = new Map<string, number>();
  // 1 = seen only in consonant transliterations, 2 = seen in a Latin spelling (wins).
  const abjad: number[] = [];
  const entityFrequency: number[] = [];
  const lastEntity: number[] = [];
  const lastName: number[] = [];
  const intern = (token: string, e: number, isAbjad: boolean): number => {
    let id = ids.get(token);
    if (id === undefined) {
      id = strings.length;
      ids.set(token, id);
      strings.push(token);
      abjad.push(isAbjad ? 1 : 2);
      entityFrequency.push(0);
      lastEntity.push(-1);
      lastName.push(-1);
    }
    if (abjad[id] !== 2) abjad[id] = isAbjad ? 1 : 2;
    if (lastEntity[id] !== e) {
      lastEntity[id] = e;
      entityFrequency[id]!++;
    }
    return id;
  };

  const nameEntity = new GrowableU32(entities.length * 2);
  const nameOrdinal = new GrowableU32(entities.length * 2);
  const nameWeak = new GrowableU32(entities.length * 2);
  const tokenStart = new GrowableU32(entities.length * 2);
  const tokens = new GrowableU32(entities.length * 6);
  const flagsBuf = new GrowableU32(entities.length * 6);
  const postingToken = new GrowableU32(entities.length * 8);
  const postingName = new GrowableU32(entities.length * 8);
  const post = (tokenId: number, nameId: number): void => {
    if (lastName[tokenId] === nameId) return;
    lastName[tokenId] = nameId;
    postingToken.push(tokenId);
    postingName.push(nameId);
  };

  // Reused per name: index build must not leave a trail of small arrays behind at 10^6 names.
  const nameIds: number[] = [];
  for (let e = 0; e < entities.length; e++) {
    const names = entities[e]!.names;
    const firstName = nameEntity.length;
    for (let k = 0; k < names.length && k < 65535; k++) {
      const normalised = normaliseName(names[k]!.name, cache);
      const n = normalised.tokens.length;
      if (n === 0) continue;
      nameIds.length = 0;
      for (let i = 0; i < n; i++) nameIds.push(intern(normalised.tokens[i]!, e, (normalised.flags[i]! & TOKEN_ABJAD) !== 0));
      if (duplicateOf(tokens, tokenStart, firstName, nameEntity.length, nameIds)) continue;
      const nameId = nameEntity.length;
      nameEntity.push(e);
      nameOrdinal.push(k);
      nameWeak.push(names[k]!.quality === "weak" ? 1 : 0);
      tokenStart.push(tokens.length);
      for (let i = 0; i < n; i++) {
        const flags = normalised.flags[i]!;
        tokens.push(nameIds[i]!);
        flagsBuf.push(flags);
        if (!(flags & TOKEN_NOISE)) post(nameIds[i]!, nameId);
      }
      for (const joined of joinedForms(normalised)) post(intern(joined.text, e, false), nameId);
    }
  }
  tokenStart.push(tokens.length);

  const vocab = buildVocabulary({
    strings,
    ids,
    abjad: abjad.map((a) => (a === 1 ? 1 : 0)),
    entityFrequency,
    entityCount: entities.length,
    postingToken,
    postingName,
  });
  const nameCount = nameEntity.length;
  const tokenArr = tokens.toArray();
  const flagArr = Uint8Array.from(flagsBuf.toArray());
  const startArr = tokenStart.toArray();
  const weightSum = new Float32Array(nameCount);
  for (let n = 0; n < nameCount; n++) {
    let sum = 0;
    for (let p = startArr[n]!; p < startArr[n + 1]!; p++) {
      const t = tokenArr[p]!;
      sum += tokenWeight(vocab.idf[t]!, flagArr[p]!, strings[t]!.length);
    }
    weightSum[n] = sum;
  }
  const entityTable = buildEntityTable(entities);
  const entityOfName = nameEntity.toArray();
  const sourceOfName = new Uint8Array(nameCount);
  for (let n = 0; n < nameCount; n++) sourceOfName[n] = entityTable.source[entityOfName[n]!]!;
  const names: NameTable = {
    count: nameCount,
    entity: entityOfName,
    source: sourceOfName,
    ordinal: Uint16Array.from(nameOrdinal.toArray()),
    weak: Uint8Array.from(nameWeak.toArray()),
    tokenStart: startArr,
    tokens: tokenArr,
    tokenFlags: flagArr,
    weightSum,
  };
  return {
    entities,
    vocab,
    names,
    entityTable,
    equivalents: buildEquivalents(),
    scratch: createScratch(nameCount, vocab.size),
    buildMs: performance.now() - started,
  };
}
