import type { Database } from "bun:sqlite";

/**
 * Rows the request path would otherwise read on every call, remembered per connection for exactly as
 * long as they cannot have changed. A single screen used to read an API key, its tenant's status,
 * the tenant's options and webhook URL, the tenant's usage this month and its audit chain's last
 * entry: six statements, about 0.1 ms of the 0.8-0.9 ms a screen cost the server's one JavaScript
 * thread at 1,000 screens/s (docs/benchmarks.md, thirteenth stop).
 *
 * Two kinds of entry, both dropped whenever the database may have changed under them:
 * - **Settings** (`cachedSetting`): rows an operator changes (keys, tenants, profiles), read in or
 *   out of a transaction.
 * - **Heads** (`readHead`, `advanceHead`): values every screen moves forward (an audit chain's last
 *   entry, a month's usage), read and advanced inside write transactions only. An advance is staged
 *   with the transaction level (writeTx's SAVEPOINT) that made it: a unit that rolls back takes its
 *   advances with it, and nothing reaches the cache before the COMMIT succeeded.
 *
 * What drops them:
 * - Another connection's commit (the CLI in another process, a second connection in this one).
 *   SQLite counts those in `PRAGMA data_version`; a setting read outside a transaction asks it first,
 *   and every write transaction asks it once after BEGIN IMMEDIATE (which holds the write lock, so
 *   nobody else can commit until it ends).
 * - A write transaction on this connection that does not declare `recordsOnly` (writeTx): it could
 *   change any row (an admin call sets a quota, revokes a key, appends to a chain), so the cache is
 *   emptied when it begins and is neither read nor filled until it ends.
 *
 * So a change committed anywhere applies to the next read, as when every call read the database.
 */

/** Entries kept per kind; past it the kind is emptied, as a miss only costs the read it saves. */
const MAX_ENTRIES = 10_000;

class RowCache {
  private readonly settings = new Map<string, unknown>();
  private readonly heads = new Map<string, unknown>();
  /** Head advances of the open transaction, one map per level (BEGIN, then each SAVEPOINT). */
  private readonly staged: Map<string, unknown>[] = [];
  /** Set for the rest of a write transaction that may change anything (not `recordsOnly`). */
  private bypass = false;
  private dataVersion = -1;
  private readonly dataVersionQuery;

  constructor(sqlite: Database) {
    this.dataVersionQuery = sqlite.query<{ data_version: number }, []>("PRAGMA data_version");
  }

  setting<T>(key: string, read: () => T): T {
    if (this.bypass) return read();
    // Inside writeTx, its BEGIN IMMEDIATE already checked, and nobody else can commit until it ends.
    if (this.staged.length === 0) this.checkOtherWriters();
    if (this.settings.has(key)) return this.settings.get(key) as T;
    const value = read();
    if (this.settings.size >= MAX_ENTRIES) this.settings.clear();
    this.settings.set(key, value);
    return value;
  }

  head<T>(key: string, read: () => T): T {
    this.assertWriting("readHead");
    if (this.bypass) return read();
    for (let level = this.staged.length - 1; level >= 0; level--) {
      const staged = this.staged[level];
      if (staged?.has(key)) return staged.get(key) as T;
    }
    if (this.heads.has(key)) return this.heads.get(key) as T;
    const value = read();
    // Staged like an advance: what a transaction reads is only known to be committed once it commits.
    this.advance(key, value);
    return value;
  }

  advance(key: string, value: unknown): void {
    this.assertWriting("advanceHead");
    if (this.bypass) return;
    this.staged[this.staged.length - 1]?.set(key, value);
  }

  /**
   * writeTx's BEGIN IMMEDIATE (outermost) or SAVEPOINT (nested) succeeded. Every call is followed by
   * exactly one `closed`.
   */
  opened(outermost: boolean, recordsOnly: boolean): void {
    // A SAVEPOINT inside a transaction writeTx did not open (bun:sqlite's transaction()) cannot know
    // whether that transaction will commit, so it neither trusts nor feeds the cache.
    const foreignOuter = !outermost && this.staged.length === 0;
    this.staged.push(new Map());
    if (outermost) this.checkOtherWriters();
    if ((!recordsOnly || foreignOuter) && !this.bypass) {
      this.bypass = true;
      this.clear();
    }
  }

  /** The level writeTx opened last ended: committed (or released into its parent), or rolled back. */
  closed(kept: boolean): void {
    const level = this.staged.pop();
    if (kept && level && !this.bypass) {
      const parent = this.staged[this.staged.length - 1] ?? this.heads;
      if (parent === this.heads && this.heads.size + level.size > MAX_ENTRIES) this.heads.clear();
      for (const [key, value] of level) parent.set(key, value);
    }
    if (this.staged.length === 0) this.bypass = false;
  }

  private checkOtherWriters(): void {
    const version = this.dataVersionQuery.get()?.data_version ?? -1;
    if (version !== this.dataVersion) {
      this.dataVersion = version;
      this.clear();
    }
  }

  private clear(): void {
    this.settings.clear();
    this.heads.clear();
    for (const level of this.staged) level.clear();
  }

  private assertWriting(what: string): void {
    if (this.staged.length === 0) throw new Error(`${what} must run inside writeTx`);
  }
}

const caches = new WeakMap<Database, RowCache>();

/** The row cache of one connection (created on first use). */
export function rowCacheOf(sqlite: Database): RowCache {
  let cache = caches.get(sqlite);
  if (!cache) {
    cache = new RowCache(sqlite);
    caches.set(sqlite, cache);
  }
  return cache;
}

/**
 * A setting row (or anything computed from settings rows alone), read through the cache. `key` must
 * name every input of `read`, e.g. `api-key:${prefix}`.
 */
export function cachedSetting<T>(sqlite: Database, key: string, read: () => T): T {
  return rowCacheOf(sqlite).setting(key, read);
}

/** A head's current value inside a write transaction: the last advance, or else `read()`. */
export function readHead<T>(sqlite: Database, key: string, read: () => T): T {
  return rowCacheOf(sqlite).head(key, read);
}

/** Records the value a write in the current transaction level gave a head. */
export function advanceHead<T>(sqlite: Database, key: string, value: T): void {
  rowCacheOf(sqlite).advance(key, value);
}
