import type { WatchlistEntity } from "../../entity";
import { ListParseError } from "../../errors";
import { laterDate } from "../common/dates";
import type { LineSource } from "../common/lines";
import { type MappedPerson, PepAssembler } from "./assemble";
import { entitiesIn, type WdEntity } from "./json";
import { addToLookup, labelOf, type WikidataLookup } from "./lookup";
import { isHuman, mapWikidataPerson } from "./map";
import { newPepStreamStats, type PepStreamStats } from "./stream-stats";

export interface WikidataStreamOptions {
  file?: string;
  /** Labels and country facts of referenced items; non-human entities met in the stream are added to it. */
  lookup?: WikidataLookup;
  stats?: PepStreamStats;
}

/**
 * Parses one line of a Wikidata dump (`[`, `]`, entity lines with a trailing comma) or a
 * one-line wbgetentities response. Returns [] for the array brackets and blank lines.
 */
export function parseWikidataLine(line: string, file: string, lineNo: number): WdEntity[] {
  let s = line.trim();
  if (s === "" || s === "[" || s === "]") return [];
  if (s.endsWith(",")) s = s.slice(0, -1);
  let value: unknown;
  try {
    value = JSON.parse(s);
  } catch (err) {
    throw new ListParseError({ file, location: `line ${lineNo}`, reason: "invalid JSON (the file may be cut short)", cause: err });
  }
  return entitiesIn(value);
}

/** An entity with where it was read, for warnings. */
export interface LocatedEntity {
  item: WdEntity;
  where: string;
}

export async function* entitiesOfLines(lines: LineSource, file: string): AsyncGenerator<LocatedEntity> {
  let lineNo = 0;
  for await (const line of lines) {
    lineNo++;
    for (const item of parseWikidataLine(line, file, lineNo)) yield { item, where: `${file} line ${lineNo}` };
  }
}

/**
 * Turns Wikidata entities into PEP entities: humans (P31=Q5) with positions at once, their
 * relatives and associates after the last entity. Non-human entities feed the lookup.
 */
export async function* pepFromWikidataEntities(
  items: AsyncIterable<LocatedEntity> | Iterable<LocatedEntity>,
  opts: WikidataStreamOptions = {},
): AsyncGenerator<WatchlistEntity> {
  const lookup = opts.lookup ?? new Map();
  const stats = opts.stats ?? newPepStreamStats();
  const assembler = new PepAssembler({ nameOf: (id) => labelOf(lookup, id) });
  yield* assembler.assemble(wikidataPersons(items, lookup, stats), stats);
}

/** Humans mapped to persons with their links; every other entity goes into the lookup. */
async function* wikidataPersons(
  items: AsyncIterable<LocatedEntity> | Iterable<LocatedEntity>,
  lookup: WikidataLookup,
  stats: PepStreamStats,
): AsyncGenerator<MappedPerson> {
  for await (const { item, where } of items) {
    stats.publishedAt = laterDate(stats.publishedAt, item.modified);
    if (!isHuman(item)) {
      addToLookup(lookup, item);
      continue;
    }
    const mapped = mapWikidataPerson(item, lookup);
    if (!mapped) {
      stats.warnings.push(`${where}: ${item.id} has no label; skipped`);
      continue;
    }
    yield mapped;
  }
}

/**
 * Streams Wikidata entity JSON lines (a dump, with or without the enclosing `[`/`]` and
 * trailing commas) into PEP entities, for batch inserts of large files. A broken line throws
 * ListParseError, possibly after entities were yielded: consume inside a transaction.
 */
export function parseWikidataLines(lines: LineSource, opts: WikidataStreamOptions = {}): AsyncGenerator<WatchlistEntity> {
  return pepFromWikidataEntities(entitiesOfLines(lines, opts.file ?? "wikidata"), opts);
}

/** Every entity of a whole JSON text (pretty-printed wbgetentities responses included), else by line. */
export function wikidataEntitiesFromText(file: string, text: string): WdEntity[] {
  const trimmed = text.trimStart();
  if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
    try {
      return entitiesIn(JSON.parse(text));
    } catch {
      // Not one JSON document: a dump with one entity per line.
    }
  }
  const out: WdEntity[] = [];
  let lineNo = 0;
  for (const line of text.split("\n")) out.push(...parseWikidataLine(line, file, ++lineNo));
  return out;
}
