import { type AliasQuality, type EntityType, type NameKind, SOURCE_LISTS, type SourceList, type WatchlistEntity } from "../watchlists/entity";
import { type PepTierFacts, pepTierFacts } from "../watchlists/pep-tier";

/**
 * What a match shows of a listed entity, and nothing else: its identity, its names as published,
 * programmes, the link to the official record and the PEP facts tiers are derived from.
 */
export interface MatchCard {
  readonly source: SourceList;
  readonly externalId: string;
  readonly entityType: EntityType;
  readonly primaryName: string;
  readonly names: readonly CardName[];
  readonly programmes: readonly string[];
  readonly deceased: boolean;
  readonly verifyUrl: string;
  readonly pep: PepTierFacts | null;
}

export interface CardName {
  readonly name: string;
  readonly kind: NameKind;
  readonly quality: AliasQuality;
}

const KINDS: readonly NameKind[] = ["primary", "aka", "fka", "nka"];
/** Entity types by their index code (also the codes of EntityTable.type). */
export const ENTITY_TYPES: readonly EntityType[] = ["person", "organisation", "vessel", "aircraft"];

/**
 * Cards of every indexed entity, kept as UTF-8 bytes in one buffer and decoded only for the few
 * entities a screening matches. At a million PEPs, entity objects on the JS heap cost about a
 * gigabyte and slow every garbage collection; these bytes cost about a tenth and are never scanned.
 * Strings repeated across entities (record URLs up to the id, PEP positions) are stored once.
 */
export class CardStore {
  private bytes = new Uint8Array(1 << 16);
  private used = 0;
  private offsets: Uint32Array = new Uint32Array(1024);
  private count = 0;
  private readonly shared: string[] = [];
  private readonly sharedIds = new Map<string, number>();
  private readonly encoder = new TextEncoder();
  private readonly decoder = new TextDecoder();

  get byteLength(): number {
    return this.used + this.offsets.byteLength;
  }

  /** Appends the next entity; `source` and `entityType` are its SOURCE_LISTS and ENTITY_TYPES codes. */
  add(entity: WatchlistEntity, source: number, entityType: number): void {
    const url = entity.verifyUrl;
    const withId = url.length > entity.externalId.length && url.endsWith(entity.externalId);
    const pep = entity.pep ? pepTierFacts(entity.pep) : null;
    const record = [
      source,
      entityType,
      entity.deceased ? 1 : 0,
      entity.externalId,
      entity.primaryName === entity.names[0]?.name ? 0 : entity.primaryName,
      entity.names.map((n) => [n.name, KINDS.indexOf(n.kind), n.quality === "weak" ? 1 : 0]),
      entity.programmes,
      this.intern(withId ? url.slice(0, url.length - entity.externalId.length) : url),
      withId ? 1 : 0,
      pep ? this.intern(JSON.stringify(pep)) : -1,
    ];
    this.append(JSON.stringify(record));
  }

  get(index: number): MatchCard {
    const text = this.decoder.decode(this.bytes.subarray(this.offsets[index]!, this.offsets[index + 1]!));
    const [source, type, deceased, externalId, primary, names, programmes, url, withId, pep] = JSON.parse(text) as CardRecord;
    const cardNames = names.map(([name, kind, weak]): CardName => ({ name, kind: KINDS[kind] ?? "aka", quality: weak ? "weak" : "strong" }));
    return {
      source: SOURCE_LISTS[source]!,
      externalId,
      entityType: ENTITY_TYPES[type]!,
      primaryName: primary === 0 ? (cardNames[0]?.name ?? "") : primary,
      names: cardNames,
      programmes,
      deceased: deceased === 1,
      verifyUrl: withId ? this.shared[url]! + externalId : this.shared[url]!,
      pep: pep >= 0 ? (JSON.parse(this.shared[pep]!) as PepTierFacts) : null,
    };
  }

  /** Trims the buffers to their used length once every entity is in. */
  seal(): void {
    this.bytes = this.bytes.slice(0, this.used);
    this.offsets = this.offsets.slice(0, this.count + 1);
  }

  private intern(text: string): number {
    let id = this.sharedIds.get(text);
    if (id === undefined) {
      id = this.shared.length;
      this.shared.push(text);
      this.sharedIds.set(text, id);
    }
    return id;
  }

  private append(text: string): void {
    // UTF-8 needs at most 3 bytes per UTF-16 code unit.
    const need = this.used + text.length * 3;
    if (need > this.bytes.length) {
      const next = new Uint8Array(Math.max(need, this.bytes.length * 2));
      next.set(this.bytes.subarray(0, this.used));
      this.bytes = next;
    }
    this.used += this.encoder.encodeInto(text, this.bytes.subarray(this.used)).written;
    if (this.count + 2 > this.offsets.length) {
      const next = new Uint32Array(this.offsets.length * 2);
      next.set(this.offsets);
      this.offsets = next;
    }
    this.count++;
    this.offsets[this.count] = this.used;
  }
}

type CardRecord = [
  source: number,
  type: number,
  deceased: 0 | 1,
  externalId: string,
  primary: 0 | string,
  names: [string, number, 0 | 1][],
  programmes: string[],
  url: number,
  withId: 0 | 1,
  pep: number,
];
