import { Database, type Statement } from "bun:sqlite";
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { type BunSQLiteDatabase, drizzle } from "drizzle-orm/bun-sqlite";
import type { Config } from "@/config";
import { invalidInput, type ServiceError } from "@/errors";
import { oncePer } from "@/lib/once-per";
import { MASTER_KEY_FILE } from "@/lib/secret-box";
import { migrate } from "./migrate";
import { rowCacheOf } from "./row-cache";
import * as schema from "./schema";

export type Orm = BunSQLiteDatabase<typeof schema>;

export interface Db {
  /** The raw connection, for hot paths and PRAGMAs. */
  sqlite: Database;
  /** Typed queries over the same connection. */
  orm: Orm;
  path: string;
  close(): void;
}

export const DB_FILE = "aml.db";

export interface OpenDbOptions {
  migrate?: boolean;
  /**
   * "commit": every COMMIT is synced to the disk before it returns (synchronous=FULL). Default
   * "checkpoint" (synchronous=NORMAL): a COMMIT is in the WAL, safe from a process crash; the WAL
   * reaches the disk at the next checkpoint, which syncs it before copying pages back (config.ts,
   * durability).
   */
  durability?: Config["durability"];
  /** false: the database must already exist; neither the folder nor aml.db is created. Default true. */
  create?: boolean;
}

/**
 * Opens the data folder's database: WAL so readers never block the writer and the CLI can work
 * beside a running server; busy_timeout so concurrent writers wait instead of failing.
 */
export function openDb(dataDirOrMemory: string, options: OpenDbOptions = {}): Db {
  const create = options.create !== false;
  let path = ":memory:";
  if (dataDirOrMemory !== ":memory:") {
    path = join(dataDirOrMemory, DB_FILE);
    if (create) createPrivately(dataDirOrMemory, path);
  }
  const sqlite = new Database(path, { create, readwrite: true, strict: true });
  // Before the switch to WAL: on a new database the switch takes the write lock, and a second
  // process opening the same new folder at that moment (two imports started together, a server and
  // an import) got "database is locked" at once instead of waiting its turn.
  sqlite.run("PRAGMA busy_timeout = 10000");
  try {
    enterWal(sqlite, path);
  } catch (error) {
    sqlite.close();
    throw error;
  }
  sqlite.run(`PRAGMA synchronous = ${options.durability === "commit" ? "FULL" : "NORMAL"}`);
  sqlite.run("PRAGMA foreign_keys = ON");
  // Savepoint journals in memory. The group commit (group-commit.ts) runs every unit under a SAVEPOINT,
  // and SQLite copies each page a savepoint modifies to a sub-journal, which by default spills to a
  // temporary FILE past 64 KiB. A single screen touches about 25 pages (100 KiB), so every commit
  // paid for creating and writing that file. Measured: 370 to 180 µs of statement time per screen.
  sqlite.run("PRAGMA temp_store = MEMORY");
  if (options.migrate !== false) migrate(sqlite);
  const orm = drizzle({ client: sqlite, schema });
  return {
    sqlite,
    orm,
    path,
    close() {
      try {
        // Best effort, without waiting: with busy_timeout in force, TRUNCATE would stall this close (a CLI
        // command's exit, a server's shutdown) for up to 10 s behind another process's open read snapshot.
        sqlite.run("PRAGMA busy_timeout = 0");
        sqlite.run("PRAGMA wal_checkpoint(TRUNCATE)");
      } finally {
        sqlite.close();
      }
    },
  };
}

/**
 * The database holds subject names, screenings and key hashes: a folder and a file this creates are
 * the owner's alone (0700, 0600) whatever the umask, as backups are (backup.ts). SQLite gives aml.db-wal
 * and aml.db-shm the mode of aml.db, so creating the empty file first with 0600 covers them too. An
 * existing folder or file keeps the mode its operator gave it (privateModeWarnings reports a loose one).
 */
