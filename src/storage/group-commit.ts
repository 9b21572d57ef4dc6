import { oncePer } from "@/lib/once-per";
import { type Db, lockPollPause, type WriteTxOptions, WriteLockTaken, writeTx } from "./db";

/**
 * Group commit. Every write transaction pays a fixed price on top of its statements: BEGIN
 * IMMEDIATE, the COMMIT that appends every page it touched to the WAL, and its share of the WAL
 * checkpoints those pages cause later. Concurrent screens touch the same pages (the right-most
 * leaves of the same tables and indexes), so committing together writes each page once instead of
 * once per screen.
 *
 * Work submitted during one event-loop turn runs in ONE write transaction at the next turn
 * (setImmediate): each unit under its own SAVEPOINT, so a unit that throws (quota exceeded, a
 * reused idempotency key) rolls back alone and the others commit. Every promise settles only after
 * the COMMIT, so nothing is acknowledged before it is committed. A unit runs synchronously inside the
 * transaction and sees the units before it, exactly as if they had committed one after another:
 * the quota and idempotency checks inside it stay authoritative.
 *
 * With no concurrency the batch holds one unit and the only difference from writeTx is one turn of
 * the event loop. Under concurrent load, commits are spaced (COMMIT_SPACING_MS) so each holds more.
 *
 * When another process holds the write lock, a batch does not wait for it inside SQLite, which would
 * hold the one JavaScript thread and every request with it: its units wait in the lane, polled
 * every few ms, and each fails with SQLITE_BUSY once it has waited the connection's busy_timeout.
 */
export interface GroupCommit {
  /**
   * Runs `work` (synchronous) in the next shared write transaction; resolves with its result after
   * the commit, or rejects with its error.
   *
   * `maxDelayMs` is for background work nobody waits on (the webhook dispatcher's bookkeeping). Such
   * units gather for up to that long and commit together in a transaction of their own, in their
   * own turn: riding along with the requests' transactions would save a COMMIT but put the
   * bookkeeping on a request's critical path, which at low load cost more latency than it saved.
   *
   * `recordsOnly` is writeTx's: the unit changes no setting, so the row cache stays in use.
   */
  run<T>(work: () => T, options?: GroupCommitOptions): Promise<T>;
  /**
   * For shutdown, before the connection closes: commits what is queued now, and refuses the units
   * still waiting for a lock another process holds (GroupCommitClosed: 503, nothing stored) rather
   * than leave their poll to fire on a closed connection. Units offered later are refused the same way.
   */
  close(): void;
}

/**
 * A write prepared by an admin verb: its input was checked (400) and its tenant found (404) when it
 * was made, before it entered the lane. So a bad request is answered at once even while another
 * process holds the write lock; only the write itself waits for its turn. What depends on the
 * state under the lock (a 409, a tenant removed meanwhile) is still decided inside it.
 */
export type PreparedWrite<T> = () => T;

export interface GroupCommitOptions extends WriteTxOptions {
  maxDelayMs?: number;
  /**
   * The unit is large (a bulk's 1,000 rows): it commits in a transaction of its own, so that units
   * gathered while the lock was held elsewhere do not make one transaction of many bulks, holding
   * the lock (and the thread) for seconds, and one bulk's fatal error does not fail the others.
   */
  alone?: boolean;
}

/** Units per transaction; later units wait for the next turn, so the write lock is never held for long. */
const MAX_BATCH = 256;

/** How many of the lane's first units the next transaction takes: up to MAX_BATCH, a unit marked alone by itself. */
function batchLength(units: readonly Unit[]): number {
  if (units[0]?.alone) return 1;
  const limit = Math.min(units.length, MAX_BATCH);
  for (let i = 1; i < limit; i++) if (units[i]?.alone) return i;
  return limit;
}

