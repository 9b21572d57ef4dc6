import { countryToIso2 } from "../../../lib/countries";
import type { PepPosition, WatchlistEntity } from "../../entity";
import { addAddress, addBirth, addIdentifier, addName, addNationality, dropEmpty, finishEntity, joinParts, newEntity } from "../common/build";
import { parsePartialDate } from "../common/dates";
import { type FtmEntity, prop } from "./ftm-json";
import { isInternationalTitle } from "./international";
import { WIKIDATA_URL } from "./map";

export const OPENSANCTIONS_URL = "https://www.opensanctions.org/entities/";

/** A Position entity reduced to what an occupancy needs. */
export interface FtmPosition {
  title: string;
  countries: string[];
  international: boolean;
  wikidataId?: string;
}

export interface FtmOccupancy {
  post?: string;
  start?: string;
  end?: string;
}

/** Title used when the source records an occupancy without saying which post. */
export const UNNAMED_POST = "Position not specified in source";

const ID_PROPS: readonly (readonly [string, string])[] = [
  ["passportNumber", "passport"],
  ["idNumber", "national_id"],
  ["taxNumber", "tax_id"],
  ["innCode", "tax_id"],
  ["registrationNumber", "registration"],
];

export function toFtmPosition(entity: FtmEntity): FtmPosition {
  const title = prop(entity, "name")[0] ?? entity.caption ?? entity.id;
  const topics = prop(entity, "topics");
  const countries = prop(entity, "country")
    .map((c) => countryToIso2(c))
    .filter((c): c is string => c !== undefined);
  const wikidataId = prop(entity, "wikidataId")[0];
  const international = topics.includes("gov.igo") || isInternationalTitle(title) || prop(entity, "country").some((c) => c.toLowerCase() === "eu");
  return wikidataId ? { title, countries, international, wikidataId } : { title, countries, international };
}

function position(title: string, post: FtmPosition | undefined, occupancy: FtmOccupancy | undefined, fallback?: string): PepPosition {
  const international = post?.international ?? isInternationalTitle(title);
  const country = international ? undefined : (post?.countries[0] ?? fallback);
  return dropEmpty({
    title,
    positionId: post?.wikidataId,
    country,
    international,
    start: parsePartialDate(occupancy?.start)?.date,
    end: parsePartialDate(occupancy?.end)?.date,
  });
}

function verifyUrl(entity: FtmEntity): string {
  const qid = prop(entity, "wikidataId").find((q) => /^Q\d+$/.test(q)) ?? (/^Q\d+$/.test(entity.id) ? entity.id : undefined);
  return qid ? WIKIDATA_URL + qid : OPENSANCTIONS_URL + entity.id;
}

/**
 * Maps an FtM Person. Positions come from its Occupancies (with their Position), then from the
 * free-text `position` property; a PEP topic with neither still counts as an unnamed post.
 * The `position` text is only PEP evidence when the person has PEP topics (role.pep, gov.*) or
 * no topics at all: sanctions exports use it for job titles ("Owner of LLC CST").
 */
export function mapFtmPerson(
  entity: FtmEntity,
  occupancies: readonly FtmOccupancy[],
  positions: ReadonlyMap<string, FtmPosition>,
): WatchlistEntity | undefined {
  const out = newEntity({ source: "WIKIDATA", externalId: entity.id, entityType: "person", verifyUrl: verifyUrl(entity) });
  addName(out, entity.caption, "primary", "strong");
  for (const n of prop(entity, "name")) addName(out, n, "aka", "strong");
  for (const n of prop(entity, "alias")) addName(out, n, "aka", "strong");
  for (const n of prop(entity, "weakAlias")) addName(out, n, "aka", "weak");
  for (const n of prop(entity, "previousName")) addName(out, n, "fka", "strong");
  if (!finishEntity(out)) return undefined;
  const place = prop(entity, "birthPlace")[0];
  const birthCountry = countryToIso2(prop(entity, "birthCountry")[0]);
  for (const d of prop(entity, "birthDate")) {
    const date = parsePartialDate(d);
    if (date) addBirth(out, dropEmpty({ ...date, place, country: birthCountry }));
  }
  const death = prop(entity, "deathDate").map((d) => parsePartialDate(d)).find(Boolean);
  if (death || prop(entity, "deathDate").length > 0) {
    out.deceased = true;
    if (death) out.dateOfDeath = death.date;
  }
  for (const c of [...prop(entity, "citizenship"), ...prop(entity, "nationality"), ...prop(entity, "country")]) addNationality(out, c);
  const gender = prop(entity, "gender")[0]?.toLowerCase();
  if (gender === "male" || gender === "female") out.gender = gender;
  for (const [name, type] of ID_PROPS) {
    for (const number of prop(entity, name)) addIdentifier(out, { type, label: name, number });
  }
  for (const a of prop(entity, "address")) addAddress(out, { full: a });
  const remarks = joinParts([...prop(entity, "description"), ...prop(entity, "notes")], "; ");
  if (remarks) out.remarks = remarks;
  const home = out.nationalities[0];
  const pepPositions: PepPosition[] = [];
  for (const occ of occupancies) {
    const post = occ.post ? positions.get(occ.post) : undefined;
    pepPositions.push(position(post?.title ?? UNNAMED_POST, post, occ, home));
  }
  const topics = prop(entity, "topics");
  const pepTopic = topics.some((t) => t === "role.pep" || t.startsWith("gov."));
  const positionText = topics.length === 0 || pepTopic ? prop(entity, "position") : [];
  for (const title of positionText) {
    if (!pepPositions.some((p) => p.title === title)) pepPositions.push(position(title, undefined, undefined, home));
  }
  if (pepPositions.length === 0 && pepTopic) pepPositions.push(position(UNNAMED_POST, undefined, undefined, home));
  out.pep = { positions: pepPositions, relations: [] };
  return out;
}
