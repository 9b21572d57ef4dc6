import { workerScriptUrl } from "@/lib/worker-script";
import type { PepStreamStats } from "./importers/wikidata/stream-stats";
import { type PepStreamJob, reviveStreamError, type StreamError } from "./pep-stream-job";
import type { EntityRow } from "./store/types";

export type PepStreamMessage = { type: "start"; job: PepStreamJob; credits: number } | { type: "more" };
export type PepStreamEvent =
  | { type: "rows"; rows: EntityRow[] }
  | { type: "end"; stats: PepStreamStats }
  | { type: "error"; error: StreamError };

/**
 * Batches the worker may send before the importer has taken them. Enough that the worker rarely
 * waits for a write; few enough that rows never pile up in memory when the disk is slow.
 */
const CREDITS = 4;

const WORKER_URL = workerScriptUrl("watchlists/pep-stream-worker.ts");

function failure(message: string): PepStreamEvent {
  return { type: "error", error: { kind: "other", name: "Error", message: `PEP stream worker: ${message}` } };
}

/**
 * Runs a PEP stream on a worker thread (pep-stream-worker.ts) and yields its entities as stored
 * rows, a batch at a time, leaving the caller's thread only the diff and the inserts. `stats` is
 * filled in when the stream ends. An error in the files is thrown here as the parser raised it (a
 * ListParseError with its file and line). Stopping early (a return or throw in the consumer)
 * terminates the worker.
 */
export async function* pepRowsFromWorker(job: PepStreamJob, stats: PepStreamStats): AsyncGenerator<EntityRow[]> {
  const worker = new Worker(WORKER_URL);
  const events: PepStreamEvent[] = [];
  let arrived: PromiseWithResolvers<void> | null = null;
  const push = (event: PepStreamEvent) => {
    events.push(event);
    arrived?.resolve();
  };
  worker.addEventListener("message", (event: MessageEvent<PepStreamEvent>) => push(event.data));
  worker.addEventListener("messageerror", () => push(failure("a message could not be read")));
  worker.addEventListener("error", (event) => push(failure(event.message || "the worker failed")));
  // Only read before "end" or "error": a worker that exits without either died (out of memory, killed).
  worker.addEventListener("close", () => push(failure("the worker stopped before the end of the files")));
  try {
    worker.postMessage({ type: "start", job, credits: CREDITS } satisfies PepStreamMessage);
    for (;;) {
      while (events.length === 0) {
        arrived = Promise.withResolvers<void>();
        await arrived.promise;
      }
      const event = events.shift()!;
      if (event.type === "error") throw reviveStreamError(event.error);
      if (event.type === "end") {
        Object.assign(stats, event.stats);
        return;
      }
      yield event.rows;
      worker.postMessage({ type: "more" } satisfies PepStreamMessage);
    }
  } finally {
    worker.terminate();
  }
}
