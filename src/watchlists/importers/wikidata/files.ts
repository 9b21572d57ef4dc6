import type { ParsedList, WatchlistEntity } from "../../entity";
import { decodeText } from "../../decode";
import { byteLines } from "../common/lines";
import { parseFtmSources } from "./ftm-parse";
import { entitiesOfLines, type LocatedEntity, parseWikidataLine, pepFromWikidataEntities, wikidataEntitiesFromText } from "./parse";
import { addToLookup, type WikidataLookup } from "./lookup";
import { newPepStreamStats, type PepStreamStats } from "./stream-stats";

export interface PepFile {
  name: string;
  bytes: Uint8Array;
  /**
   * The file's lines, afresh on each call, for a file too large to hold (read from disk). When set,
   * `bytes` is never read and the file is read as line-JSON, not as one JSON document.
   */
  lines?: () => Iterable<string>;
}

function linesOf(file: PepFile): Iterable<string> {
  return file.lines ? file.lines() : byteLines(file.bytes, file.name);
}

/** Files up to this size may be one JSON document (a wbgetentities response); larger ones are read by line. */
const WHOLE_JSON_LIMIT = 64 * 1024 * 1024;

function wholeDocument(file: PepFile): LocatedEntity[] | undefined {
  if (file.lines || file.bytes.length > WHOLE_JSON_LIMIT) return undefined;
  const text = decodeText(file.bytes).text;
  const first = text.trimStart()[0];
  if (first !== "{" && first !== "[") return undefined;
  try {
    JSON.parse(text);
  } catch {
    return undefined;
  }
  return wikidataEntitiesFromText(file.name, text).map((item) => ({ item, where: file.name }));
}

/**
 * A lookup from the entities of the files (humans too, for the names of relatives); line files
 * are pre-scanned skipping human lines, which are the bulk of a PEP dump.
 */
function buildLookup(files: readonly PepFile[], documents: Map<PepFile, LocatedEntity[]>): WikidataLookup {
  const lookup: WikidataLookup = new Map();
  for (const file of files) {
    const doc = documents.get(file);
    if (doc) {
      for (const { item } of doc) addToLookup(lookup, item);
      continue;
    }
    let lineNo = 0;
    for (const line of linesOf(file)) {
      lineNo++;
      if (line.includes('"Q5"')) continue;
      for (const item of parseWikidataLine(line, file.name, lineNo)) addToLookup(lookup, item);
    }
  }
  return lookup;
}

async function collect(entities: AsyncIterable<WatchlistEntity>): Promise<WatchlistEntity[]> {
  const out: WatchlistEntity[] = [];
  for await (const e of entities) out.push(e);
  return out;
}

/** The stream's warnings plus a summary of the persons that were read but not listed. */
export function pepWarnings(stats: PepStreamStats): string[] {
  const warnings = [...stats.warnings];
  if (stats.skippedPersons > 0) {
    warnings.push(`${stats.skippedPersons} persons have neither a position nor a family or associate link to a PEP of the input; not listed`);
  }
  return warnings;
}

function finish(format: string, files: readonly PepFile[], entities: WatchlistEntity[], stats: PepStreamStats): ParsedList {
  const warnings = pepWarnings(stats);
  return { source: "WIKIDATA", format, publishedAt: stats.publishedAt, entities, warnings, files: files.map((f) => f.name) };
}

/**
 * Wikidata entity JSON files (dump lines or wbgetentities responses) plus label-only files, as a
 * stream: labels and position/country items of every file form the lookup, humans become PEPs.
 */
export function streamWikidataFiles(
  entityFiles: readonly PepFile[],
  labelFiles: readonly PepFile[],
  stats: PepStreamStats,
): AsyncGenerator<WatchlistEntity> {
  const documents = new Map<PepFile, LocatedEntity[]>();
  for (const file of [...entityFiles, ...labelFiles]) {
    const doc = wholeDocument(file);
    if (doc) documents.set(file, doc);
  }
  const lookup = buildLookup([...entityFiles, ...labelFiles], documents);
  async function* items(): AsyncGenerator<LocatedEntity> {
    for (const file of entityFiles) {
      const doc = documents.get(file);
      if (doc) yield* doc;
      else yield* entitiesOfLines(linesOf(file), file.name);
    }
  }
  return pepFromWikidataEntities(items(), { lookup, stats });
}

/** FollowTheMoney line-JSON files, read as one graph, as a stream. */
export function streamFtmFiles(files: readonly PepFile[], stats: PepStreamStats): AsyncGenerator<WatchlistEntity> {
  return parseFtmSources(
    files.map((f) => ({ name: f.name, lines: () => linesOf(f) })),
    stats,
  );
}

export async function parseWikidataFiles(entityFiles: readonly PepFile[], labelFiles: readonly PepFile[]): Promise<ParsedList> {
  const stats = newPepStreamStats();
  const entities = await collect(streamWikidataFiles(entityFiles, labelFiles, stats));
  return finish("wikidata-json", [...entityFiles, ...labelFiles], entities, stats);
}

export async function parseFtmFiles(files: readonly PepFile[]): Promise<ParsedList> {
  const stats = newPepStreamStats();
  const entities = await collect(streamFtmFiles(files, stats));
  return finish("ftm-json", files, entities, stats);
}
