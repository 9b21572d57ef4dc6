import type { Database } from "bun:sqlite";
import { oncePer } from "@/lib/once-per";

/**
 * Rows the request path would otherwise read on every call, remembered per connection for exactly as
 * long as they cannot have changed. A single screen used to read an API key, its tenant's status,
 * the tenant's options and webhook URL, the tenant's usage this month and its audit chain's last
 * entry: six statements, about 0.1 ms of the 0.8-0.9 ms a screen cost the server's one JavaScript
 * thread at 1,000 screens/s (docs/benchmark-log.md, thirteenth stop).
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
 * - A rollback of any writeTx level (see `closed`).
 *
 * So a change committed anywhere applies to the next read, as when every call read the database.
 * That holds as long as this connection writes those tables only in writeTx, and nests inside writeTx
 * only with writeTx: the cache follows writeTx's levels, and a raw SAVEPOINT (or bun:sqlite's
 * transaction()) inside one could roll back a write whose advance the cache kept. A transaction that
 * writeTx did not open is detected and bypasses the cache.
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

  constructor(private readonly sqlite: Database) {
    this.dataVersionQuery = sqlite.query<{ data_version: number }, []>("PRAGMA data_version");
  }

  setting<T>(key: string, read: () => T, keep: (value: T) => boolean): T {
    if (this.bypass) return read();
    if (this.staged.length === 0) {
      // A transaction writeTx did not open (bun:sqlite's transaction()) may still roll back what a
      // read would see, so its reads neither trust nor feed the cache.
      if (this.sqlite.inTransaction) return read();
      this.checkOtherWriters();
    }
    // Inside writeTx, its BEGIN IMMEDIATE already checked, and nobody else can commit until it ends.
    if (this.settings.has(key)) return this.settings.get(key) as T;
    const value = read();
    if (!keep(value)) return value;
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
    this.staged[this.staged.length - 1]?.set(key, value);
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

  /**
   * The level writeTx opened last ended: committed (or released into its parent), or rolled back.
   * A rollback empties the whole cache, not only its level: it is rare (a refused quota, a reused
   * idempotency key), and if anything had made a head wrong (a write the cache did not see), the
   * failure it causes (a duplicate audit sequence number) is then a failure once, not on every call.
   */
  closed(kept: boolean): void {
    const level = this.staged.pop();
    if (!kept) this.clear();
    else if (level && !this.bypass) {
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

/** The row cache of one connection (created on first use). */
export const rowCacheOf = oncePer((sqlite: Database) => new RowCache(sqlite));

/**
 * A setting row (or anything computed from settings rows alone), read through the cache. `key` must
 * name every input of `read`, e.g. `api-key:${prefix}`. Only values `keep` accepts are remembered:
 * callers keyed by what an unauthenticated client sends keep only what was found, so that invented
 * keys cannot fill the cache and push out the real ones.
 */
export function cachedSetting<T>(sqlite: Database, key: string, read: () => T, keep: (value: T) => boolean = () => true): T {
  return rowCacheOf(sqlite).setting(key, read, keep);
}

/** A head's current value inside a write transaction: the last advance, or else `read()`. */
export function readHead<T>(sqlite: Database, key: string, read: () => T): T {
  return rowCacheOf(sqlite).head(key, read);
}

/** Records the value a write in the current transaction level gave a head. */
export function advanceHead<T>(sqlite: Database, key: string, value: T): void {
  rowCacheOf(sqlite).advance(key, value);
}
