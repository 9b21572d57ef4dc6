import type { Db } from "@/storage/db";
import type { Logger } from "@/lib/logger";
import { runPaced } from "@/lib/steps";
import type { WatchlistEntity } from "./entity";
import { getSnapshot, latestSnapshotId, snapshotVersions, versionEntities } from "./store/read";
import type { ListSnapshot, ListVersion } from "./store/types";

/** What screening reads: one snapshot, its versions, and the index built from its entities. */
export interface LoadedLists<Index> {
  snapshot: ListSnapshot;
  versions: ListVersion[];
  index: Index;
  loadedAt: string;
  loadMs: number;
}

/** Builds an index from entities fed one at a time, so a snapshot is never held whole in memory. */
export interface IndexAssembly<Index> {
  add(entity: WatchlistEntity): void;
  finish(): Index;
  /** finish() in steps the caller may pause between (the matcher's builder has them). */
  finishSteps?(): Generator<void, Index>;
}

/**
 * How long a reload works on the request thread before it lets requests in, checked after each
 * entity and each step of the index's finishing work. Counting entities (a pause every 5,000) gave
 * stretches of 60-134 ms on the real lists, and the finishing work ran 160-200 ms in one piece:
 * requests stalled 150-430 ms while a new edition loaded (soak probe). A few finishing steps (the
 * posting order, the lookup tables) still run whole: the longest stall measured since is 17 ms.
 */
const RELOAD_SLICE_MS = 5;

export type IndexBuilder<Index> = () => IndexAssembly<Index>;

/**
 * Holds the serving snapshot and swaps it by reference: a screen that already took `current()`
 * finishes on the old index, the next one gets the new. Reloads are single-flight and triggered
 * by polling the latest snapshot id, so an import by the CLI in another process is picked up
 * within one poll interval.
 */
/**
 * Why nothing is served when no list was ever imported. The appliance never screens against lists it
 * was not given: the fictional demo list is loaded only when `aml serve --demo` asks for it, so that a
 * production server started before its first import answers 503, not Clear from fictional data.
 */
export const NO_LIST_IMPORTED =
  "No watchlist has been imported into this data folder: import the official list files with `aml lists import` (or start `aml serve --demo` to try the appliance on the FICTIONAL demo list).";

export class WatchlistRuntime<Index> {
  private loaded: LoadedLists<Index> | null = null;
  private loading: Promise<boolean> | null = null;
  private lastError: string | null = null;
  /** The last refresh found no snapshot at all (nothing was ever imported). */
  private noneImported = false;
  private readonly listeners: Array<(next: LoadedLists<Index>, previous: LoadedLists<Index> | null) => void> = [];

  constructor(
    private readonly db: Db,
    private readonly build: IndexBuilder<Index>,
    private readonly log: Logger,
  ) {}

  current(): LoadedLists<Index> | null {
    return this.loaded;
  }

  status(): { ready: boolean; snapshotId: string | null; loading: boolean; lastError: string | null } {
    return { ready: this.loaded !== null, snapshotId: this.loaded?.snapshot.id ?? null, loading: this.loading !== null, lastError: this.lastError };
  }

  /** Why no snapshot is served (null while one is): none imported, a failed load, or still loading. */
  notServingReason(): string | null {
    if (this.loaded !== null) return null;
    if (this.noneImported) return NO_LIST_IMPORTED;
    if (this.lastError !== null) return `The watchlist snapshot failed to load (${this.lastError}); see the server log.`;
    return "The watchlist snapshot is still loading; retry shortly.";
  }

  onSwap(listener: (next: LoadedLists<Index>, previous: LoadedLists<Index> | null) => void): void {
    this.listeners.push(listener);
  }

  /** Loads the latest snapshot if it differs from the serving one; true when a swap happened. */
  refresh(): Promise<boolean> {
    this.loading ??= this.reload().finally(() => {
      this.loading = null;
    });
    return this.loading;
  }

  private async reload(): Promise<boolean> {
    const latestId = latestSnapshotId(this.db);
    this.noneImported = latestId === null;
    if (!latestId || latestId === this.loaded?.snapshot.id) return false;
    const started = performance.now();
    try {
      const snapshot = getSnapshot(this.db, latestId);
      if (!snapshot) return false;
      const versions = snapshotVersions(this.db, snapshot);
      const assembly = this.build();
      let count = 0;
      const db = this.db;
      // The whole build as steps (one per entity, then the index's finishing steps), paced so that
      // requests keep being served on the old index while the new one is built.
      function* build(): Generator<void, Index> {
        for (const version of versions) {
          for (const entity of versionEntities(db, version.id)) {
            assembly.add(entity);
            count++;
            yield;
          }
        }
        return assembly.finishSteps ? yield* assembly.finishSteps() : assembly.finish();
      }
      const index = await runPaced(build(), RELOAD_SLICE_MS);
      const previous = this.loaded;
      const next: LoadedLists<Index> = {
        snapshot,
        versions,
        index,
        loadedAt: new Date().toISOString(),
        loadMs: Math.round(performance.now() - started),
      };
      this.loaded = next;
      this.lastError = null;
      this.log.info({ snapshotId: snapshot.id, entities: count, loadMs: next.loadMs }, "watchlist snapshot loaded");
      for (const listener of this.listeners) listener(next, previous);
      return true;
    } catch (error) {
      this.lastError = (error as Error).message;
      this.log.error({ err: error, snapshotId: latestId }, "watchlist snapshot failed to load; the previous one keeps serving");
      return false;
    }
  }
}
