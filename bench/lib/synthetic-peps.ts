import type { PepInfo, WatchlistEntity } from "../../src/watchlists/entity";
import { naturalOrder } from "./natural-order";

/**
 * Production-scale PEP data: the files we have hold a few hundred Wikidata PEPs, production sets
 * hold 0.5–1.5 million. These entities are GENERATED: names recombined from the real lists' person
 * name tokens (given name + optional middle + surname, drawn with their real frequencies), with
 * dates of birth, nationalities and PEP positions. Objects that can be shared are shared, as a
 * parser building a million entities would not need them to be distinct either.
 */
const COUNTRIES = "RU UA BY KZ IR IQ SY AF PK IN CN KP VE CU NI SD SO YE LY EG SA AE TR RS BA MM BD NG ZW CD".split(" ");
const EMPTY: never[] = [];

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

interface Pools {
  given: string[];
  middle: string[];
  surname: string[];
}

function pools(real: readonly WatchlistEntity[]): Pools {
  const out: Pools = { given: [], middle: [], surname: [] };
  const word = /^[A-Za-z][A-Za-z'-]{1,}$/;
  for (const e of real) {
    if (e.entityType !== "person") continue;
    for (const n of e.names) {
      if (n.originalScript) continue;
      const tokens = naturalOrder(n.name).split(/\s+/).filter((t) => word.test(t));
      if (tokens.length < 2) continue;
      out.given.push(tokens[0]!);
      out.surname.push(tokens[tokens.length - 1]!);
      for (const t of tokens.slice(1, -1)) out.middle.push(t);
    }
  }
  return out;
}

function titleCase(t: string): string {
  return t.length > 1 ? t[0]!.toUpperCase() + t.slice(1).toLowerCase() : t.toUpperCase();
}

export function generatePeps(real: readonly WatchlistEntity[], count: number, seed = 42): WatchlistEntity[] {
  return Array.from(streamPeps(real, count, seed));
}

/** The same PEPs one at a time, so an index can be built without holding them all. */
export function* streamPeps(real: readonly WatchlistEntity[], count: number, seed = 42): Generator<WatchlistEntity> {
  const rand = lcg(seed);
  const p = pools(real);
  const pick = (list: string[]) => titleCase(list[Math.floor(rand() * list.length)]!);
  const peps = new Map<string, PepInfo>();
  const pepFor = (country: string, kind: number): PepInfo => {
    const key = `${country}:${kind}`;
    let info = peps.get(key);
    if (!info) {
      info =
        kind === 0
          ? { positions: [{ title: "Member of Parliament", country, international: false }], relations: [] }
          : kind === 1
            ? { positions: [{ title: "Delegate to an international organisation", international: true }], relations: [] }
            : { positions: [], relations: [{ relatedId: `Q${country}`, relationship: "spouse" }] };
      peps.set(key, info);
    }
    return info;
  };
  for (let i = 0; i < count; i++) {
    const given = pick(p.given);
    const surname = pick(p.surname);
    const primary = rand() < 0.4 ? `${given} ${pick(p.middle)} ${surname}` : `${given} ${surname}`;
    const names: WatchlistEntity["names"] = [{ name: primary, kind: "primary", quality: "strong", originalScript: false }];
    if (rand() < 0.3) names.push({ name: `${pick(p.given)} ${surname}`, kind: "aka", quality: "strong", originalScript: false });
    const country = COUNTRIES[Math.floor(rand() * COUNTRIES.length)]!;
    const roll = rand();
    const id = `Q9${i}`;
    yield {
      source: "WIKIDATA",
      externalId: id,
      entityType: "person",
      primaryName: primary,
      names,
      birth: rand() < 0.7 ? [{ date: String(1930 + Math.floor(rand() * 70)) }] : EMPTY,
      nationalities: [country],
      identifiers: EMPTY,
      addresses: EMPTY,
      programmes: EMPTY,
      deceased: false,
      pep: pepFor(country, roll < 0.85 ? 0 : roll < 0.9 ? 1 : 2),
      verifyUrl: `https://www.wikidata.org/wiki/${id}`,
    };
  }
}
