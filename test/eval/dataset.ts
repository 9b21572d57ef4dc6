import { exactKey, normaliseName, TOKEN_NOISE } from "../../src/matching/normalise";
import type { EntityType, SourceList, WatchlistEntity } from "../../src/watchlists/entity";
import { type PeerRow, readNicknames } from "./peer-data";
import { type Rng, type Split, splitOf } from "./rng";
import * as v from "./variants";

export interface Positive {
  readonly query: string;
  readonly variant: string;
  readonly source: SourceList;
  readonly externalId: string;
  readonly entityType: EntityType;
  readonly split: Split;
}

export interface Negative {
  readonly query: string;
  readonly kind: string;
  readonly split: Split;
  readonly dob?: string;
  readonly nationality?: string;
}

type Generator = (e: WatchlistEntity, natural: string, rng: Rng) => string | null;

function latinNames(e: WatchlistEntity): string[] {
  return e.names.filter((n) => !n.originalScript && /^[\x00-\x7F]+$/.test(n.name)).map((n) => n.name);
}

function generators(nicknames: ReadonlyMap<string, readonly string[]>): Record<string, { persons: boolean; orgs: boolean; gen: Generator }> {
  const alias: Generator = (e, _n, rng) => {
    const aliases = e.names.filter((n, i) => i > 0 && n.kind !== "primary" && !n.originalScript && n.quality === "strong");
    return aliases.length ? v.naturalOrder(rng.pick(aliases).name) : null;
  };
  const listedScript: Generator = (e) => e.names.find((n) => n.originalScript)?.name ?? null;
  return {
    exact: { persons: true, orgs: true, gen: (_e, n) => n },
    alias: { persons: true, orgs: true, gen: alias },
    reordered: { persons: true, orgs: false, gen: (_e, n, r) => v.reorder(n, r) },
    dropped_middle: { persons: true, orgs: false, gen: (_e, n, r) => v.dropMiddle(n, r) },
    typo: { persons: true, orgs: true, gen: (_e, n, r) => v.typo(n, r) },
    transliteration: { persons: true, orgs: false, gen: (_e, n, r) => v.transliterate(n, r) },
    original_script_listed: { persons: true, orgs: true, gen: listedScript },
    cyrillic: { persons: true, orgs: false, gen: (_e, n) => v.cyrillic(n) },
    arabic_script: { persons: true, orgs: false, gen: (_e, n) => v.arabic(n) },
    nickname: { persons: true, orgs: false, gen: (_e, n, r) => v.nickname(n, nicknames, r) },
    spacing_hyphen: { persons: true, orgs: true, gen: (_e, n, r) => v.spacing(n, r) },
    honorific_legal_noise: { persons: true, orgs: true, gen: (e, n, r) => v.noise(n, e.entityType === "person", r) },
    reorder_typo: { persons: true, orgs: false, gen: (_e, n, r) => { const o = v.reorder(n, r); return o ? v.typo(o, r) : null; } },
  };
}

export function buildPositives(entities: readonly WatchlistEntity[], rng: Rng, perVariant: number): Positive[] {
  const out: Positive[] = [];
  const gens = generators(readNicknames());
  for (const [variant, { persons, orgs, gen }] of Object.entries(gens)) {
    let made = 0;
    for (const e of rng.shuffle(entities)) {
      if (made >= perVariant) break;
      const isPerson = e.entityType === "person";
      if ((isPerson && !persons) || (!isPerson && !orgs) || (e.entityType !== "person" && e.entityType !== "organisation")) continue;
      const primary = latinNames(e)[0];
      if (!primary) continue;
      const query = gen(e, v.naturalOrder(primary), rng);
      if (!query || normaliseName(query).tokens.length === 0) continue;
      out.push({ query, variant, source: e.source, externalId: e.externalId, entityType: e.entityType, split: splitOf(`${e.source}:${e.externalId}`) });
      made++;
    }
  }
  return out;
}

/** Answers "is this name (or a name containing all its tokens) on a list?" so negatives stay unlisted. */
export class ListedNames {
  private readonly byToken = new Map<string, number[]>();
  private readonly tokenSets: Set<string>[] = [];
  private readonly keys = new Set<string>();

  constructor(entities: readonly WatchlistEntity[]) {
    for (const e of entities) {
      for (const n of e.names) {
        const norm = normaliseName(n.name);
        this.keys.add(exactKey(norm));
        const set = new Set(norm.tokens.filter((_, i) => !(norm.flags[i]! & TOKEN_NOISE)));
        const id = this.tokenSets.length;
        this.tokenSets.push(set);
        for (const t of set) this.byToken.set(t, [...(this.byToken.get(t) ?? []), id]);
      }
    }
  }

  isListed(query: string): boolean {
    const norm = normaliseName(query);
    if (this.keys.has(exactKey(norm))) return true;
    const tokens = norm.tokens.filter((_, i) => !(norm.flags[i]! & TOKEN_NOISE));
    if (tokens.length === 0) return true;
    const lists = tokens.map((t) => this.byToken.get(t) ?? []).sort((a, b) => a.length - b.length);
    return lists[0]!.some((id) => tokens.every((t) => this.tokenSets[id]!.has(t)));
  }
}

function firstLast(name: string): [string, string] | null {
  const tokens = v.tokensOf(v.naturalOrder(name)).filter((t) => /^[A-Za-z]{3,}$/.test(t));
  return tokens.length >= 2 ? [tokens[0]!, tokens[tokens.length - 1]!] : null;
}

/**
 * Hard negatives: names that share a token with a listed person but are not listed
 * (listed given name + unlisted surname, unlisted given name + listed surname, given name of one
 * listed person + surname of another). Unlisted name parts come from the peer negative set.
 */
export function buildHardNegatives(entities: readonly WatchlistEntity[], pool: readonly PeerRow[], listed: ListedNames, rng: Rng, perKind: number): Negative[] {
  const persons = entities.filter((e) => e.entityType === "person");
  const latinPool = pool.filter((r) => /^[A-Za-z]{3,}$/.test(r.firstName) && /^[A-Za-z]{3,}$/.test(r.lastName));
  const out: Negative[] = [];
  const kinds: Record<string, (a: [string, string], b: [string, string], p: PeerRow) => string> = {
    shared_given_name: (a, _b, p) => `${a[0]} ${p.lastName}`,
    shared_surname: (a, _b, p) => `${p.firstName} ${a[1]}`,
    recombined_listed: (a, b) => `${a[0]} ${b[1]}`,
  };
  for (const [kind, make] of Object.entries(kinds)) {
    let made = 0;
    for (let tries = 0; made < perKind && tries < perKind * 20; tries++) {
      const ea = rng.pick(persons);
      const a = firstLast(latinNames(ea)[0] ?? "");
      const b = firstLast(latinNames(rng.pick(persons))[0] ?? "");
      if (!a || !b) continue;
      const query = make(a, b, rng.pick(latinPool));
      if (listed.isListed(query)) continue;
      out.push({ query, kind, split: splitOf(`${ea.source}:${ea.externalId}`) });
      made++;
    }
  }
  return out;
}

export function peerNegatives(rows: readonly PeerRow[], kind: string, listed: ListedNames, withFacts: boolean): Negative[] {
  return rows
    .filter((r) => r.fullName && !listed.isListed(r.fullName))
    .map((r, i) => ({
      query: r.fullName,
      kind,
      split: i % 2 === 0 ? "train" : "heldout",
      ...(withFacts && r.dob ? { dob: r.dob } : {}),
      ...(withFacts && r.nationality ? { nationality: r.nationality } : {}),
    }));
}
