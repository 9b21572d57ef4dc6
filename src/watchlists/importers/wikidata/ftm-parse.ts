import type { WatchlistEntity } from "../../entity";
import { ListParseError } from "../../errors";
import { laterDate } from "../common/dates";
import type { LineSource } from "../common/lines";
import { type MappedPerson, PepAssembler } from "./assemble";
import { type FtmEntity, parseFtmLine, prop, schemaOfLine } from "./ftm-json";
import { type FtmOccupancy, type FtmPosition, mapFtmPerson, toFtmPosition } from "./ftm-map";
import { linkTo, normalizeRelationship, type PersonLink } from "./relations";
import { newPepStreamStats, type PepStreamStats } from "./stream-stats";

export interface FtmStreamOptions {
  file?: string;
  stats?: PepStreamStats;
}

/** One input file of an FtM import; `lines` must start a fresh iteration on every call. */
export interface FtmSource {
  name: string;
  lines: () => LineSource;
}

/** Everything but the persons. Occupancies are packed into strings: there is one per PEP. */
interface FtmGraph {
  positions: Map<string, FtmPosition>;
  occupancies: Map<string, string>;
  links: Map<string, PersonLink[]>;
}

const FIELD = "\u001f";
const RECORD = "\u001e";

function packOccupancy(occ: FtmOccupancy): string {
  return [occ.post ?? "", occ.start ?? "", occ.end ?? ""].join(FIELD);
}

function unpackOccupancies(packed: string | undefined): FtmOccupancy[] {
  if (!packed) return [];
  return packed.split(RECORD).map((p) => {
    const [post, start, end] = p.split(FIELD);
    const occ: FtmOccupancy = {};
    if (post) occ.post = post;
    if (start) occ.start = start;
    if (end) occ.end = end;
    return occ;
  });
}

const PERSON = "Person";

function push<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

function addLinks(graph: FtmGraph, entity: FtmEntity, otherProp: string, fallback: string): void {
  const relationship = normalizeRelationship(prop(entity, "relationship")[0], fallback);
  for (const person of prop(entity, "person")) {
    for (const other of prop(entity, otherProp)) {
      const link = linkTo(other, relationship);
      push(graph.links, person, link);
      push(graph.links, other, { targetId: person, relationship: link.inverse, inverse: link.relationship });
    }
  }
}

/** First pass: everything but Person entities (Position, Occupancy, Family, Associate). */
async function readGraph(sources: readonly FtmSource[], stats: PepStreamStats): Promise<FtmGraph> {
  const graph: FtmGraph = { positions: new Map(), occupancies: new Map(), links: new Map() };
  for await (const { file, line, lineNo } of numbered(sources)) {
    if (schemaOfLine(line) === PERSON) {
      if (!line.trimEnd().endsWith("}")) {
        throw new ListParseError({ file, location: `line ${lineNo}`, reason: "Person line is cut short (the file may be truncated)" });
      }
      continue;
    }
    const entity = parseFtmLine(line, file, lineNo);
    if (!entity) continue;
    stats.publishedAt = laterDate(stats.publishedAt, entity.last_seen);
    if (entity.schema === "Position") graph.positions.set(entity.id, toFtmPosition(entity));
    else if (entity.schema === "Occupancy") {
      const packed = packOccupancy({ post: prop(entity, "post")[0], start: prop(entity, "startDate")[0], end: prop(entity, "endDate")[0] });
      for (const holder of prop(entity, "holder")) {
        const existing = graph.occupancies.get(holder);
        graph.occupancies.set(holder, existing ? `${existing}${RECORD}${packed}` : packed);
      }
    } else if (entity.schema === "Family") addLinks(graph, entity, "relative", "relative");
    else if (entity.schema === "Associate") addLinks(graph, entity, "associate", "associate");
  }
  return graph;
}

/**
 * Streams FollowTheMoney line-JSON into PEP entities. FtM is a graph (a Person's Occupancies,
 * Positions and Family links are separate lines, in any order), so the input is read twice:
 * `open` must return a fresh iteration of the same lines each time it is called. A broken line
 * throws ListParseError, possibly after entities were yielded: consume inside a transaction.
 */
export function parseFtmLines(open: () => LineSource, opts: FtmStreamOptions = {}): AsyncGenerator<WatchlistEntity> {
  return parseFtmSources([{ name: opts.file ?? "ftm", lines: open }], opts.stats);
}

async function* numbered(sources: readonly FtmSource[]): AsyncGenerator<{ file: string; line: string; lineNo: number }> {
  for (const source of sources) {
    let lineNo = 0;
    for await (const line of source.lines()) yield { file: source.name, line, lineNo: ++lineNo };
  }
}

/** Like parseFtmLines, over several files read as one graph. */
export async function* parseFtmSources(sources: readonly FtmSource[], stats: PepStreamStats = newPepStreamStats()): AsyncGenerator<WatchlistEntity> {
  const graph = await readGraph(sources, stats);
  const assembler = new PepAssembler({ mayBeLinked: (id) => graph.links.has(id) });
  yield* assembler.assemble(ftmPersons(sources, graph, stats), stats);
}

/** The second read: every Person line mapped with its occupancies, positions and links. */
async function* ftmPersons(sources: readonly FtmSource[], graph: FtmGraph, stats: PepStreamStats): AsyncGenerator<MappedPerson> {
  for await (const { file, line, lineNo } of numbered(sources)) {
    if (schemaOfLine(line) !== PERSON) continue;
    const entity = parseFtmLine(line, file, lineNo);
    if (!entity) continue;
    stats.publishedAt = laterDate(stats.publishedAt, entity.last_seen);
    const mapped = mapFtmPerson(entity, unpackOccupancies(graph.occupancies.get(entity.id)), graph.positions);
    if (!mapped) {
      stats.warnings.push(`${file} line ${lineNo}: Person ${entity.id} has no name; skipped`);
      continue;
    }
    yield { entity: mapped, links: graph.links.get(entity.id) ?? [] };
  }
}