function createPrivately(dataDir: string, dbPath: string): void {
  // Every command that may create the database, aml serve and aml migrate among them: a new empty
  // one beside an unfinished backup would later verify as an intact appliance with no entries.
  if (!existsSync(dbPath) && existsSync(join(dataDir, PARTIAL_BACKUP_FILE))) throw unfinishedBackupError(dataDir);
  if (!existsSync(dataDir)) {
    // Missing parents get the usual mode: only the data folder itself is private.
    mkdirSync(dirname(dataDir), { recursive: true });
    // chmod after mkdir: the mode given to mkdir is still narrowed by the umask.
    if (mkdirSync(dataDir, { recursive: true, mode: 0o700 }) !== undefined) chmodSync(dataDir, 0o700);
  }
  if (!existsSync(dbPath)) {
    closeSync(openSync(dbPath, "a", 0o600));
    chmodSync(dbPath, 0o600);
  }
}

/** The name a backup's database has until it is complete (backupDataFolder). */
export const PARTIAL_BACKUP_FILE = `${DB_FILE}.partial`;

/** A folder holding a backup stopped part-way, which no command may open or create an appliance in (exit 2). */
export function unfinishedBackupError(dataDir: string): ServiceError {
  return invalidInput(
    `${resolve(dataDir)} holds an unfinished backup (${PARTIAL_BACKUP_FILE}, no ${DB_FILE}): the aml backup that wrote it was stopped part-way; take the backup again into a new folder`,
  );
}

/** Warnings for a data folder, aml.db or master.key that other users may read (group or other permission bits). */
export function privateModeWarnings(dataDir: string): string[] {
  const warnings: string[] = [];
  for (const [path, wanted] of [
    [dataDir, "0700"],
    [join(dataDir, DB_FILE), "0600"],
    [join(dataDir, MASTER_KEY_FILE), "0600"],
  ] as const) {
    const mode = statSync(path, { throwIfNoEntry: false })?.mode;
    if (mode !== undefined && (mode & 0o077) !== 0) {
      warnings.push(`${path} is open to other users (mode ${(mode & 0o777).toString(8).padStart(4, "0")}); it holds subject names, key hashes or the key to the webhook secrets: chmod ${wanted.slice(1)} ${path}`);
    }
  }
  return warnings;
}

/**
 * Whether `error` (or an error it was caused by) is SQLITE_BUSY: another connection held the write
 * lock past busy_timeout. bun:sqlite's SQLiteError carries SQLite's code name.
 */
export function isDatabaseBusy(error: unknown): boolean {
  // With its extended codes (SQLITE_BUSY_RECOVERY: another process recovering the WAL).
  return causedByCode(error, (code) => code.startsWith("SQLITE_BUSY"));
}

/**
 * Whether the write failed because the data folder's disk is full (SQLITE_FULL, or ENOSPC under
 * it). The transaction rolled back, so nothing was stored: the answer is "retry once space is freed".
 */
export function isStorageFull(error: unknown): boolean {
  return causedByCode(error, (code) => code === "SQLITE_FULL" || code === "ENOSPC");
}

/** Whether `error`, or an error up to two causes under it, carries a code (SQLite's or the OS's) that `matches`. */
function causedByCode(error: unknown, matches: (code: string) => boolean): boolean {
  for (let e = error, depth = 0; e instanceof Error && depth < 3; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && matches(code)) return true;
  }
  return false;
}

/**
 * Throws unless this connection can write. SQLite opens a database file it may not write (owned by
 * another user, a read-only mount) read-only without a word, and everything that only reads works:
 * a server on such a folder reported ready and then answered every screen 500 ("attempt to write a
 * readonly database"). Even BEGIN IMMEDIATE succeeds on such a connection, so the probe writes (a
 * table created, on any schema, new or migrated) and rolls it back.
 */
export function assertWritable(sqlite: Database, path: string): void {
  // Asked without waiting (beginIfLockFree): a lock another process holds already proves the file
  // writable, and waiting out busy_timeout here held a restart's event loop for 10 s while, say, an
  // import stopped mid-transaction kept the lock.
  try {
    beginIfLockFree(sqlite, sqlite.query("BEGIN IMMEDIATE"));
  } catch (error) {
    // Only taken by another process: writable, and the server will wait for the lock like any writer.
    if (error instanceof WriteLockTaken) return;
    throw error;
  }
  try {
    sqlite.run("CREATE TABLE aml_write_probe (x)");
  } catch (error) {
    throw notWritable(path, error);
  } finally {
    sqlite.run("ROLLBACK");
  }
}

