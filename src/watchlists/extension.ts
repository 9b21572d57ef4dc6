import type { AppContext } from "@/context";
import type { Db } from "@/storage/db";
import type { Logger } from "@/lib/logger";
import type { ServerExtension } from "@/server";
import { type ListFile, importListFiles } from "./import";
import { listRoutes } from "./routes";
import { type IndexBuilder, WatchlistRuntime } from "./runtime";
import { latestSnapshotId } from "./store/read";

export interface WatchlistExtension<Index> extends ServerExtension {
  /** The serving lists; available once the server has started. */
  runtime(): WatchlistRuntime<Index>;
}

export interface WatchlistExtensionOptions {
  /** Fictional demo list loaded on first start when nothing was ever imported. */
  demoFiles?: () => ListFile[];
  /** How often the server looks for a snapshot imported by another process (the CLI). */
  pollMs?: number;
}

/** Watchlist serving for `aml serve`: demo seeding, loading, hot reload, readiness, list routes. */
export function watchlistExtension<Index>(build: IndexBuilder<Index>, options: WatchlistExtensionOptions = {}): WatchlistExtension<Index> {
  let runtime: WatchlistRuntime<Index> | null = null;
  const ensure = (db: Db, log: Logger) => {
    runtime ??= new WatchlistRuntime(db, build, log);
    return runtime;
  };
  return {
    runtime() {
      if (!runtime) throw new Error("watchlist runtime used before the server started");
      return runtime;
    },
    readiness() {
      const status = runtime?.status();
      return {
        name: "watchlists",
        ready: status?.ready ?? false,
        detail: status?.ready ? `snapshot ${status.snapshotId} loaded` : (runtime?.notServingReason() ?? "loading"),
      };
    },
    routes: (deps) => listRoutes(deps, () => ensure(deps.db, deps.log)),
    async start(ctx: AppContext, scheduler) {
      const lists = ensure(ctx.db, ctx.log);
      if (latestSnapshotId(ctx.db) === null && options.demoFiles) await seedDemo(ctx, options.demoFiles());
      await lists.refresh();
      scheduler.register({
        name: "watchlists.reload",
        intervalMs: options.pollMs ?? 2_000,
        async tick() {
          await lists.refresh();
          return false;
        },
      });
    },
  };
}

async function seedDemo(ctx: AppContext, files: ListFile[]): Promise<void> {
  try {
    const report = await importListFiles(ctx.db, files, { actor: { type: "system", id: "demo-seed" } }, { isDemo: true });
    ctx.log.warn({ snapshotId: report.snapshot?.id }, "no watchlist was ever imported: loaded the FICTIONAL demo list; import official files with `aml lists import`");
  } catch (error) {
    ctx.log.error({ err: error }, "demo list failed to load");
  }
}
