import type { ParsedPart } from "./parse-files";
import { publishedAtUtc } from "./published-at";

/** What an operator needs to tell two editions apart: their files, format and publication date. */
export interface EditionSummary {
  files: readonly string[];
  format: string;
  publishedAt: string | null;
}

/** An edition in a refusal: publishedAt in the API's UTC form, and the day that was compared. */
export interface ClashingEdition extends EditionSummary {
  /** The publication day as the publisher wrote it (publicationDay); null when undated. */
  publicationDay: string | null;
}

/** Two editions of one list, published on different dates (or not provably the same), in one import. */
export interface EditionClash {
  editions: readonly [ClashingEdition, ClashingEdition];
  /** Records (external ids) the two have in common. */
  shared: number;
}

/** One edition of a list as it came into an import: a file, or an OFAC CSV set, with its records' ids. */
export interface Edition extends EditionSummary {
  externalIds: ReadonlySet<string>;
}

/**
 * How two parts of one source relate. distinct: different lists that may share a few parties
 * (OFAC's SDN list and its consolidated non-SDN list). same: one edition of one list, such as one
 * list in two formats published the same day. conflict: editions of one list that are not provably
 * the same, which must not be merged.
 */
export type EditionRelation = "distinct" | "same" | "conflict";

/**
 * Which publication of the UK list a format belongs to: OFSI's Consolidated List or the FCDO UK
 * Sanctions List. They identify records differently (OFSI Group ID, FCDO Unique ID).
 */
export function ukPublication(format: string | undefined): "ofsi" | "fcdo" | undefined {
  if (format?.startsWith("uk-ofsi")) return "ofsi";
  if (format?.startsWith("uk-fcdo")) return "fcdo";
  return undefined;
}

/** The editions a parsed part holds: one, or one per publication it combines. */
export function editionsOf(part: ParsedPart): Edition[] {
  const { format, publishedAt } = part.list;
  if (part.publications) return part.publications.map((p) => ({ format, publishedAt, files: p.files, externalIds: p.externalIds }));
  return [{ format, publishedAt, files: part.list.files, externalIds: new Set(part.list.entities.map((e) => e.externalId)) }];
}

function sharedCount(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let n = 0;
  for (const id of small) if (large.has(id)) n++;
  return n;
}

/**
 * The publication day on the publisher's own calendar, as written (or the publisher's text when it
 * is no ISO date); null when undated. Not the UTC day: the EU stamps its XML with a local time and
 * offset ("2025-08-02T01:30:00+02:00") and its CSV of the same run with that local date, and the
 * two must compare as one day.
 */
export function publicationDay(publishedAt: string | null): string | null {
  if (publishedAt === null) return null;
  // A date, a date with a zone ("2025-08-02Z", "2025-08-02+02:00") or a date-time: its date part.
  return /^\s*(\d{4}-\d{2}-\d{2})(?:$|[T\sZz+-])/.exec(publishedAt)?.[1] ?? publishedAt;
}

/**
 * Editions of one list sharing most records are the same edition only when they provably carry the
 * same publication: the same day, or (without a date in either) the same format. An undated part
 * beside a dated one may be any age, so it counts as a different edition.
 */
function sameEdition(a: Edition, b: Edition): boolean {
  const [dayA, dayB] = [publicationDay(a.publishedAt), publicationDay(b.publishedAt)];
  if (dayA === null && dayB === null) return a.format === b.format;
  return dayA === dayB;
}

/** Two parts are editions of one list when they share at least half of the smaller one's records. */
export function relateEditions(a: Edition, b: Edition): { relation: EditionRelation; shared: number } {
  const shared = sharedCount(a.externalIds, b.externalIds);
  const smaller = Math.min(a.externalIds.size, b.externalIds.size);
  if (shared === 0 || shared * 2 < smaller) return { relation: "distinct", shared };
  return { relation: sameEdition(a, b) ? "same" : "conflict", shared };
}

export function editionClash(a: Edition, b: Edition, shared: number): EditionClash {
  // publishedAt in the form every version's takes in the API, so the two compare as text; the day
  // as compared, which may differ from publishedAt's UTC day.
  const summary = (e: Edition): ClashingEdition => ({
    files: [...e.files],
    format: e.format,
    publishedAt: publishedAtUtc(e.publishedAt),
    publicationDay: publicationDay(e.publishedAt),
  });
  return { editions: [summary(a), summary(b)], shared };
}

/**
 * One list a version was read from: OFAC's SDN list, or its consolidated non-SDN list, in whatever
 * format. Kept with the version so that the next import can tell whether it still holds each list.
 */
export interface ListPart {
  /** Its files, the main one first (all of them when it came in two formats of one day). */
  files: string[];
  /** How many records it held. */
  records: number;
  /**
   * Up to LIST_SAMPLE ids of its records on no other list of the version, spread over them in sorted
   * order. Not the shared ones: OFAC lists 60 parties on both of its lists, and an import of the SDN
   * files alone still holds those.
   */
  sampleIds: string[];
}

/** Enough ids to tell a list that is still there, however it changed, from one that is gone. */
export const LIST_SAMPLE = 64;

/**
 * The lists among a source's editions: editions that are one edition of one list (the same day in
 * two formats) are one list. `sameEdition(a, b)` says which are.
 */
export function listParts(editions: readonly Edition[], sameEdition: (a: Edition, b: Edition) => boolean): ListPart[] {
  const groups: Edition[][] = [];
  for (const edition of editions) {
    const group = groups.find((g) => g.some((other) => sameEdition(other, edition)));
    if (group) group.push(edition);
    else groups.push([edition]);
  }
  const largest = groups.map((group) => group.reduce((a, b) => (b.externalIds.size > a.externalIds.size ? b : a)).externalIds);
  return groups.map((group, i) => {
    const others = largest.filter((_, j) => j !== i);
    const own = [...largest[i]!].filter((id) => !others.some((ids) => ids.has(id)));
    return { files: [...new Set(group.flatMap((e) => e.files))], records: largest[i]!.size, sampleIds: spreadSample(own) };
  });
}

function spreadSample(ids: readonly string[]): string[] {
  const sorted = [...ids].sort();
  if (sorted.length <= LIST_SAMPLE) return sorted;
  return Array.from({ length: LIST_SAMPLE }, (_, i) => sorted[Math.floor((i * sorted.length) / LIST_SAMPLE)]!);
}