/**
 * Switches the connection to WAL. A database still in rollback-journal mode (an `aml backup` copy)
 * must be written to switch, so a restored folder its user cannot write fails here, before
 * assertWritable runs: said as assertWritable says it, not as SQLite's bare "attempt to write a
 * readonly database".
 */
export function enterWal(sqlite: Database, path: string): void {
  try {
    sqlite.run("PRAGMA journal_mode = WAL");
  } catch (error) {
    throw isReadOnly(error) ? notWritable(path, error) : error;
  }
}

function notWritable(path: string, error: unknown): Error {
  const reason = error instanceof Error ? error.message : String(error);
  return new Error(`${path} cannot be written (${reason}): run aml as the user that owns the data folder, on a writable file system.`);
}

/** SQLITE_READONLY and its extended codes ("attempt to write a readonly database"). */
function isReadOnly(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return (typeof code === "string" && code.startsWith("SQLITE_READONLY")) || (error instanceof Error && /readonly database/i.test(error.message));
}

/** The connection's automatic checkpoint threshold in WAL pages (0 when off; SQLite's default is 1,000). */
export function walAutocheckpoint(db: Db): number {
  return db.sqlite.query<{ wal_autocheckpoint: number }, []>("PRAGMA wal_autocheckpoint").get()?.wal_autocheckpoint ?? 1000;
}

/** A connection's transaction statements, prepared once. */
interface TxStatements {
  begin: Statement;
  commit: Statement;
  rollback: Statement;
  savepoint: Statement;
  release: Statement;
  rollbackTo: Statement;
}

// query(), not prepare(): query() statements belong to the connection and close() finalizes them.
// A prepare()d statement still alive at close() keeps SQLite's connection open, and with it the
// -wal and -shm files that a clean close deletes (test/unit/storage/write-tx.test.ts).
const txStatementsOf = oncePer(
  (sqlite: Database): TxStatements => ({
    begin: sqlite.query("BEGIN IMMEDIATE"),
    commit: sqlite.query("COMMIT"),
    rollback: sqlite.query("ROLLBACK"),
    savepoint: sqlite.query("SAVEPOINT aml_tx"),
    release: sqlite.query("RELEASE aml_tx"),
    rollbackTo: sqlite.query("ROLLBACK TO aml_tx"),
  }),
);

/**
 * Another connection holds the write lock, and the transaction did not wait for it (writeTx's
 * ifLockFree): nothing ran. `waitMs` is the connection's busy_timeout, how long its writes are meant
 * to wait for the lock in all. Its code is SQLITE_BUSY, so a request that gives up is answered like
 * one whose wait ran out (503 with Retry-After).
 */
export class WriteLockTaken extends Error {
  readonly code = "SQLITE_BUSY";
  constructor(
    readonly waitMs: number,
    cause: unknown,
  ) {
    super("database is locked by another connection", { cause });
    this.name = "WriteLockTaken";
  }
}

/** The connection's busy_timeout in ms. */
function busyTimeoutOf(sqlite: Database): number {
  return sqlite.query<{ timeout: number }, []>("PRAGMA busy_timeout").get()?.timeout ?? 0;
}

/**
 * BEGIN IMMEDIATE that fails at once, with WriteLockTaken, when another connection holds the write
 * lock. busy_timeout makes SQLite wait for the lock inside the call, which on the server's one
 * JavaScript thread stopped every request, reads too, for as long (a probe held the lock from a
 * sqlite3 shell: reads were answered after 20 s). Callers that can wait do so without blocking
 * (group-commit.ts). Setting busy_timeout twice costs about 0.6 µs.
 */
function beginIfLockFree(sqlite: Database, begin: Statement): void {
  const waitMs = busyTimeoutOf(sqlite);
  sqlite.query("PRAGMA busy_timeout = 0").run();
  try {
    begin.run();
  } catch (error) {
    if (isDatabaseBusy(error)) throw new WriteLockTaken(waitMs, error);
    throw error;
  } finally {
    sqlite.query(`PRAGMA busy_timeout = ${waitMs}`).run();
  }
}

