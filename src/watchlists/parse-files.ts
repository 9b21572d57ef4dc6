import { decodeText } from "./decode";
import { type Detection, detectListFile, type ListFormat } from "./detect";
import { ukPublication } from "./editions";
import { type ParsedList, SOURCE_LISTS, type WatchlistEntity } from "./entity";
import { type CutShortFile, ListParseError } from "./errors";
import { EntityCollector } from "./importers/common/list";
import { assembleOfacCsvSets, type OfacCsvRole, requireAliasFile } from "./importers/ofac/csv-sets";
import { mapOfacRecord } from "./importers/ofac/map";
import { parseOfacCsvSet } from "./importers/ofac/parse";
import { parseFtmFiles, parseWikidataFiles, pepWarnings, streamFtmFiles, streamWikidataFiles } from "./importers/wikidata/files";
import { newPepStreamStats, type PepStreamStats } from "./importers/wikidata/stream-stats";
import { type ListFile, parseSingleFile } from "./parse-single";

export type { ListFile };

interface Detected {
  file: ListFile;
  detection: Detection;
}

const OFAC_CSV_ROLES: Partial<Record<ListFormat, OfacCsvRole>> = {
  "ofac-csv-main": "main",
  "ofac-csv-add": "add",
  "ofac-csv-alt": "alt",
  "ofac-csv-comments": "comments",
};

/** A list one file or file set publishes, inside a ParsedList that combines several. */
export interface ListPublication {
  /** Its files, the main one first. */
  files: string[];
  externalIds: ReadonlySet<string>;
}

/** A parsed list with what it was read from, so an import can record each file's own bytes and hash. */
export interface ParsedPart {
  list: ParsedList;
  /** The input files this list was read from, as given: names may repeat (two folders), objects do not. */
  inputs: ListFile[];
  /** Set when the list combines separate publications (OFAC's SDN and consolidated CSV sets). */
  publications?: ListPublication[];
}

/** The OFAC legacy CSV sets of the import (SDN and consolidated non-SDN) as one OFAC list. */
function parseOfacCsvFiles(items: readonly Detected[]): ParsedPart {
  const sets = assembleOfacCsvSets(
    items.map(({ file, detection }) => ({
      name: file.name,
      text: decodeText(file.bytes).text,
      role: OFAC_CSV_ROLES[detection.format] ?? "main",
    })),
  );
  const collector = new EntityCollector();
  const warnings: string[] = [];
  const publications: ListPublication[] = [];
  const cutShort: CutShortFile[] = [];
  for (const set of sets) {
    const outcome = parseOfacCsvSet(set);
    requireAliasFile(set);
    warnings.push(...outcome.warnings);
    cutShort.push(...outcome.cuts);
    for (const record of outcome.records) collector.add(mapOfacRecord(record), record.location, set.main.name);
    const files = [set.main, set.add, set.alt, set.comments].flatMap((f) => (f ? [f.name] : []));
    publications.push({ files, externalIds: new Set(outcome.records.map((r) => r.uid)) });
  }
  const list: ParsedList = {
    source: "OFAC",
    format: "ofac-csv",
    publishedAt: null,
    entities: collector.entities(),
    warnings: [...warnings, ...collector.warnings],
    files: items.map((i) => i.file.name),
    ...(cutShort.length > 0 ? { cutShort } : {}),
  };
  return { list, inputs: items.map((i) => i.file), ...(publications.length > 1 ? { publications } : {}) };
}

/**
 * Detects, parses and maps list files into one ParsedList per source and format. Companion
 * files are grouped by content (an OFAC CSV set; Wikidata label files are a lookup, not
 * entities). Any fatal problem throws ListParseError naming the file and location, and then
 * nothing is returned: a list is imported whole or not at all.
 */
export async function parseListFiles(files: ListFile[]): Promise<ParsedList[]> {
  return (await parseListParts(files)).map((part) => part.list);
}

