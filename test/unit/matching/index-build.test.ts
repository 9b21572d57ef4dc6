import { describe, expect, test } from "bun:test";
import { buildIndex, IndexBuilder } from "../../../src/matching/index";
import type { WatchlistEntity } from "../../../src/watchlists/entity";
import { newEntity } from "../../../src/watchlists/importers/common/build";
import { derivePepTiers, pepTiersOf } from "../../../src/watchlists/pep-tier";
import { FIXTURE_ENTITIES } from "../../fixtures/matching/entities";
import { fixtureIndex } from "./helpers";

describe("match cards", () => {
  test("every entity's card shows what the entity says, decoded from bytes", () => {
    const index = fixtureIndex();
    expect(index.entityCount).toBe(FIXTURE_ENTITIES.length);
    expect(FIXTURE_ENTITIES.some((e) => e.pep)).toBe(true);
    FIXTURE_ENTITIES.forEach((entity, e) => {
      const card = index.cards.get(e);
      expect(card.source).toBe(entity.source);
      expect(card.externalId).toBe(entity.externalId);
      expect(card.entityType).toBe(entity.entityType);
      expect(card.primaryName).toBe(entity.primaryName);
      expect(card.names).toEqual(entity.names.map((n) => ({ name: n.name, kind: n.kind, quality: n.quality })));
      expect(card.programmes).toEqual(entity.programmes);
      expect(card.deceased).toBe(entity.deceased);
      expect(card.verifyUrl).toBe(entity.verifyUrl);
      for (const home of [null, "GB", "RU", "US"]) {
        expect(pepTiersOf(card.pep, home)).toEqual(derivePepTiers(entity, home));
      }
    });
  });

  test("a URL that ends in the record id and one that does not both come back exactly", () => {
    const base: WatchlistEntity = {
      ...newEntity({ source: "OFAC", externalId: "12345", entityType: "person", verifyUrl: "https://sanctionssearch.ofac.treas.gov/Details.aspx?id=12345" }),
      primaryName: "Ivo Ersatz",
      names: [{ name: "ERSATZ, Ivo", kind: "primary", quality: "strong", originalScript: false }],
      programmes: ["SDGT"],
    };
    const other: WatchlistEntity = { ...base, externalId: "UNX.1", primaryName: "Ivo Ersatz", verifyUrl: "https://www.un.org/securitycouncil/content/un-sc-consolidated-list", source: "UN" };
    const index = buildIndex([base, other]);
    expect(index.cards.get(0).verifyUrl).toBe(base.verifyUrl);
    // The primary name differs from the first listed name: it is kept, not derived.
    expect(index.cards.get(0).primaryName).toBe("Ivo Ersatz");
    expect(index.cards.get(1).verifyUrl).toBe(other.verifyUrl);
    expect(index.cards.byteLength).toBeGreaterThan(0);
  });
});

describe("IndexBuilder", () => {
  test("entities fed one at a time build the same index as the whole array", () => {
    const builder = new IndexBuilder();
    for (const entity of FIXTURE_ENTITIES) builder.add(entity);
    const streamed = builder.finish();
    const whole = fixtureIndex();
    expect(streamed.names.count).toBe(whole.names.count);
    expect([...streamed.names.tokens]).toEqual([...whole.names.tokens]);
    expect([...streamed.vocab.postings.values]).toEqual([...whole.vocab.postings.values]);
    expect([...streamed.vocab.noisePostings.values]).toEqual([...whole.vocab.noisePostings.values]);
    expect([...streamed.entityTable.dob]).toEqual([...whole.entityTable.dob]);
  });

  test("refuses entities after finish, and a second finish", () => {
    const builder = new IndexBuilder();
    builder.add(FIXTURE_ENTITIES[0]!);
    builder.finish();
    expect(() => builder.add(FIXTURE_ENTITIES[1]!)).toThrow();
    expect(() => builder.finish()).toThrow();
  });
});

describe("posting lists", () => {
  test("each list holds distinct names, lightest first, and every name is posted under its tokens", () => {
    const { vocab, names } = fixtureIndex();
    const { start, values } = vocab.postings;
    for (let t = 0; t < vocab.size; t++) {
      const row = [...values.subarray(start[t]!, start[t + 1]!)];
      expect(new Set(row).size).toBe(row.length);
      for (let i = 1; i < row.length; i++) {
        const a = names.weightSum[row[i - 1]!]!;
        const b = names.weightSum[row[i]!]!;
        expect(a < b || (a === b && row[i - 1]! < row[i]!)).toBe(true);
      }
    }
    for (let n = 0; n < names.count; n++) {
      for (let p = names.tokenStart[n]!; p < names.tokenStart[n + 1]!; p++) {
        const t = names.tokens[p]!;
        if (names.tokenFlags[p]! & 1) continue; // noise words are in the noise postings
        expect([...values.subarray(start[t]!, start[t + 1]!)]).toContain(n);
      }
    }
  });

  test("noise postings hold exactly the names that have the token as a noise word, lightest first", () => {
    const { vocab, names } = fixtureIndex();
    const { start, values } = vocab.noisePostings;
    const expected = new Map<number, Set<number>>();
    for (let n = 0; n < names.count; n++) {
      for (let p = names.tokenStart[n]!; p < names.tokenStart[n + 1]!; p++) {
        if (!(names.tokenFlags[p]! & 1)) continue;
        const t = names.tokens[p]!;
        if (!expected.has(t)) expected.set(t, new Set());
        expected.get(t)!.add(n);
      }
    }
    expect(expected.size).toBeGreaterThan(0); // "OAO", "JSC", "PLC", "Mullah" ... in the fixture
    for (let t = 0; t < vocab.size; t++) {
      const row = [...values.subarray(start[t]!, start[t + 1]!)];
      expect(row.sort((a, b) => a - b)).toEqual([...(expected.get(t) ?? [])].sort((a, b) => a - b));
      const ordered = [...values.subarray(start[t]!, start[t + 1]!)];
      for (let i = 1; i < ordered.length; i++) expect(names.weightSum[ordered[i - 1]!]! <= names.weightSum[ordered[i]!]!).toBe(true);
    }
  });
});