/**
 * Under concurrent load, request-lane commits start at least this long after the previous one ended
 * (the background lane gathers by its maxDelayMs instead).
 * A commit has a fixed price (BEGIN, COMMIT, one WAL page per table and index it touches: about
 * 0.3 ms for one screen) and a small one per screen (about 0.04 ms). At open-loop rates near
 * capacity each commit held 1-3 screens and the fixed price alone kept the server saturated; spaced
 * 2 ms apart, commits hold more screens and the rate it sustains rises. Measured at 1,500 requests/s
 * (bench/http-screening.ts, BENCH_RATES): p99 61 and 79 ms spaced, against 125 and 265 ms unspaced.
 * It only applies when the previous commit held two or more units: a lone sequential client, whose
 * requests never overlap, is never made to wait.
 */
const COMMIT_SPACING_MS = 2;

interface Unit {
  work: () => unknown;
  /**
   * When its first try found the write lock held by another process (performance.now()), or null:
   * it waits for that lock until busy_timeout past this. Not its queueing time, which would count a
   * stall of this process's own (a long import step) as waiting for the other.
   */
  lockedOutSince: number | null;
  /** A large unit (a bulk of up to 1,000 rows) commits in a transaction of its own. */
  alone: boolean;
  recordsOnly: boolean;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** Units waiting for the same flush, whether that flush is scheduled, and the lane's last commit. */
class Lane {
  readonly units: Unit[] = [];
  scheduled = false;
  /** When the lane's last commit ended (performance.now()) and how many units it held. */
  lastCommitEnd = 0;
  lastBatchSize = 0;
  /** Tries in a row that found the write lock held by another process (0: not waiting for it). */
  lockPolls = 0;
}

/** A unit refused because the committer closed (shutdown) first: nothing of it was stored. */
export class GroupCommitClosed extends Error {
  constructor(cause?: unknown) {
    super("the server is shutting down: the write was not made", { cause });
    this.name = "GroupCommitClosed";
  }
}

/** What committing one batch came to; with the lock taken, no unit of it was settled. */
type BatchResult = "committed" | "failed" | WriteLockTaken;

class Committer implements GroupCommit {
  private readonly requests = new Lane();
  private readonly background = new Lane();
  private closed = false;

  constructor(private readonly db: Db) {}

  run<T>(work: () => T, options: GroupCommitOptions = {}): Promise<T> {
    if (this.closed) return Promise.reject(new GroupCommitClosed());
    return new Promise<T>((resolve, reject) => {
      const delay = options.maxDelayMs ?? 0;
      const lane = delay > 0 ? this.background : this.requests;
      lane.units.push({
        work,
        lockedOutSince: null,
        alone: options.alone === true,
        recordsOnly: options.recordsOnly === true,
        resolve: resolve as (value: unknown) => void,
        reject,
      });
      this.schedule(lane, delay);
    });
  }

  private schedule(lane: Lane, delayMs: number): void {
    if (lane.scheduled) return;
    lane.scheduled = true;
    if (delayMs > 0) {
      setTimeout(() => this.flush(lane, delayMs), delayMs);
      return;
    }
    const spacing = lane.lastBatchSize >= 2 ? lane.lastCommitEnd + COMMIT_SPACING_MS - performance.now() : 0;
    // setImmediate, not a microtask: requests whose bodies arrived in the same poll are handled one
    // after another in this turn, and a microtask would commit each before the next one ran.
    if (spacing > 0.1) setTimeout(() => this.flush(lane, 0), spacing);
    else setImmediate(() => this.flush(lane, 0));
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const lane of [this.requests, this.background]) {
      while (lane.units.length > 0) {
        const batch = lane.units.splice(0, batchLength(lane.units));
        const result = this.commit(batch);
        if (result instanceof WriteLockTaken) for (const unit of [...batch, ...lane.units.splice(0)]) unit.reject(new GroupCommitClosed(result));
      }
    }
  }

