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
 * Imports are single-flight across processes (the CLI and the server share the data folder): a
 * lease row in app_meta, renewed while the import runs and reclaimable once expired after a crash.
 */
export async function withImportLock<T>(db: Db, holder: string, body: () => Promise<T>): Promise<T> {
  const owner = newId();
  acquire(db, owner, holder);
  const renew = setInterval(() => {
    try {
      writeTx(db, () => put(db, { owner, holder, expiresAt: new Date(Date.now() + TTL_MS).toISOString() }));
    } catch {
      // A failed renewal only shortens the lease; the import itself decides success.
    }
  }, TTL_MS / 3);
  try {
    return await body();
  } finally {
    clearInterval(renew);
    writeTx(db, () => db.sqlite.run("DELETE FROM app_meta WHERE key = ? AND json_extract(value, '$.owner') = ?", [KEY, owner]));
  }
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
    put(db, { owner, holder, expiresAt: new Date(Date.now() + TTL_MS).toISOString() });
  });
}

function put(db: Db, value: LockValue): void {
  db.sqlite.run("INSERT INTO app_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value", [
    KEY,
    JSON.stringify({ ...value, host: hostname() }),
  ]);
}
