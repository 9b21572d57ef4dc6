import { type Edition, type EditionClash, type EditionRelation, editionClash, editionsOf, type ListPart, listParts, relateEditions } from "./editions";
import type { ParsedList, SourceList, WatchlistEntity } from "./entity";
import { EditionConflictError } from "./errors";
import { mergeEntity } from "./importers/common/list";
import type { ParsedPart } from "./parse-files";

/**
 * One version per source: an import may carry several parts of one source (OFAC's SDN set and its
 * consolidated non-SDN list, or one list in two formats published the same day). Editions of one list
 * that are not provably the same edition are refused with EditionConflictError. A party on two
 * different lists is folded into one record; a record in two formats of one edition is taken from the
 * part ordered last. The version's publication date is the oldest known part's, so maxDataAgeDays
 * never overstates freshness.
 */
export function mergeBySource(parts: readonly ParsedPart[]): MergedPart[] {
  const groups = new Map<SourceList, ParsedPart[]>();
  for (const part of parts) groups.set(part.list.source, [...(groups.get(part.list.source) ?? []), part]);
  return [...groups.values()].map((group) => (group.length === 1 ? single(group[0]!) : mergeParts(group)));
}

/** One source's part of an import, with the lists it holds (not for PEP data, which is no list of records a publisher keeps). */
export interface MergedPart extends ParsedPart {
  lists?: ListPart[];
}

function single(part: ParsedPart): MergedPart {
  if (part.list.source === "WIKIDATA") return part;
  // The publications of one part (OFAC's two CSV sets) are different lists, or mergeParts' rule would have had them.
  return { ...part, lists: listParts(editionsOf(part), () => false) };
}

/** Which pairs of editions are the same edition; throws when two are editions of one list that are not. */
class EditionRelations {
  private readonly same = new Map<Edition, Set<Edition>>();

  constructor(source: SourceList, editionsByPart: ReadonlyArray<readonly Edition[]>) {
    const clashes: EditionClash[] = [];
    for (const [i, editions] of editionsByPart.entries()) {
      for (const later of editionsByPart.slice(i + 1)) {
        for (const a of editions) for (const b of later) this.relate(a, b, clashes);
      }
    }
    if (clashes.length > 0) throw new EditionConflictError(source, clashes);
  }

  private relate(a: Edition, b: Edition, clashes: EditionClash[]): void {
    const { relation, shared } = relateEditions(a, b);
    if (relation === "conflict") clashes.push(editionClash(a, b, shared));
    if (relation !== "same") return;
    this.same.set(a, (this.same.get(a) ?? new Set()).add(b));
    this.same.set(b, (this.same.get(b) ?? new Set()).add(a));
  }

  of(a: Edition, b: Edition): Exclude<EditionRelation, "conflict"> {
    return this.same.get(a)?.has(b) ? "same" : "distinct";
  }
}

interface Seen {
  entity: WatchlistEntity;
  edition: Edition;
}

function mergeParts(parts: readonly ParsedPart[]): MergedPart {
  const source = parts[0]!.list.source;
  // Oldest first (undated before dated), so within one edition the part ordered last is kept.
  const ordered = [...parts].sort((a, b) => (a.list.publishedAt ?? "").localeCompare(b.list.publishedAt ?? ""));
  const editions = ordered.map(editionsOf);
  // PEP parts (an FtM file and wbgetentities responses) are dated by their latest record change, not
  // a publication, and overlap by design: they are never editions of one list, so they fold.
  const relations = source === "WIKIDATA" ? null : new EditionRelations(source, editions);
  const byId = new Map<string, Seen>();
  const warnings: string[] = [];
  for (const [i, part] of ordered.entries()) {
    const partEditions = editions[i]!;
    for (const entity of part.list.entities) {
      const edition = partEditions.find((e) => e.externalIds.has(entity.externalId)) ?? partEditions[0]!;
      const seen = byId.get(entity.externalId);
      if (!seen) byId.set(entity.externalId, { entity, edition });
      else if (relations?.of(seen.edition, edition) === "same") {
        warnings.push(`${source} ${entity.externalId} is in ${seen.edition.files[0]} and ${edition.files[0]}, one edition in two formats; kept the ${edition.format} record`);
        byId.set(entity.externalId, { entity, edition });
      } else {
        mergeEntity(seen.entity, entity);
        warnings.push(`${source} ${entity.externalId} is in both ${seen.edition.files[0]} and ${edition.files[0]}: one party on both lists; records merged`);
      }
    }
    warnings.push(...part.list.warnings);
  }
  const merged = { list: mergedList(ordered, byId, warnings), inputs: ordered.flatMap((p) => p.inputs) };
  return relations === null ? merged : { ...merged, lists: listParts(editions.flat(), (a, b) => relations.of(a, b) === "same") };
}

function mergedList(ordered: readonly ParsedPart[], byId: ReadonlyMap<string, Seen>, warnings: string[]): ParsedList {
  const dates = ordered.map((p) => p.list.publishedAt).filter((d): d is string => d !== null);
  const cutShort = ordered.flatMap((p) => p.list.cutShort ?? []);
  return {
    source: ordered[0]!.list.source,
    format: [...new Set(ordered.map((p) => p.list.format))].join("+"),
    publishedAt: dates[0] ?? null,
    entities: [...byId.values()].map((s) => s.entity),
    warnings,
    files: [...new Set(ordered.flatMap((p) => p.list.files))],
    ...(cutShort.length > 0 ? { cutShort } : {}),
  };
}
