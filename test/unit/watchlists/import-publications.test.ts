import { describe, expect, setDefaultTimeout, test } from "bun:test";
import type { ParsedList, WatchlistEntity } from "@/watchlists/entity";
import { ListParseError } from "@/watchlists/errors";
import { mergeBySource } from "@/watchlists/merge-sources";
import { newEntity } from "@/watchlists/importers/common/build";
import { type ParsedPart, parseListParts } from "@/watchlists/parse-files";
import { listFile as file, REAL_FILE_TIMEOUT } from "./shared-files";

setDefaultTimeout(REAL_FILE_TIMEOUT);

describe("several publications of one source in one import", () => {
  test("OFSI's ConList and the FCDO list together are refused: no shared id, so merged every UK party would be listed twice", async () => {
    const parsing = parseListParts([file("uk/ConList.xlsx"), file("uk/FCDO_SL_2025-08-11_summary.ods")]);
    expect(parsing).rejects.toBeInstanceOf(ListParseError);
    expect(parsing).rejects.toThrow("two publications of the UK list with different record ids");
  });

  test("two files of one OFAC XML format may come together; the edition rule decides (the same file twice is one edition)", async () => {
    const parts = await parseListParts([file("ofac/consolidated.xml", "CONS_1.XML"), file("ofac/consolidated.xml", "CONS_2.XML")]);
    expect(parts).toHaveLength(2);
    const [merged] = mergeBySource(parts);
    expect(merged?.list.entities).toHaveLength(445);
    expect(merged?.inputs.map((f) => f.name)).toEqual(["CONS_1.XML", "CONS_2.XML"]);
  });
});

function wikidataPart(publishedAt: string, ids: readonly string[], name: string): ParsedPart {
  const entities = ids.map(
    (id): WatchlistEntity => ({
      ...newEntity({ source: "WIKIDATA", externalId: id, entityType: "person", verifyUrl: `https://www.wikidata.org/wiki/${id}` }),
      primaryName: `Person ${id}`,
      names: [{ name: `Person ${id}`, kind: "primary", quality: "strong", originalScript: false }],
    }),
  );
  const list: ParsedList = { source: "WIKIDATA", format: "ftm-json", publishedAt, entities, warnings: [], files: [name] };
  return { list, inputs: [{ name, bytes: new Uint8Array() }] };
}

describe("PEP parts", () => {
  test("overlapping Wikidata parts with different dates fold: they are dated by their latest change, not a publication", () => {
    const [merged] = mergeBySource([wikidataPart("2024-03-14", ["Q1", "Q2", "Q3"], "a.ftm.json"), wikidataPart("2025-01-02", ["Q2", "Q3", "Q4"], "b.json")]);
    expect(merged?.list.entities.map((e) => e.externalId).sort()).toEqual(["Q1", "Q2", "Q3", "Q4"]);
  });
});
