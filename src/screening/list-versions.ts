import type { ResolvedOptions } from "@/matching/options-resolve";
import { staleSources } from "@/matching/screen";
import type { SourceList } from "@/watchlists/entity";
import type { LoadedLists } from "@/watchlists/runtime";
import type { ListVersionRef, ScreeningListVersions } from "./types";

type SelectingOptions = Pick<ResolvedOptions, "lists" | "maxDataAgeDays">;

/**
 * The versions the screen read: only the lists it selected, and the selected lists the snapshot does
 * not hold named as not loaded, so a Clear cannot be read as covering a list nobody imported; those
 * older than maxDataAgeDays at the screen's time named as stale.
 */
export function selectedListVersions(
  lists: Pick<LoadedLists<unknown>, "snapshot" | "versions">,
  options: SelectingOptions,
  at: Date,
): ScreeningListVersions {
  const sources: ListVersionRef[] = [];
  for (const v of lists.versions) {
    if (options.lists.includes(v.source)) sources.push({ source: v.source, versionId: v.id, publishedAt: v.publishedAt, isDemo: v.isDemo });
  }
  return listVersionsOf(lists.snapshot.id, sources, options, at);
}

/**
 * The listVersions of a screening from what it stored (the snapshot, the versions read, its options
 * and time): notLoaded, stale and isDemo are derived, so a record reads the same when the screen
 * answers and whenever it is read later, records stored before a field existed included.
 */
export function listVersionsOf(snapshotId: string, sources: ListVersionRef[], options: SelectingOptions, at: Date): ScreeningListVersions {
  return {
    snapshotId,
    sources,
    notLoaded: notLoadedLists(options.lists, sources),
    stale: staleLists(options, sources, at),
    isDemo: sources.some((s) => s.isDemo),
  };
}

/**
 * The stale lists that were loaded: a list not loaded is stale too (staleLists), and a summary names
 * it once, as not loaded.
 */
export function staleButLoaded<List extends string>(stale: readonly List[], notLoaded: readonly List[]): List[] {
  return stale.filter((list) => !notLoaded.includes(list));
}

/** Selected lists with no version among the sources read. */
export function notLoadedLists(selected: readonly SourceList[], sources: readonly Pick<ListVersionRef, "source">[]): SourceList[] {
  return selected.filter((list) => !sources.some((s) => s.source === list));
}

/**
 * Selected lists whose version read was published more than maxDataAgeDays before `at`, or carries
 * no date, or was not loaded at all; [] without a limit. The matcher's rule (staleSources), which
 * also flags each match from such a list.
 */
export function staleLists(options: SelectingOptions, sources: readonly Pick<ListVersionRef, "source" | "publishedAt">[], at: Date): SourceList[] {
  const sourcePublishedAt: Partial<Record<SourceList, string | null>> = {};
  for (const s of sources) sourcePublishedAt[s.source] = s.publishedAt;
  return staleSources(options, { sourcePublishedAt, now: at });
}