  private flush(lane: Lane, delayMs: number): void {
    // A flush scheduled before close(): close() settled its units.
    if (this.closed) return;
    lane.scheduled = false;
    const batch = lane.units.splice(0, batchLength(lane.units));
    // While the lane waits for the lock, its poll is the only flush scheduled (awaitLock).
    const waitingForLock = lane.lockPolls > 0;
    if (lane.units.length > 0 && !waitingForLock) this.schedule(lane, Math.min(delayMs, 1));
    const result = this.commit(batch);
    if (result instanceof WriteLockTaken) {
      this.awaitLock(lane, batch, result, delayMs);
      return;
    }
    this.lockFreed(lane, waitingForLock, delayMs);
    if (result === "committed") {
      lane.lastCommitEnd = performance.now();
      lane.lastBatchSize = batch.length;
    }
  }

  /** Runs a batch in one transaction and settles its units, unless another process holds the lock. */
  private commit(batch: Unit[]): BatchResult {
    const outcomes: Outcome[] = [];
    try {
      // recordsOnly: the batch's own transaction writes nothing; each unit declares what it writes.
      writeTx(
        this.db,
        () => {
          for (const unit of batch) outcomes.push(this.runUnit(unit));
        },
        { recordsOnly: true, ifLockFree: true },
      );
    } catch (error) {
      if (error instanceof WriteLockTaken) return error;
      // BEGIN, COMMIT or a failure that ended the transaction: nothing of this batch was stored.
      for (const unit of batch) unit.reject(error);
      return "failed";
    }
    batch.forEach((unit, i) => {
      const outcome = outcomes[i];
      if (outcome?.ok) unit.resolve(outcome.value);
      else unit.reject(outcome ? outcome.error : new Error("group commit lost a unit's outcome"));
    });
    return "committed";
  }

  /**
   * Another process holds the write lock (a list import, an admin command, a sqlite3 shell). Units
   * that have waited the connection's busy_timeout fail with SQLITE_BUSY (503, nothing stored); the
   * rest go back to the head of the lane, which tries again later without blocking the event loop.
   */
  private awaitLock(lane: Lane, batch: Unit[], taken: WriteLockTaken, delayMs: number): void {
    const now = performance.now();
    lane.units.unshift(...batch);
    // The whole lane, not only the batch tried: units past it have waited as long.
    const waiting: Unit[] = [];
    for (const unit of lane.units) {
      unit.lockedOutSince ??= now;
      if (now - unit.lockedOutSince >= taken.waitMs) unit.reject(taken);
      else waiting.push(unit);
    }
    lane.units.splice(0, lane.units.length, ...waiting);
    // While another process holds the write lock, the lane tries again on lockPollPause's schedule.
    const pause = lockPollPause(lane.lockPolls);
    lane.lockPolls++;
    // A flush of the units past MAX_BATCH may be scheduled already (the first poll): it is the poll.
    if (lane.scheduled) return;
    if (lane.units.length === 0) {
      lane.lockPolls = 0;
      return;
    }
    lane.scheduled = true;
    setTimeout(() => this.flush(lane, delayMs), pause);
  }

  /** The lane got the lock after waiting for it: the units that queued meanwhile get their flush. */
  private lockFreed(lane: Lane, waited: boolean, delayMs: number): void {
    if (!waited) return;
    lane.lockPolls = 0;
    if (lane.units.length > 0) this.schedule(lane, Math.min(delayMs, 1));
  }

  private runUnit(unit: Unit): Outcome {
    try {
      // Nested in the batch's transaction, writeTx opens a SAVEPOINT and rolls back to it on a throw.
      return { ok: true, value: writeTx(this.db, unit.work, { recordsOnly: unit.recordsOnly }) };
    } catch (error) {
      // Some errors (disk full, I/O error) make SQLite roll back the whole transaction, taking the
      // earlier units with it; rethrowing fails the batch rather than running the rest in autocommit.
      if (!this.db.sqlite.inTransaction) throw error;
      return { ok: false, error };
    }
  }
}

/** The group committer of one connection (one per Db, created on first use). */
export const groupCommit: (db: Db) => GroupCommit = oncePer((db: Db) => new Committer(db));
