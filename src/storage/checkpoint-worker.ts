/**
 * The WAL checkpointer's thread (started by checkpointer.ts). It owns a second connection to the
 * data folder's database and runs a PASSIVE checkpoint every few milliseconds while the server writes
 * (less often while it does not, up to idleMaxMs apart): it copies committed
 * WAL frames into the database file and fsyncs both, which is the slow part of a checkpoint, while
 * the server's event loop keeps serving. PASSIVE never takes the write lock and never waits, so the
 * server's connection, the only writer, is never blocked by it.
 *
 * Messages in (CheckpointerMessage): "start", then "stop". Messages out (CheckpointerEvent):
 * "started" or "failed", then "stopped".
 */
import { Database } from "bun:sqlite";
import type { CheckpointerEvent, CheckpointerMessage } from "./checkpointer";

declare const self: Worker;

let connection: Database | null = null;
let timer: ReturnType<typeof setTimeout> | null = null;

function send(event: CheckpointerEvent): void {
  self.postMessage(event);
}

function start(path: string, intervalMs: number, idleMaxMs: number): void {
  try {
    connection = new Database(path);
    // Never wait: a busy checkpoint (a CLI process checkpointing as it exits) is simply retried on the next tick.
    connection.run("PRAGMA busy_timeout = 0");
    // Per connection, and it decides the checkpoint's fsyncs: NORMAL syncs the WAL before copying it
    // back and the database file after, which is what makes the server's commits safe from a power loss
    // under durability "checkpoint" (db.ts). FULL would add nothing here: it syncs each COMMIT, and this
    // connection commits nothing.
    connection.run("PRAGMA synchronous = NORMAL");
  } catch (error) {
    send({ type: "failed", message: error instanceof Error ? error.message : String(error) });
    return;
  }
  const checkpoint = connection.query<{ busy: number; log: number; checkpointed: number }, []>("PRAGMA wal_checkpoint(PASSIVE)");
  // The WAL's frame count at the last tick. Unchanged, with every frame copied, means nothing was
  // written since and nothing is left to do: the pause doubles (up to idleMaxMs). New frames (a
  // rewound WAL included), frames a reader kept from being copied, or a checkpoint that could not
  // run (busy: another process checkpointing, reported as busy 1 and -1 frames, not thrown) bring
  // it back to intervalMs.
  let lastFrames = -1;
  let pause = intervalMs;
  const tick = () => {
    try {
      const result = checkpoint.get();
      const ran = result !== null && result.busy === 0 && result.log >= 0;
      const idle = ran && result.log === lastFrames && result.checkpointed === result.log;
      pause = idle ? Math.min(pause * 2, idleMaxMs) : intervalMs;
      lastFrames = ran ? result.log : -1;
    } catch {
      // An error other than busy (SQLITE_LOCKED, an I/O error): nothing was lost, the next tick tries again.
      pause = intervalMs;
    }
    timer = setTimeout(tick, pause);
  };
  send({ type: "started" });
  tick();
}

function stop(): void {
  if (timer) clearTimeout(timer);
  connection?.close();
  connection = null;
  send({ type: "stopped" });
  // Exits this thread only (a worker's process.exit does not end the process).
  process.exit(0);
}

self.onmessage = (event: MessageEvent<CheckpointerMessage>) => {
  const message = event.data;
  if (message.type === "start") start(message.path, message.intervalMs, message.idleMaxMs);
  else stop();
};
