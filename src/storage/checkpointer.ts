import { waitAtMost } from "@/lib/wait-at-most";
import type { Logger } from "@/lib/logger";
import { workerScriptUrl } from "@/lib/worker-script";
import { type Db, walAutocheckpoint } from "./db";

/**
 * WAL checkpoints off the event loop. By default SQLite checkpoints inside the COMMIT that takes
 * the WAL past 1,000 pages: it copies those pages into the database file and fsyncs both files on
 * the server's only thread. Under screening load that was an 8 ms stall about ten times a second,
 * and on storage with slower fsync (network or RAID volumes) each stall is longer still.
 *
 * The server instead turns automatic checkpoints off on its connection and runs PASSIVE
 * checkpoints from a worker thread with its own connection (checkpoint-worker.ts), every
 * CHECKPOINT_INTERVAL_MS while anything is written (CHECKPOINT_IDLE_MAX_MS apart at most when not). A PASSIVE checkpoint never takes the write lock, so it never blocks a
 * commit. The interval is short on purpose: SQLite rewinds the WAL to its start only when a write
 * begins after a checkpoint has copied every frame, and small, frequent checkpoints catch up between
 * commits; at 100 ms they rarely did and the WAL grew without bound.
 *
 * Durability is unchanged: a commit is durable in the WAL exactly as before, and the checkpoint
 * only moves it into the database file. If the worker fails, the connection's automatic
 * checkpoints come back on, and the WAL is checkpointed on the request path as before.
 */
export const CHECKPOINT_INTERVAL_MS = 20;

/**
 * The longest pause between checkpoints while nothing is written. Each tick that finds no new WAL
 * frame doubles the pause up to this, and a tick that finds some goes back to CHECKPOINT_INTERVAL_MS:
 * an idle server woke its worker 50 times a second for nothing (soak probe), and now about once.
 * The first commit after a quiet spell waits at most this long for its frames to be copied, which
 * only lets the WAL grow by that much; durability does not depend on it.
 */
export const CHECKPOINT_IDLE_MAX_MS = 1_000;

/** How long stop() waits for the worker to close its connection before terminating it. */
const STOP_TIMEOUT_MS = 2_000;

export type CheckpointerMessage = { type: "start"; path: string; intervalMs: number; idleMaxMs: number } | { type: "stop" };
export type CheckpointerEvent = { type: "started" } | { type: "failed"; message: string } | { type: "stopped" };

export interface Checkpointer {
  /** Resolves once the worker has started (true) or failed and the connection checkpoints itself again (false). */
  readonly started: Promise<boolean>;
  /** Stops the worker and hands checkpointing back to the connection (its close() then truncates the WAL). */
  stop(): Promise<void>;
}

const WORKER_URL = workerScriptUrl("storage/checkpoint-worker.ts");

/** Starts checkpointing db's WAL from a worker thread; null for an in-memory database, which has no WAL. */
export function startCheckpointer(db: Db, log: Logger, options: { workerUrl?: string } = {}): Checkpointer | null {
  if (db.path === ":memory:") return null;
  let stopping = false;
  let settled = false;
  const { promise: started, resolve: resolveStarted } = Promise.withResolvers<boolean>();
  const settle = (ok: boolean) => {
    if (settled) return;
    settled = true;
    if (ok) log.info({ intervalMs: CHECKPOINT_INTERVAL_MS, idleMaxMs: CHECKPOINT_IDLE_MAX_MS }, "WAL checkpoints run on a worker thread");
    resolveStarted(ok);
  };
  const { promise: closed, resolve: resolveClosed } = Promise.withResolvers<void>();

  // Off before the worker starts, so no automatic checkpoint runs on the event loop meanwhile; the
  // connection's own setting comes back when the worker stops or fails.
  const ownAutocheckpoint = walAutocheckpoint(db);
  db.sqlite.run("PRAGMA wal_autocheckpoint = 0");
  let checkpointingSelf = false;
  const checkpointSelf = (reason: string) => {
    if (checkpointingSelf) return;
    checkpointingSelf = true;
    // A connection setting, not part of any transaction: safe to change while a commit is open.
    db.sqlite.run(`PRAGMA wal_autocheckpoint = ${ownAutocheckpoint}`);
    if (!stopping) log.error({ reason }, "WAL checkpoint worker stopped; checkpointing on the server's connection instead");
    settle(false);
  };

  const worker = new Worker(options.workerUrl ?? WORKER_URL);
  worker.addEventListener("message", (event: MessageEvent<CheckpointerEvent>) => {
    const message = event.data;
    if (message.type === "started") settle(true);
    else if (message.type === "failed") {
      checkpointSelf(message.message);
      worker.terminate();
    }
  });
  worker.addEventListener("error", (event) => {
    checkpointSelf(event.message || "worker error");
    worker.terminate();
  });
  worker.addEventListener("close", () => {
    if (!stopping) checkpointSelf("worker exited");
    resolveClosed();
  });
  // The server's listener keeps the process alive; the checkpointer must not keep a finished CLI or test alive.
  worker.unref();
  worker.postMessage({ type: "start", path: db.path, intervalMs: CHECKPOINT_INTERVAL_MS, idleMaxMs: CHECKPOINT_IDLE_MAX_MS } satisfies CheckpointerMessage);

  return {
    started,
    async stop() {
      if (stopping) return closed;
      stopping = true;
      worker.postMessage({ type: "stop" } satisfies CheckpointerMessage);
      if (!(await waitAtMost(closed, STOP_TIMEOUT_MS))) worker.terminate();
      checkpointSelf("stopped");
    },
  };
}
