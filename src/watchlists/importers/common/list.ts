import type { ParsedList, SourceList, WatchlistEntity } from "../../entity";
import { addAddress, addBirth, addIdentifier, addName, addProgramme } from "./build";
import type { ParseOutcome } from "./files";

/** Folds a second record with the same external id into the first, keeping every fact once. */
export function mergeEntity(into: WatchlistEntity, from: WatchlistEntity): void {
  for (const n of from.names) addName(into, n.name, n.kind === "primary" ? "aka" : n.kind, n.quality, n.lang);
  for (const b of from.birth) addBirth(into, b);
  for (const c of from.nationalities) if (!into.nationalities.includes(c)) into.nationalities.push(c);
  for (const i of from.identifiers) addIdentifier(into, i);
  for (const a of from.addresses) addAddress(into, a);
  for (const p of from.programmes) addProgramme(into, p);
  if (from.deceased && !into.deceased) {
    into.deceased = true;
    if (from.dateOfDeath) into.dateOfDeath = from.dateOfDeath;
  }
  if (from.listedOn && (!into.listedOn || from.listedOn < into.listedOn)) into.listedOn = from.listedOn;
}

/** A record's place for a warning, naming its file once ("sdn.csv line 12"). */
function where(file: string, location: string): string {
  return location.startsWith(file) ? location : `${file} ${location}`;
}

/** Collects mapped entities by external id; a repeated id is merged and reported. */
export class EntityCollector {
  readonly warnings: string[] = [];
  private readonly byId = new Map<string, WatchlistEntity>();
  /** The file each id was first read from, kept only for collectors fed from several files. */
  private readonly firstFile = new Map<string, { file: string; location: string }>();

  /**
   * `file` names the file the record was read from, when one collector gathers several lists (OFAC's
   * SDN and consolidated CSV sets): an id in both is a party on both lists, not a repeated record.
   */
  add(entity: WatchlistEntity | undefined, location: string, file?: string): void {
    if (!entity) {
      this.warnings.push(`${location}: record has no name; skipped`);
      return;
    }
    const existing = this.byId.get(entity.externalId);
    if (!existing) {
      this.byId.set(entity.externalId, entity);
      if (file !== undefined) this.firstFile.set(entity.externalId, { file, location });
      return;
    }
    mergeEntity(existing, entity);
    this.warnings.push(this.repeatWarning(entity.externalId, location, file));
  }

  private repeatWarning(id: string, location: string, file: string | undefined): string {
    const first = this.firstFile.get(id);
    if (file === undefined || first === undefined || first.file === file) return `${location}: id ${id} appears more than once; records merged`;
    return `id ${id} is in both ${where(first.file, first.location)} and ${where(file, location)}: one party on both lists; records merged`;
  }

  entities(): WatchlistEntity[] {
    return [...this.byId.values()];
  }
}

export function toParsedList<T extends { location: string }>(args: {
  source: SourceList;
  format: string;
  outcome: ParseOutcome<T>;
  map: (record: T) => WatchlistEntity | undefined;
}): Omit<ParsedList, "files"> {
  const collector = new EntityCollector();
  for (const record of args.outcome.records) collector.add(args.map(record), record.location);
  return {
    source: args.source,
    format: args.format,
    publishedAt: args.outcome.publishedAt,
    entities: collector.entities(),
    warnings: [...args.outcome.warnings, ...collector.warnings],
  };
}
