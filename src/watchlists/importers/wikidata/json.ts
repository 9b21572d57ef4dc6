import type { PartialDate } from "../../entity";
import { isoFromParts } from "../common/dates";

export interface WdSnak {
  snaktype?: string;
  datavalue?: { value?: unknown; type?: string };
}

export interface WdStatement {
  mainsnak?: WdSnak;
  rank?: string;
  qualifiers?: Record<string, WdSnak[]>;
}

export interface WdEntity {
  id: string;
  type?: string;
  modified?: string;
  labels?: Record<string, { language?: string; value?: string }>;
  aliases?: Record<string, { language?: string; value?: string }[]>;
  descriptions?: Record<string, { value?: string }>;
  claims?: Record<string, WdStatement[]>;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Narrows parsed JSON to an entity. Only `id` is checked here; every other field is read
 * defensively by the helpers below, which tolerate missing or odd-shaped parts.
 */
export function asWdEntity(value: unknown): WdEntity | undefined {
  return isObject(value) && typeof value.id === "string" ? (value as unknown as WdEntity) : undefined;
}

/** Entities inside one parsed JSON value: a wbgetentities response, an array, or one entity. */
export function entitiesIn(value: unknown): WdEntity[] {
  if (Array.isArray(value)) return value.map(asWdEntity).filter((e): e is WdEntity => e !== undefined);
  if (isObject(value) && isObject(value.entities)) {
    return Object.values(value.entities)
      .map(asWdEntity)
      .filter((e): e is WdEntity => e !== undefined);
  }
  const one = asWdEntity(value);
  return one ? [one] : [];
}

export function statements(entity: WdEntity, property: string): WdStatement[] {
  return (entity.claims?.[property] ?? []).filter((s) => s.rank !== "deprecated");
}

export function snakItemId(snak: WdSnak | undefined): string | undefined {
  const value = snak?.datavalue?.value;
  return isObject(value) && typeof value.id === "string" ? value.id : undefined;
}

export function snakString(snak: WdSnak | undefined): string | undefined {
  const value = snak?.datavalue?.value;
  return typeof value === "string" ? value : undefined;
}

export function itemIds(entity: WdEntity, property: string): string[] {
  return statements(entity, property)
    .map((s) => snakItemId(s.mainsnak))
    .filter((id): id is string => id !== undefined);
}

/** Wikidata time value ("+1952-10-07T00:00:00Z", precision 11=day 10=month 9=year 8=decade). */
export function snakDate(snak: WdSnak | undefined): PartialDate | undefined {
  const value = snak?.datavalue?.value;
  if (!isObject(value) || typeof value.time !== "string") return undefined;
  const m = /^\+(\d{4,})-(\d{2})-(\d{2})T/.exec(value.time);
  if (!m) return undefined;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const precision = typeof value.precision === "number" ? value.precision : 11;
  if (precision >= 11) return wrap(isoFromParts(year, month, day));
  if (precision === 10) return wrap(isoFromParts(year, month));
  if (precision === 9) return wrap(isoFromParts(year));
  if (precision === 8) {
    const from = Math.floor(year / 10) * 10;
    return { date: String(from), yearFrom: from, yearTo: from + 9, circa: true };
  }
  return undefined;
}

function wrap(date: string | undefined): PartialDate | undefined {
  return date ? { date } : undefined;
}

export function qualifier(statement: WdStatement, property: string): WdSnak | undefined {
  return statement.qualifiers?.[property]?.[0];
}

/** The English label, else the multilingual one, else any label. */
export function bestLabel(entity: WdEntity): string | undefined {
  const labels = entity.labels ?? {};
  return labels.en?.value ?? labels.mul?.value ?? Object.values(labels)[0]?.value;
}
