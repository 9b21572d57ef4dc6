import { readFileSync, readlinkSync } from "node:fs";
import { hostname } from "node:os";
import { ServiceError } from "@/errors";
import { newId } from "@/lib/ids";
import { type Db, writeTxWhenFree } from "@/storage/db";

const KEY = "lists.import.lock";
const TTL_MS = 60_000;

interface LockValue {
  owner: string;
  holder: string;
  expiresAt: string;
  /** Where the import runs, so that another process on the same host can tell a crashed holder from a live one. */
  host?: string;
  pid?: number;
  startedAt?: string;
  /**
   * The holder's PID namespace and the host's boot, as Linux names them: a pid means the same process
   * only within one namespace (a container with the host's name, or `unshare`, has its own) and one boot.
   */
  pidNamespace?: string;
  bootId?: string;
}

/**
 * Another import holds the lock, or took it over from this one. Not a mistake in the command (the
 * CLI exits 1, not 2): the same import succeeds once run again when no other import runs.
 */
export class ImportLockError extends ServiceError {
  override name = "ImportLockError";
  constructor(detail: string, retryAfterSeconds?: number) {
    super("CONFLICT", detail, retryAfterSeconds === undefined ? {} : { headers: { "Retry-After": String(retryAfterSeconds) } });
  }
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
  const startedAt = new Date().toISOString();
  // The row as written when taken and at each renewal: a lease of TTL_MS from now.
  const leaseValue = () => serialise({ owner, holder, startedAt, expiresAt: new Date(Date.now() + TTL_MS).toISOString() });
  await acquire(db, leaseValue);
  const renew = setInterval(() => {
    // Only while still ours: a renewal that overwrote the row would take the lock back from an
    // import that took it over, and both would then write.
    writeTxWhenFree(db, () =>
      db.sqlite.run("UPDATE app_meta SET value = ? WHERE key = ? AND json_extract(value, '$.owner') = ?", [leaseValue(), KEY, owner]),
    ).catch(() => {
      // A failed renewal only shortens the lease; the fencing checks decide whether the import may go on.
    });
  }, TTL_MS / 3);
  const held = () => lockOwner(db) === owner;
  const lease: ImportLease = {
    held,
    assertHeld() {
      if (held()) return;
      throw new ImportLockError(
        `This list import (${holder}) lost its lock: it stalled for longer than the ${TTL_MS / 1000} s lease and another import took over. Nothing of it was published; run it again.`,
      );
    },
  };
  try {
    return await body(lease);
  } finally {
    clearInterval(renew);
    await writeTxWhenFree(db, () => db.sqlite.run("DELETE FROM app_meta WHERE key = ? AND json_extract(value, '$.owner') = ?", [KEY, owner]));
  }
}

function lockOwner(db: Db): string | null {
  const row = db.sqlite.query<{ owner: string | null }, [string]>("SELECT json_extract(value, '$.owner') AS owner FROM app_meta WHERE key = ?").get(KEY);
  return row?.owner ?? null;
}

function acquire(db: Db, leaseValue: () => string): Promise<void> {
  return writeTxWhenFree(db, () => {
    const row = db.sqlite.query<{ value: string }, [string]>("SELECT value FROM app_meta WHERE key = ?").get(KEY);
    if (row) {
      const current = JSON.parse(row.value) as LockValue;
      const expiresAtMs = new Date(current.expiresAt).getTime();
      if (expiresAtMs > Date.now() && !holderIsGone(current)) throw busy(current, expiresAtMs);
    }
    db.sqlite.run("INSERT INTO app_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value", [KEY, leaseValue()]);
  });
}

/**
 * Whether the holder's process is known to have ended: it ran on this host and no process has its
 * id. An import killed (kill -9, a power cut, Ctrl-C of a server mid-import) then does not block the
 * next one for the rest of its lease. Anything unsure (another host, another PID namespace or boot,
 * a process id in use again, an older lock without these) waits for the lease; and were a live holder
 * ever taken for gone, its fencing checks stop it before it writes again.
 */
function holderIsGone(lock: LockValue): boolean {
  if (lock.host !== hostname() || typeof lock.pid !== "number" || lock.pid === process.pid) return false;
  // The same host name is not the same process table: only a pid of this namespace, this boot, can be looked up.
  const here = processScope();
  if (here.pidNamespace === undefined || here.bootId === undefined) return false;
  if (lock.pidNamespace !== here.pidNamespace || lock.bootId !== here.bootId) return false;
  try {
    process.kill(lock.pid, 0);
    return false;
  } catch (error) {
    // EPERM: a process of another user has that id, so it is alive.
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}

function busy(lock: LockValue, expiresAtMs: number): ImportLockError {
  const where = [lock.pid === undefined ? undefined : `process ${lock.pid}`, lock.host === undefined ? undefined : `on ${lock.host}`].filter(Boolean).join(" ");
  const since = lock.startedAt === undefined ? "" : `, started ${clockTime(lock.startedAt)}`;
  const seconds = Math.max(1, Math.ceil((expiresAtMs - Date.now()) / 1000));
  return new ImportLockError(
    `A list import is already running (${lock.holder}${where ? `, ${where}` : ""}${since}); try again when it has finished. Nothing was imported. If that import has stopped without finishing, its lock lapses at ${clockTime(new Date(expiresAtMs).toISOString())} (in ${seconds} s).`,
    seconds,
  );
}

/** "2026-11-24 18:40:01 UTC": when an operator reads it, to the second. */
function clockTime(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
}

function serialise(value: LockValue): string {
  return JSON.stringify({ ...value, host: hostname(), pid: process.pid, ...processScope() });
}

/**
 * This process's PID namespace and the host's boot id; absent where /proc does not give them (then no
 * takeover). Neither changes while the process runs: read once, not at every renewal and check.
 */
let scopeOfThisProcess: Pick<LockValue, "pidNamespace" | "bootId"> | undefined;
function processScope(): Pick<LockValue, "pidNamespace" | "bootId"> {
  scopeOfThisProcess ??= readProcessScope();
  return scopeOfThisProcess;
}

function readProcessScope(): Pick<LockValue, "pidNamespace" | "bootId"> {
  const read = (get: () => string) => {
    try {
      return get().trim() || undefined;
    } catch {
      return undefined;
    }
  };
  const pidNamespace = read(() => readlinkSync("/proc/self/ns/pid"));
  const bootId = read(() => readFileSync("/proc/sys/kernel/random/boot_id", "utf8"));
  return { ...(pidNamespace ? { pidNamespace } : {}), ...(bootId ? { bootId } : {}) };
}
