import type { PepStreamStats } from "./importers/wikidata/stream-stats";
import { type PepStreamJob, reviveStreamError, type StreamError } from "./pep-stream-job";
import type { EntityRow } from "./store/types";

export type PepStreamMessage = { type: "start"; job: PepStreamJob; credits: number } | { type: "more" };
export type PepStreamEvent =
  | { type: "rows"; rows: EntityRow[] }
  | { type: "end"; stats: PepStreamStats }
  | { type: "error"; error: StreamError };

/** Batches the worker may have sent ahead of the importer: parsing never waits for a write, nor runs far ahead of it. */
const CREDITS = 4;

/**
 * The worker's script, a file beside this one. In the executable, scripts/build.ts adds it as an
 * entry point at the same path under the bundle's root as under src/, and import.meta.url is the
 * bundle's root (the executable's own name there), not this file.
 */
const WORKER_URL = import.meta.url.includes("/$bunfs/")
  ? new URL("./watchlists/pep-stream-worker.ts", import.meta.url).href
  : new URL("./pep-stream-worker.ts", import.meta.url).href;

/**
 * Streams a large PEP import on a worker thread (pep-stream-worker.ts) and yields its entities as
 * stored rows, a batch at a time. The caller's thread is left the diff and the inserts, so it keeps
 * serving while the worker parses. `stats` is filled in when the stream ends; an error in the files
 * is thrown here as the ListParseError the parser raised. Stopping early (return or throw in the
 * consumer) terminates the worker.
 */
export async function* pepRowsFromWorker(job: PepStreamJob, stats: PepStreamStats, workerUrl: string = WORKER_URL): AsyncGenerator<EntityRow[]> {
  const worker = new Worker(workerUrl);
  const events: PepStreamEvent[] = [];
  let wake: (() => void) | null = null;
  const push = (event: PepStreamEvent) => {
    events.push(event);
    wake?.();
    wake = null;
  };
  worker.addEventListener("message", (event: MessageEvent<PepStreamEvent>) => push(event.data));
  worker.addEventListener("error", (event) => push({ type: "error", error: { kind: "other", message: event.message || "the worker failed" } }));
  // Only read before "end" or "error": a worker that exits without either died (out of memory, killed).
  worker.addEventListener("close", () => push({ type: "error", error: { kind: "other", message: "the worker stopped before the end of the files" } }));
  try {
    const start: PepStreamMessage = { type: "start", job, credits: CREDITS };
    worker.postMessage(start);
    for (;;) {
      while (events.length === 0) await new Promise<void>((resolve) => (wake = resolve));
      const event = events.shift() as PepStreamEvent;
      if (event.type === "error") throw reviveStreamError(event.error);
      if (event.type === "end") {
        Object.assign(stats, event.stats);
        return;
      }
      yield event.rows;
      const more: PepStreamMessage = { type: "more" };
      worker.postMessage(more);
    }
  } finally {
    worker.terminate();
  }
}
