import { countryToIso2 } from "../../../lib/countries";
import type {
  Address,
  AliasQuality,
  BirthRecord,
  EntityType,
  Identifier,
  NameKind,
  SourceList,
  WatchlistEntity,
} from "../../entity";
import { clean, isNonLatin } from "./text";

export function newEntity(args: {
  source: SourceList;
  externalId: string;
  entityType: EntityType;
  verifyUrl: string;
}): WatchlistEntity {
  return {
    ...args,
    primaryName: "",
    names: [],
    birth: [],
    nationalities: [],
    identifiers: [],
    addresses: [],
    programmes: [],
    deceased: false,
  };
}

function nameKey(name: string): string {
  return name.toLowerCase();
}

/** Names already on an entity, so adding stays linear for Wikidata items with hundreds of labels. */
const nameKeys = new WeakMap<WatchlistEntity, Set<string>>();

function keysOf(entity: WatchlistEntity): Set<string> {
  let keys = nameKeys.get(entity);
  if (!keys || keys.size !== entity.names.length) {
    keys = new Set(entity.names.map((n) => nameKey(n.name)));
    nameKeys.set(entity, keys);
  }
  return keys;
}

/** Adds a name unless the same text (case-insensitive) is already there; the first one wins. */
export function addName(
  entity: WatchlistEntity,
  raw: string | undefined,
  kind: NameKind,
  quality: AliasQuality,
  lang?: string,
): void {
  const name = clean(raw);
  if (!name) return;
  const key = nameKey(name);
  const keys = keysOf(entity);
  if (keys.has(key)) return;
  keys.add(key);
  const entry: WatchlistEntity["names"][number] = { name, kind, quality, originalScript: isNonLatin(name) };
  const language = lang?.trim().toLowerCase();
  if (language) entry.lang = language;
  entity.names.push(entry);
}

/** Adds the ISO code for a country name or code; unknown text is ignored and returned false. */
export function addNationality(entity: WatchlistEntity, text: string | undefined): boolean {
  const iso = countryToIso2(clean(text));
  if (!iso) return false;
  if (!entity.nationalities.includes(iso)) entity.nationalities.push(iso);
  return true;
}

export function addBirth(entity: WatchlistEntity, birth: BirthRecord): void {
  const key = JSON.stringify(birth);
  if (!entity.birth.some((b) => JSON.stringify(b) === key)) entity.birth.push(birth);
}

export function addIdentifier(entity: WatchlistEntity, id: Identifier): void {
  const number = clean(id.number);
  if (!number) return;
  const existing = entity.identifiers.find((i) => i.type === id.type && i.number === number);
  if (existing) return;
  entity.identifiers.push(dropEmpty({ ...id, number }));
}

export function addAddress(entity: WatchlistEntity, address: Address): void {
  const full = clean(address.full);
  if (!full) return;
  if (entity.addresses.some((a) => a.full === full)) return;
  entity.addresses.push(dropEmpty({ ...address, full }));
}

export function addProgramme(entity: WatchlistEntity, programme: string | undefined): void {
  const p = clean(programme);
  if (p && !entity.programmes.includes(p)) entity.programmes.push(p);
}

/** Joins the non-empty parts with ", ". */
export function joinParts(parts: readonly (string | undefined | null)[], sep = ", "): string {
  return parts
    .map((p) => clean(p))
    .filter((p) => p !== "")
    .join(sep);
}

/** Removes undefined and "" properties so stored records stay minimal and comparable. */
export function dropEmpty<T extends object>(value: T): T {
  const out = { ...value };
  for (const key of Object.keys(out) as (keyof T)[]) {
    if (out[key] === undefined || out[key] === "") delete out[key];
  }
  return out;
}

/**
 * Puts the first primary name first and sets primaryName. Returns false when the record has
 * no name at all, which callers report as a skipped record.
 */
export function finishEntity(entity: WatchlistEntity): boolean {
  const idx = entity.names.findIndex((n) => n.kind === "primary");
  if (idx > 0) {
    const [primary] = entity.names.splice(idx, 1);
    if (primary) entity.names.unshift(primary);
  }
  const first = entity.names[0];
  if (!first) return false;
  if (idx < 0) first.kind = "primary";
  entity.primaryName = first.name;
  return true;
}
