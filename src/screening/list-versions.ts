import type { SourceList } from "@/watchlists/entity";
import type { LoadedLists } from "@/watchlists/runtime";
import type { ListVersionRef, ScreeningListVersions } from "./types";

/**
 * The versions the screen read: only the lists it selected, and the selected lists the snapshot does
 * not hold named as not loaded, so a Clear cannot be read as covering a list nobody imported.
 */
export function selectedListVersions(
  lists: Pick<LoadedLists<unknown>, "snapshot" | "versions">,
  selected: readonly SourceList[],
): ScreeningListVersions {
  const sources: ListVersionRef[] = [];
  for (const v of lists.versions) {
    if (selected.includes(v.source)) sources.push({ source: v.source, versionId: v.id, publishedAt: v.publishedAt, isDemo: v.isDemo });
  }
  return { snapshotId: lists.snapshot.id, sources, notLoaded: notLoadedLists(selected, sources), isDemo: sources.some((s) => s.isDemo) };
}

/** Selected lists with no version among the sources read. */
export function notLoadedLists(selected: readonly SourceList[], sources: readonly ListVersionRef[]): SourceList[] {
  return selected.filter((list) => !sources.some((s) => s.source === list));
}
