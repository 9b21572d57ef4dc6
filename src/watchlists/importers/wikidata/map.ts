import type { PepPosition } from "../../entity";
import { addBirth, addName, dropEmpty, finishEntity, newEntity } from "../common/build";
import { isInternationalPosition } from "./international";
import { bestLabel, itemIds, qualifier, snakDate, snakItemId, statements, type WdEntity } from "./json";
import { countryOfItem, labelOf, type WikidataLookup } from "./lookup";
import { FAMILY_PROPERTIES, linkTo, type PersonLink } from "./relations";
import type { MappedPerson } from "./assemble";

export const WIKIDATA_URL = "https://www.wikidata.org/wiki/";

const MALE = "Q6581097";
const FEMALE = "Q6581072";

export function isHuman(entity: WdEntity): boolean {
  return itemIds(entity, "P31").includes("Q5");
}

/** Current citizenship first: statements without an end date (P582) come before ended ones. */
function citizenships(entity: WdEntity, lookup: WikidataLookup): string[] {
  const sorted = statements(entity, "P27").sort((a, b) => Number(!!qualifier(a, "P582")) - Number(!!qualifier(b, "P582")));
  const out: string[] = [];
  for (const s of sorted) {
    const id = snakItemId(s.mainsnak);
    const iso = id ? countryOfItem(lookup, id) : undefined;
    if (iso && !out.includes(iso)) out.push(iso);
  }
  return out;
}

function positionOf(id: string, lookup: WikidataLookup, fallbackCountry: string | undefined): Omit<PepPosition, "start" | "end"> {
  const info = lookup.get(id);
  const title = info?.label ?? id;
  const related = [...(info?.country ?? []), ...(info?.jurisdiction ?? []), ...(info?.partOf ?? [])];
  if (isInternationalPosition(title, [id, ...related])) return { title, positionId: id, international: true };
  const own = [...(info?.country ?? []), ...(info?.jurisdiction ?? [])].map((c) => countryOfItem(lookup, c)).find(Boolean);
  const country = own ?? fallbackCountry;
  return country ? { title, positionId: id, country, international: false } : { title, positionId: id, international: false };
}

/**
 * Maps a Wikidata human to an entity with PEP positions (P39 with P580/P582) and its family
 * links. Position countries come from the position item (P17, then P1001) when the lookup has
 * it, else from the person's current citizenship.
 */
export function mapWikidataPerson(item: WdEntity, lookup: WikidataLookup): MappedPerson | undefined {
  const entity = newEntity({ source: "WIKIDATA", externalId: item.id, entityType: "person", verifyUrl: WIKIDATA_URL + item.id });
  addName(entity, bestLabel(item), "primary", "strong", item.labels?.en ? "en" : undefined);
  for (const [lang, label] of Object.entries(item.labels ?? {})) addName(entity, label.value, "aka", "strong", lang.split("-")[0]);
  for (const [lang, aliases] of Object.entries(item.aliases ?? {})) {
    for (const alias of aliases) addName(entity, alias.value, "aka", "strong", lang.split("-")[0]);
  }
  if (!finishEntity(entity)) return undefined;
  const birthPlace = snakItemId(statements(item, "P19")[0]?.mainsnak);
  const place = birthPlace ? labelOf(lookup, birthPlace) : undefined;
  for (const s of statements(item, "P569")) {
    const date = snakDate(s.mainsnak);
    if (date) addBirth(entity, dropEmpty({ ...date, place }));
  }
  const death = statements(item, "P570").map((s) => snakDate(s.mainsnak));
  if (death.length > 0) {
    entity.deceased = true;
    const first = death.find(Boolean);
    if (first) entity.dateOfDeath = first.date;
  }
  entity.nationalities = citizenships(item, lookup);
  const sex = itemIds(item, "P21")[0];
  if (sex === MALE) entity.gender = "male";
  else if (sex === FEMALE) entity.gender = "female";
  const description = item.descriptions?.en?.value;
  if (description) entity.remarks = description;
  const positions: PepPosition[] = [];
  for (const s of statements(item, "P39")) {
    const id = snakItemId(s.mainsnak);
    if (!id) continue;
    const start = snakDate(qualifier(s, "P580"))?.date;
    const end = snakDate(qualifier(s, "P582"))?.date;
    positions.push(dropEmpty({ ...positionOf(id, lookup, entity.nationalities[0]), start, end }));
  }
  const links: PersonLink[] = [];
  for (const [property, relationship] of Object.entries(FAMILY_PROPERTIES)) {
    for (const target of itemIds(item, property)) links.push(linkTo(target, relationship));
  }
  entity.pep = { positions, relations: [] };
  return { entity, links };
}
