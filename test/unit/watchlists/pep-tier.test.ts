import { describe, expect, test } from "bun:test";
import type { PepInfo, PepPosition, WatchlistEntity } from "@/watchlists/entity";
import { newEntity } from "@/watchlists/importers/common/build";
import { derivePepTiers } from "@/watchlists/pep-tier";

function person(pep?: PepInfo): WatchlistEntity {
  const base: WatchlistEntity = {
    ...newEntity({ source: "WIKIDATA", externalId: "Q1", entityType: "person", verifyUrl: "https://www.wikidata.org/wiki/Q1" }),
    primaryName: "Test Person",
    names: [{ name: "Test Person", kind: "primary", quality: "strong", originalScript: false }],
  };
  return pep ? { ...base, pep } : base;
}

const pos = (country: string | undefined, international = false): PepPosition =>
  country ? { title: "Minister", country, international } : { title: "Minister", international };
const rel = { relatedId: "Q2", relationship: "spouse" };

describe("derivePepTiers", () => {
  test.each([
    ["home-country position", [pos("GB")], [], "GB", ["Domestic"]],
    ["lower-case codes compare equal", [pos("gb")], [], "GB", ["Domestic"]],
    ["other-country position", [pos("FR")], [], "GB", ["Foreign"]],
    ["position without a country counts as foreign", [pos(undefined)], [], "GB", ["Foreign"]],
    ["international body", [pos(undefined, true)], [], "GB", ["InternationalOrganization"]],
    ["international wins over its country field", [pos("GB", true)], [], "GB", ["InternationalOrganization"]],
    ["several positions, tiers in canonical order", [pos(undefined, true), pos("FR"), pos("GB")], [], "GB", ["Domestic", "Foreign", "InternationalOrganization"]],
    ["listed through a relation only", [], [rel], "GB", ["FamilyOrAssociate"]],
    ["a PEP's own family links add no tier", [pos("GB")], [rel], "GB", ["Domestic"]],
    ["no home country: nothing is domestic", [pos("GB")], [], null, ["Foreign"]],
    ["no positions, no relations", [], [], "GB", []],
  ] as const)("%s", (_name, positions, relations, home, expected) => {
    expect(derivePepTiers(person({ positions: [...positions], relations: [...relations] }), home)).toEqual([...expected]);
  });

  test("a sanctions entity without PEP facts has no tier", () => {
    expect(derivePepTiers(person(), "GB")).toEqual([]);
  });
});
