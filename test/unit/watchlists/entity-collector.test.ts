import { describe, expect, test } from "bun:test";
import type { WatchlistEntity } from "@/watchlists/entity";
import { newEntity } from "@/watchlists/importers/common/build";
import { EntityCollector } from "@/watchlists/importers/common/list";

const person = (externalId: string): WatchlistEntity => ({
  ...newEntity({ source: "OFAC", externalId, entityType: "person", verifyUrl: "https://example.test/" }),
  primaryName: "QUILLFEATHER, Boris",
  names: [{ name: "QUILLFEATHER, Boris", kind: "primary", quality: "strong", originalScript: false }],
});

describe("EntityCollector warnings for a repeated id", () => {
  test("an id read from two files names both: a party on two lists, not a repeated record", () => {
    const collector = new EntityCollector();
    collector.add(person("9647"), "sdn.csv line 1126", "sdn.csv");
    collector.add(person("9647"), "cons_prim.csv line 9", "cons_prim.csv");
    expect(collector.entities()).toHaveLength(1);
    expect(collector.warnings).toEqual(["id 9647 is in both sdn.csv line 1126 and cons_prim.csv line 9: one party on both lists; records merged"]);
  });

  test("an id repeated within one file says so", () => {
    const collector = new EntityCollector();
    collector.add(person("1"), "un.xml line 3", "un.xml");
    collector.add(person("1"), "un.xml line 9", "un.xml");
    collector.add(person("2"), "line 12");
    collector.add(person("2"), "line 20");
    expect(collector.warnings).toEqual(["un.xml line 9: id 1 appears more than once; records merged", "line 20: id 2 appears more than once; records merged"]);
  });
});
