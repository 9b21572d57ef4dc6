import type { PepRelation, WatchlistEntity } from "../../entity";
import type { PersonLink } from "./relations";
import type { PepStreamStats } from "./stream-stats";

const FIELD = "\u001f";
const RECORD = "\u001e";

export interface PepAssemblerOptions {
  /** Name of a related person, for the relations kept on a PEP's own record. */
  nameOf?: (id: string) => string | undefined;
  /** False for PEPs no other person can point at, so a million-PEP stream need not remember them. */
  mayBeLinked?: (id: string) => boolean;
}

/** A person as a parser mapped it, with its family and associate links. */
export interface MappedPerson {
  entity: WatchlistEntity;
  links: PersonLink[];
}

/**
 * Decides which persons of a PEP file are listed. A person with a position is a PEP and is
 * emitted at once, its family links kept for reference. A person without one is listed only
 * as a relative or associate of a PEP in the same input (a link in either direction); since
 * the PEP may come later in the file, such persons wait until the end of the input. What is
 * remembered per PEP is packed into strings: at a million persons, objects cost too much.
 */
export class PepAssembler {
  skipped = 0;
  private readonly pepNames = new Map<string, string>();
  private readonly inbound = new Map<string, string>();
  /** Waiting persons as JSON text: a fifth of a PEP file may wait here, and text is ~3x smaller than objects. */
  private readonly pending: string[] = [];

  constructor(private readonly options: PepAssemblerOptions = {}) {}

  /**
   * Runs a parser's stream of mapped persons through the assembler: PEPs as they come, relatives
   * and associates after the last person; counts what it emits and skips into `stats`.
   */
  async *assemble(persons: AsyncIterable<MappedPerson>, stats: PepStreamStats): AsyncGenerator<WatchlistEntity> {
    for await (const { entity, links } of persons) {
      const ready = this.add(entity, links);
      if (ready) {
        stats.emitted++;
        yield ready;
      }
    }
    for (const entity of this.finish()) {
      stats.emitted++;
      yield entity;
    }
    stats.skippedPersons += this.skipped;
  }

  /** Returns the entity when it can be emitted now. */
  add(entity: WatchlistEntity, links: PersonLink[]): WatchlistEntity | undefined {
    const pep = entity.pep ?? { positions: [], relations: [] };
    entity.pep = pep;
    if (pep.positions.length === 0) {
      if (links.length > 0 || this.options.mayBeLinked?.(entity.externalId) !== false) this.pending.push(JSON.stringify({ entity, links }));
      else this.skipped++;
      return undefined;
    }
    const id = entity.externalId;
    if (this.options.mayBeLinked?.(id) !== false) this.pepNames.set(id, entity.primaryName);
    for (const link of links) {
      const packed = `${id}${FIELD}${link.inverse}`;
      const existing = this.inbound.get(link.targetId);
      this.inbound.set(link.targetId, existing ? `${existing}${RECORD}${packed}` : packed);
      addRelation(pep.relations, relation(link.targetId, this.options.nameOf?.(link.targetId), link.relationship));
    }
    return entity;
  }

  /** Relatives and associates of PEPs, once every PEP of the input has been seen. */
  *finish(): Generator<WatchlistEntity> {
    for (const text of this.pending) {
      const { entity, links } = JSON.parse(text) as { entity: WatchlistEntity; links: PersonLink[] };
      const relations: PepRelation[] = [];
      for (const link of links) {
        const name = this.pepNames.get(link.targetId);
        if (name !== undefined) addRelation(relations, relation(link.targetId, name, link.relationship));
      }
      for (const packed of (this.inbound.get(entity.externalId) ?? "").split(RECORD)) {
        const [pepId, relationship] = packed.split(FIELD);
        if (pepId && relationship) addRelation(relations, relation(pepId, this.pepNames.get(pepId), relationship));
      }
      if (relations.length === 0) {
        this.skipped++;
        continue;
      }
      entity.pep = { positions: [], relations };
      yield entity;
    }
    this.pending.length = 0;
  }
}

function relation(relatedId: string, relatedName: string | undefined, relationship: string): PepRelation {
  return relatedName ? { relatedId, relatedName, relationship } : { relatedId, relationship };
}

function addRelation(list: PepRelation[], r: PepRelation): void {
  if (!list.some((x) => x.relatedId === r.relatedId && x.relationship === r.relationship)) list.push(r);
}
