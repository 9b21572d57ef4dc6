import type { PepRelation, WatchlistEntity } from "../../entity";
import type { PersonLink } from "./relations";

/**
 * Decides which persons of a PEP file are listed. A person with a position is a PEP and is
 * emitted at once, its family links kept for reference. A person without one is listed only
 * as a relative or associate of a PEP in the same input (a link in either direction); since
 * the PEP may come later in the file, such persons wait until the end of the input.
 */
export class PepAssembler {
  skipped = 0;
  private readonly pepNames = new Map<string, string>();
  private readonly inbound = new Map<string, PepRelation[]>();
  private readonly pending: { entity: WatchlistEntity; links: PersonLink[] }[] = [];

  constructor(private readonly nameOf: (id: string) => string | undefined = () => undefined) {}

  /** Returns the entity when it can be emitted now. */
  add(entity: WatchlistEntity, links: PersonLink[]): WatchlistEntity | undefined {
    const pep = entity.pep ?? { positions: [], relations: [] };
    entity.pep = pep;
    if (pep.positions.length === 0) {
      this.pending.push({ entity, links });
      return undefined;
    }
    this.pepNames.set(entity.externalId, entity.primaryName);
    for (const link of links) {
      const list = this.inbound.get(link.targetId) ?? [];
      list.push({ relatedId: entity.externalId, relatedName: entity.primaryName, relationship: link.inverse });
      this.inbound.set(link.targetId, list);
      addRelation(pep.relations, relation(link.targetId, this.nameOf(link.targetId), link.relationship));
    }
    return entity;
  }

  /** Relatives and associates of PEPs, once every PEP of the input has been seen. */
  *finish(): Generator<WatchlistEntity> {
    for (const { entity, links } of this.pending) {
      const relations: PepRelation[] = [];
      for (const link of links) {
        const name = this.pepNames.get(link.targetId);
        if (name !== undefined) addRelation(relations, relation(link.targetId, name, link.relationship));
      }
      for (const r of this.inbound.get(entity.externalId) ?? []) addRelation(relations, r);
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