/** parseListFiles, with the input files and publications each list was read from. */
export async function parseListParts(files: readonly ListFile[]): Promise<ParsedPart[]> {
  const detected: Detected[] = files.map((file) => ({ file, detection: detectListFile(file) }));
  const byFormat = new Map<ListFormat, Detected[]>();
  for (const d of detected) byFormat.set(d.detection.format, [...(byFormat.get(d.detection.format) ?? []), d]);
  const take = (formats: ListFormat[]) => formats.flatMap((f) => byFormat.get(f) ?? []);
  const parts: ParsedPart[] = [];
  const inputsOf = (items: readonly Detected[]) => items.map((d) => d.file);

  const ofacCsv = take(["ofac-csv-main", "ofac-csv-add", "ofac-csv-alt", "ofac-csv-comments"]);
  if (ofacCsv.length > 0) parts.push(parseOfacCsvFiles(ofacCsv));
  const wikidata = take(["wikidata-json"]);
  const labels = take(["wikidata-labels"]);
  if (wikidata.length > 0) {
    parts.push({ list: await parseWikidataFiles(inputsOf(wikidata), inputsOf(labels)), inputs: inputsOf([...wikidata, ...labels]) });
  } else if (labels.length > 0) {
    throw new ListParseError({ file: labels[0]?.file.name ?? "", location: "whole file", reason: "Wikidata label files need the entity files they describe" });
  }
  const ftm = take(["ftm-json"]);
  if (ftm.length > 0) parts.push({ list: await parseFtmFiles(inputsOf(ftm)), inputs: inputsOf(ftm) });

  refuseTwoUkPublications(byFormat);
  for (const [format, items] of byFormat) {
    if (format.startsWith("ofac-csv") || format === "wikidata-json" || format === "wikidata-labels" || format === "ftm-json") continue;
    // OFAC publishes two lists (SDN and non-SDN) in each XML format: both may come in one import, and
    // mergeBySource's edition rule tells them from two editions of one list.
    if (items.length > 1 && !OFAC_XML_FORMATS.has(format)) {
      throw new ListParseError({
        file: items[1]?.file.name ?? "",
        location: "whole file",
        reason: `same list format (${format}) as ${items[0]?.file.name}: import one version of a list at a time`,
      });
    }
    for (const { file, detection } of items) parts.push({ list: parseSingleFile(file, detection), inputs: [file] });
  }
  const order = (p: ParsedPart) => SOURCE_LISTS.indexOf(p.list.source);
  // Warnings are kept whole here and capped once, where a version is stored (store/record.ts).
  return parts.sort((a, b) => order(a) - order(b) || a.list.format.localeCompare(b.list.format));
}

const OFAC_XML_FORMATS: ReadonlySet<string> = new Set(["ofac-xml", "ofac-advanced-xml"]);

/**
 * OFSI's Consolidated List and the FCDO UK Sanctions List are two publications of the UK list that
 * identify records differently (Group ID; FCDO Unique ID), so they share no id and the edition rule
 * would merge them: every UK party listed twice. One import carries one of them.
 */
function refuseTwoUkPublications(byFormat: ReadonlyMap<string, readonly Detected[]>): void {
  const ofsi = [...byFormat].find(([format]) => ukPublication(format) === "ofsi")?.[1][0];
  const fcdo = [...byFormat].find(([format]) => ukPublication(format) === "fcdo")?.[1][0];
  if (!ofsi || !fcdo) return;
  throw new ListParseError({
    file: fcdo.file.name,
    location: "whole file",
    reason: `the FCDO UK Sanctions List and OFSI's Consolidated List (${ofsi.file.name}) are two publications of the UK list with different record ids; merged, every UK party would be listed twice. Import one of them (switching from OFSI to FCDO: the README's "Switching the UK list")`,
  });
}

/** A PEP list read one entity at a time; `stats` (publication date, warnings) is complete once `entities` ends. */
export interface PepListStream {
  source: "WIKIDATA";
  format: "wikidata-json" | "ftm-json";
  files: string[];
  stats: PepStreamStats;
  entities: AsyncGenerator<WatchlistEntity>;
}

/**
 * For large PEP files (a million persons): detects Wikidata entity JSON or FtM line-JSON files
 * and streams their entities so the caller inserts in batches instead of holding them all.
 * All files must be one PEP format (Wikidata label files may accompany Wikidata entity files).
 * Errors surface as ListParseError from the generator, possibly after entities were yielded,
 * so consume it inside the transaction that stores the list.
 */
export function streamPepListFiles(files: ListFile[]): PepListStream {
  const detected = files.map((file) => ({ file, detection: detectListFile(file) }));
  const of = (format: ListFormat) => detected.filter((d) => d.detection.format === format).map((d) => d.file);
  const other = detected.find((d) => !["wikidata-json", "wikidata-labels", "ftm-json"].includes(d.detection.format));
  const [ftm, wikidata] = [of("ftm-json"), of("wikidata-json")];
  if (other || (ftm.length > 0 && wikidata.length > 0) || ftm.length + wikidata.length === 0) {
    const file = other?.file.name ?? files[0]?.name ?? "";
    throw new ListParseError({ file, location: "whole file", reason: "a PEP stream takes Wikidata entity JSON or FtM line-JSON files of one format only" });
  }
  const stats = newPepStreamStats();
  const names = files.map((f) => f.name);
  if (ftm.length > 0) return { source: "WIKIDATA", format: "ftm-json", files: names, stats, entities: streamFtmFiles(ftm, stats) };
  return { source: "WIKIDATA", format: "wikidata-json", files: names, stats, entities: streamWikidataFiles(wikidata, of("wikidata-labels"), stats) };
}

export { pepWarnings };
