import { hostname } from "node:os";
import { ServiceError } from "@/errors";
import { newId } from "@/lib/ids";
import { type Db, writeTx } from "@/storage/db";

const KEY = "lists.import.lock";
const TTL_MS = 60_000;

interface LockValue {
  owner: string;
  holder: string;
  expiresAt: string;
}

/**
 * The running import's hold on the lock. The lease can run out while the import is stalled (a
 * stopped process, a paused VM, swapping) and another import may then take the lock and remove the
 * rows of every version not yet committed, this one's included. So an import proves it still holds
 * the lock inside each write transaction that adds to or publishes its work (a fencing check): once
 * another import has taken the lock, nothing more of this one is written or committed.
 */
export interface ImportLease {
  /** Throws CONFLICT unless this import still holds the lock; call inside the write transaction. */
  assertHeld(): void;
  /** Whether this import still holds the lock (for cleanup that must not touch another import's rows). */
  held(): boolean;
}

/**
 * Imports are single-flight across processes (the CLI and the server share the data folder): a
 * lease row in app_meta, renewed while the import runs and reclaimable once expired after a crash.
 */
export async function withImportLock<T>(db: Db, holder: string, body: (lease: ImportLease) => Promise<T>): Promise<T> {
  const owner = newId();
  acquire(db, owner, holder);
  const renew = setInterval(() => {
    try {
      // Only while still ours: a renewal that overwrote the row would take the lock back from an
      // import that took it over, and both would then write.
      writeTx(db, () =>
        db.sqlite.run("UPDATE app_meta SET value = ? WHERE key = ? AND json_extract(value, '$.owner') = ?", [
          serialise({ owner, holder, expiresAt: new Date(Date.now() + TTL_MS).toISOString() }),
          KEY,
          owner,
        ]),
      );
    } catch {
      // A failed renewal only shortens the lease; the fencing checks decide whether the import may go on.
    }
  }, TTL_MS / 3);
  const held = () => lockOwner(db) === owner;
  const lease: ImportLease = {
    held,
    assertHeld() {
      if (held()) return;
      throw new ServiceError(
        "CONFLICT",
        `This list import (${holder}) lost its lock: it stalled for longer than the ${TTL_MS / 1000} s lease and another import took over. Nothing of it was published; run it again.`,
      );
    },
  };
  try {
    return await body(lease);
  } finally {
    clearInterval(renew);
    writeTx(db, () => db.sqlite.run("DELETE FROM app_meta WHERE key = ? AND json_extract(value, '$.owner') = ?", [KEY, owner]));
  }
}

function lockOwner(db: Db): string | null {
  const row = db.sqlite.query<{ owner: string | null }, [string]>("SELECT json_extract(value, '$.owner') AS owner FROM app_meta WHERE key = ?").get(KEY);
  return row?.owner ?? null;
}

function acquire(db: Db, owner: string, holder: string): void {
  writeTx(db, () => {
    const row = db.sqlite.query<{ value: string }, [string]>("SELECT value FROM app_meta WHERE key = ?").get(KEY);
    if (row) {
      const current = JSON.parse(row.value) as LockValue;
      if (new Date(current.expiresAt).getTime() > Date.now()) {
        throw new ServiceError("CONFLICT", `A list import is already running (${current.holder}); try again when it has finished.`);
      }
    }
    db.sqlite.run("INSERT INTO app_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value", [
      KEY,
      serialise({ owner, holder, expiresAt: new Date(Date.now() + TTL_MS).toISOString() }),
    ]);
  });
}

function serialise(value: LockValue): string {
  return JSON.stringify({ ...value, host: hostname() });
}