export interface WriteTxOptions {
  /**
   * fn only appends records (screenings, cases, audit entries, usage charges, webhook deliveries and
   * their attempts) and changes no setting (tenants, API keys, risk profiles): the connection's row
   * cache (row-cache.ts) stays in use through it. Left out, the transaction empties that cache and
   * bypasses it until it ends, which is correct whatever fn writes and only costs the reads the cache
   * saves.
   */
  recordsOnly?: boolean;
  /**
   * Outside a transaction, take the write lock only if no other connection holds it now; otherwise
   * throw WriteLockTaken before fn runs, rather than wait up to busy_timeout blocking the thread.
   * Ignored inside a transaction, which holds the lock already.
   */
  ifLockFree?: boolean;
}

/**
 * How long a write waiting for another process's lock pauses after its `tries`-th failed try: 2 ms,
 * doubling to 50 ms, so the event loop stays free for reads and a lock released is taken within
 * 50 ms. writeTxWhenFree and the group commit's lanes (group-commit.ts) poll on this schedule.
 */
export function lockPollPause(tries: number): number {
  return Math.min(50, 2 * 2 ** tries);
}

/**
 * writeTx for work that may wait for another process's write lock without holding the thread: a
 * list import inside the server, which answers screens meanwhile. SQLite's own wait (busy_timeout)
 * would stop every request of the server for as long. BEGIN IMMEDIATE is tried without that wait,
 * and again after each pause of lockPollPause, until the connection's busy_timeout has passed
 * since the first try; then it fails with WriteLockTaken (SQLITE_BUSY), as writeTx would have after
 * waiting inside SQLite. fn runs only once the lock is taken. Inside a transaction it is writeTx.
 */
export async function writeTxWhenFree<T>(db: Db, fn: () => T, options: Omit<WriteTxOptions, "ifLockFree"> = {}): Promise<T> {
  const started = performance.now();
  for (let tries = 0; ; tries++) {
    try {
      return writeTx(db, fn, { ...options, ifLockFree: true });
    } catch (error) {
      if (!(error instanceof WriteLockTaken) || performance.now() - started >= error.waitMs) throw error;
    }
    await Bun.sleep(lockPollPause(tries));
  }
}

/**
 * Runs fn in a BEGIN IMMEDIATE transaction: takes the write lock up front so a read-then-write cannot
 * hit SQLITE_BUSY mid-way. Inside an open transaction it runs under a SAVEPOINT instead, and a throw
 * rolls back to it alone (the group commit runs every unit this way).
 *
 * The same semantics as bun:sqlite's `transaction(fn).immediate()`, without its price per call: that
 * builds four wrapper functions and defines five properties on each before running fn, which the
 * group commit paid once per unit and once per batch (about 2% of a CPU profile of the HTTP bench).
 *
 * Every write to a table the row cache reads from (tenants, api_keys, risk_profiles, usage_counters,
 * audit_log) must run in writeTx, so that the cache learns of it, and a transaction inside writeTx
 * nests with writeTx, not with a raw SAVEPOINT or bun:sqlite's transaction() (row-cache.ts).
 */
export function writeTx<T>(db: Db, fn: () => T, options: WriteTxOptions = {}): T {
  const tx = txStatementsOf(db.sqlite);
  const cache = rowCacheOf(db.sqlite);
  const nested = db.sqlite.inTransaction;
  if (nested) tx.savepoint.run();
  else if (options.ifLockFree === true) beginIfLockFree(db.sqlite, tx.begin);
  else tx.begin.run();
  let kept = false;
  try {
    cache.opened(!nested, options.recordsOnly === true);
    const result = fn();
    (nested ? tx.release : tx.commit).run();
    kept = true;
    return result;
  } catch (error) {
    // Some errors (disk full, I/O error) end the whole transaction in SQLite; there is nothing left to undo then.
    if (db.sqlite.inTransaction) {
      if (nested) {
        tx.rollbackTo.run();
        tx.release.run();
      } else {
        tx.rollback.run();
      }
    }
    throw error;
  } finally {
    cache.closed(kept);
  }
}
