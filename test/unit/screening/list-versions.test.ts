import { expect, test } from "bun:test";
import { notLoadedLists, selectedListVersions, staleLists } from "@/screening/list-versions";
import { ageInDays, publishedAtMs } from "@/watchlists/published-at";
import type { ListSnapshot, ListVersion } from "@/watchlists/store/types";

const version = (source: ListVersion["source"], id: string, isDemo = false, publishedAt: string | null = "2026-11-01T00:00:00.000Z") =>
  ({ source, id, publishedAt, isDemo }) as ListVersion;
const lists = {
  snapshot: { id: "snap-1" } as ListSnapshot,
  versions: [version("OFAC", "v-ofac"), version("UN", "v-un"), version("WIKIDATA", "v-wd")],
};
const AT = new Date("2026-11-21T12:00:00.000Z");
const noLimit = (selected: ListVersion["source"][]) => ({ lists: selected, maxDataAgeDays: null });

test("a screen records only the versions of the lists it selected, and the selected lists not loaded", () => {
  expect(selectedListVersions(lists, noLimit(["OFAC", "EU", "UN"]), AT)).toEqual({
    snapshotId: "snap-1",
    sources: [
      { source: "OFAC", versionId: "v-ofac", publishedAt: "2026-11-01T00:00:00.000Z", isDemo: false },
      { source: "UN", versionId: "v-un", publishedAt: "2026-11-01T00:00:00.000Z", isDemo: false },
    ],
    notLoaded: ["EU"],
    stale: [],
    isDemo: false,
  });
  expect(selectedListVersions(lists, noLimit(["WIKIDATA"]), AT).sources.map((s) => s.source)).toEqual(["WIKIDATA"]);
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
  const read = selectedListVersions(demo, noLimit(["OFAC", "WIKIDATA"]), AT);
  expect(read.sources.map((s) => s.isDemo)).toEqual([false, true]);
  expect(read.isDemo).toBe(true);
  expect(selectedListVersions(demo, noLimit(["OFAC"]), AT).isDemo).toBe(false);
});

test("stale: selected lists published more than maxDataAgeDays before the screen, undated, or not loaded", () => {
  const aged = {
    snapshot: { id: "snap-3" } as ListSnapshot,
    versions: [
      version("OFAC", "v-ofac", false, "2026-11-20T00:00:00.000Z"), // 1.5 days before AT
      version("UN", "v-un", false, "2026-11-10T00:00:00.000Z"), // 11.5 days
      version("UK", "v-uk", false, null), // no date in the file
      version("WIKIDATA", "v-wd", false, "2026-01-01T00:00:00.000Z"), // old, but not selected
    ],
  };
  const read = selectedListVersions(aged, { lists: ["OFAC", "UN", "UK", "EU"], maxDataAgeDays: 10 }, AT);
  expect(read.stale).toEqual(["UN", "UK", "EU"]);
  expect(read.notLoaded).toEqual(["EU"]);
  // Without a limit nothing is stale, however old.
  expect(selectedListVersions(aged, { lists: ["UN", "UK", "WIKIDATA"], maxDataAgeDays: null }, AT).stale).toEqual([]);
  // Judged at the screen's time: at 15 November, UN (5 days old) was fresh; the undated UK never is.
  expect(staleLists({ lists: ["OFAC", "UN", "UK"], maxDataAgeDays: 10 }, read.sources, new Date("2026-11-15T00:00:00.000Z"))).toEqual(["UK"]);
});

test("only ISO 8601 dates count: text Date.parse would read loosely, or in the host's time zone, is undated", () => {
  const at = (publishedAt: string | null) => staleLists({ lists: ["UN"], maxDataAgeDays: 1 }, [{ source: "UN", publishedAt }], AT);
  // Date.parse reads "Week 47" as the year 2047: a list that looks fresh for ever, were it read so.
  expect(at("Week 47")).toEqual(["UN"]);
  // A space for the T: Date.parse reads it in the server's time zone.
  expect(at("2026-11-20 23:30")).toEqual(["UN"]);
  expect(at("2026-11-21T00:00:00.000Z")).toEqual([]);
  // A date alone is its first instant, UTC, as publishedAtUtc stores it.
  expect(at("2026-11-21")).toEqual([]);
  expect(ageInDays("Week 47", AT)).toBeNull();
  expect(publishedAtMs("2026-11-20 23:30")).toBeNull();
  expect(publishedAtMs("2026-11-20T23:30:00+02:00")).toBe(Date.parse("2026-11-20T21:30:00.000Z"));
});

test("stale when the whole days of age are more than the limit: agrees with ageDays at the boundary", () => {
  const limit = { lists: ["UN" as const], maxDataAgeDays: 1 };
  // 1 day and 12 hours: ageDays 1, not more than 1.
  expect(ageInDays("2026-11-20T00:00:00.000Z", AT)).toBe(1);
  expect(staleLists(limit, [{ source: "UN", publishedAt: "2026-11-20T00:00:00.000Z" }], AT)).toEqual([]);
  // 2 days and 12 hours: ageDays 2.
  expect(ageInDays("2026-11-19T00:00:00.000Z", AT)).toBe(2);
  expect(staleLists(limit, [{ source: "UN", publishedAt: "2026-11-19T00:00:00.000Z" }], AT)).toEqual(["UN"]);
});

test("options stored without maxDataAgeDays mean no limit", () => {
  const stored = { lists: ["UN" as const, "EU" as const] } as unknown as { lists: ["UN", "EU"]; maxDataAgeDays: null };
  expect(staleLists(stored, [{ source: "UN", publishedAt: "2020-01-01T00:00:00.000Z" }], AT)).toEqual([]);
});
