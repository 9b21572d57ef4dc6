import { expect, test } from "bun:test";
import { notLoadedLists, selectedListVersions } from "@/screening/list-versions";
import type { ListSnapshot, ListVersion } from "@/watchlists/store/types";

const version = (source: ListVersion["source"], id: string, isDemo = false) => ({ source, id, publishedAt: "2026-11-01T00:00:00.000Z", isDemo }) as ListVersion;
const lists = {
  snapshot: { id: "snap-1" } as ListSnapshot,
  versions: [version("OFAC", "v-ofac"), version("UN", "v-un"), version("WIKIDATA", "v-wd")],
};

test("a screen records only the versions of the lists it selected, and the selected lists not loaded", () => {
  expect(selectedListVersions(lists, ["OFAC", "EU", "UN"])).toEqual({
    snapshotId: "snap-1",
    sources: [
      { source: "OFAC", versionId: "v-ofac", publishedAt: "2026-11-01T00:00:00.000Z", isDemo: false },
      { source: "UN", versionId: "v-un", publishedAt: "2026-11-01T00:00:00.000Z", isDemo: false },
    ],
    notLoaded: ["EU"],
    isDemo: false,
  });
  expect(selectedListVersions(lists, ["WIKIDATA"]).sources.map((s) => s.source)).toEqual(["WIKIDATA"]);
});

test("not loaded is derived from the selection and the sources read, for records stored before it existed", () => {
  const stored = [
    { source: "OFAC" as const, versionId: "v", publishedAt: null, isDemo: false },
    { source: "UK" as const, versionId: "w", publishedAt: null, isDemo: false },
  ];
  expect(notLoadedLists(["OFAC", "EU", "UN"], stored)).toEqual(["EU", "UN"]);
  expect(notLoadedLists(["OFAC"], stored)).toEqual([]);
});

test("a screen that read the demo list says so, per source and for the whole screen", () => {
  const demo = { snapshot: { id: "snap-2" } as ListSnapshot, versions: [version("OFAC", "v-real"), version("WIKIDATA", "v-demo", true)] };
  const read = selectedListVersions(demo, ["OFAC", "WIKIDATA"]);
  expect(read.sources.map((s) => s.isDemo)).toEqual([false, true]);
  expect(read.isDemo).toBe(true);
  expect(selectedListVersions(demo, ["OFAC"]).isDemo).toBe(false);
});
