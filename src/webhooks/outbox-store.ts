import { newId } from "@/lib/ids";
import type { Db } from "@/storage/db";
import type { AttemptOf, AttemptRecord, ClaimedRow, OutboxRow } from "./outbox-rows";
import { type RetryPolicy, retryDelayMs } from "./schedule";

/**
 * The outbox's state changes. Every function here runs inside the caller's IMMEDIATE transaction
 * (writeTx): SQLite's single writer then makes claim, reclaim and completion atomic with respect to
 * any other dispatcher on the same data folder.
 */

function requireTx(db: Db): void {
  if (!db.sqlite.inTransaction) throw new Error("webhook outbox changes must run inside writeTx");
}

/** How many rows each tenant may get in one claim: `of` for the tenants it lists (none at 0 or less), `other` for the rest. */
export interface ClaimRoom {
  of: ReadonlyMap<string, number>;
  other: number;
}

/** A ClaimRoom that claimDue spends: each row it claims takes one from its tenant's entry in `of`. */
type SpendableRoom = { of: Map<string, number>; other: number };

/**
 * Claims up to `limit` due rows for `owner`, reserving the next attempt number of each, and at most
 * `room` rows per tenant. Due rows go in next_attempt_at order, which is the claim index's own order:
 * a backlog of 100k+ rows after an outage is claimed without sorting it under the write lock.
 *
 * Two statements in the caller's transaction: the window of `limit` due rows (tenants without room
 * left out, so the rows of other tenants behind them are found), then one UPDATE by primary key of
 * the rows each tenant's room admits. The attempt number is the one read plus one: nothing else can
 * write between the two in the same write transaction. Each statement is prepared once per
 * placeholder count: the tenants without room and the rows claimed are both bounded by the slots.
 *
 * One UPDATE over a subquery (a window function per tenant, the rooms as json_each) did the same in a
 * single statement, but it cost 0.07 ms with nothing due and 0.43 ms for 16 rows, against 0.015 and
 * 0.08-0.10 ms for these two (100,000 delivered rows, foreign keys on); in the server it took
 * 0.5-0.6 ms a claim, and every event is claimed (docs/benchmark-log.md, twenty-sixth stop).
 *
 * The window passes over the rows of tenants without room (NOT IN), reading each to pass it, about
 * 0.1 µs a row: nothing for the usual few dozen due rows, 1 ms for 10,000, 12 ms for 100,000 (the
 * dispatcher spaces its claims by their cost). An index on (tenant_id, next_attempt_at) would make it
 * a seek per tenant. A tenant that runs out of room within the window leaves the rest of its rows
 * there, and rows further on are not seen by this call: claimDueFairly claims again past them.
 */
export function claimDue(
  db: Db,
  args: { owner: string; now: Date; leaseMs: number; limit: number; room?: SpendableRoom; passOver?: boolean },
): ClaimedRow[] {
  requireTx(db);
  const room = args.room ?? { of: new Map<string, number>(), other: args.limit };
  const full = args.passOver === false ? [] : fullTenants(room);
  const notIn = full.length === 0 ? "" : ` AND tenant_id NOT IN (${placeholders(full.length)})`;
  const due = db.sqlite
    .query<ClaimedRow, (string | number)[]>(
      `SELECT id, tenant_id, event, payload, series, attempts FROM webhook_outbox
        WHERE status = 'pending' AND next_attempt_at <= ?${notIn} ORDER BY next_attempt_at LIMIT ?`,
    )
    .all(args.now.toISOString(), ...full, args.limit);
  const claimed: ClaimedRow[] = [];
  for (const row of due) {
    const left = room.of.get(row.tenant_id) ?? room.other;
    if (left <= 0) continue;
    room.of.set(row.tenant_id, left - 1);
    claimed.push({ ...row, attempts: row.attempts + 1 });
  }
  if (claimed.length > 0) {
    const leaseExpiresAt = new Date(args.now.getTime() + args.leaseMs).toISOString();
    db.sqlite
      .query<unknown, string[]>(
        `UPDATE webhook_outbox SET status = 'delivering', attempts = attempts + 1, lease_owner = ?, lease_expires_at = ? WHERE id IN (${placeholders(claimed.length)})`,
      )
      .run(args.owner, leaseExpiresAt, ...claimed.map((row) => row.id));
  }
  return claimed;
}

/** The tenants whose room is used up: a window that leaves their rows out must pass over them. */
function fullTenants(room: SpendableRoom): string[] {
  const full: string[] = [];
  for (const [tenant, left] of room.of) if (left <= 0) full.push(tenant);
  return full;
}

/** `?, ?, ...`: n bound parameters for an IN list. */
function placeholders(n: number): string {
  return Array.from({ length: n }, () => "?").join(", ");
}

/** What claimDueFairly claimed, and how long its statements that passed over tenants without room took. */
export interface FairClaim {
  claimed: ClaimedRow[];
  passOverMs: number;
}

/**
 * claimDue until the slots are filled or no tenant ran out of room: a tenant with a backlog fills the
 * window of one statement with rows it has no room for, and the rows of other tenants behind them
 * would wait until that whole backlog had drained (a retry coming due has no wake of its own). Each
 * further statement excludes the tenants that used up their room, so it reaches those rows. At most
 * one further statement per tenant that ran out, and none in the usual case (nobody ran out).
 *
 * Passing over a backlog reads every row of it (12 ms for 100,000 rows), and a tenant with a backlog
 * runs out of room on nearly every claim. With `passOver` false no statement passes over anyone: one
 * plain window, whose rows of tenants with room are claimed. The dispatcher allows passing over only
 * as often as its cost permits (passOverMs); a review measured a single tenant's backlog of 187,000
 * rows draining at 25 events/s when every claim passed over it (59 ms) and was spaced by that cost.
 */
export function claimDueFairly(
  db: Db,
  args: { owner: string; now: Date; leaseMs: number; limit: number; room: ClaimRoom; passOver?: boolean },
): FairClaim {
  const room: SpendableRoom = { of: new Map(args.room.of), other: args.room.other };
  const claimed: ClaimedRow[] = [];
  let passOverMs = 0;
  for (;;) {
    const passing = fullTenants(room).length > 0;
    if (passing && args.passOver === false) {
      // Only as the first statement: after one, claimed is not empty and the rest waits for a pass.
      if (claimed.length === 0) claimed.push(...claimDue(db, { ...args, room, passOver: false }));
      return { claimed, passOverMs };
    }
    const started = performance.now();
    const rows = claimDue(db, { ...args, limit: args.limit - claimed.length, room });
    if (passing) passOverMs += performance.now() - started;
    claimed.push(...rows);
    if (rows.length === 0 || claimed.length >= args.limit) return { claimed, passOverMs };
    // claimDue spent the room of each row it claimed, so every claimed row's tenant has an entry.
    if (!rows.some((row) => (room.of.get(row.tenant_id) ?? 0) <= 0)) return { claimed, passOverMs };
  }
}

/** A delivery reclaimExpired took back: which lease it held, for the operator's log. */
export interface ReclaimedLease {
  id: string;
  owner: string | null;
  expiredAt: string | null;
}

/**
 * Rows a dispatcher still works on (a POST in flight, or its outcome waiting to be written): their
 * leases are not taken back from it even when expired. A lease runs on the wall clock, which can jump
 * ahead (an NTP step, a VM resumed after a pause) while a POST is in flight; taking the row back then
 * would POST the event a second time beside the first and log the first as interrupted.
 */
export interface HeldLeases {
  owner: string;
  ids: ReadonlySet<string>;
}

/**
 * Returns rows whose lease expired (the dispatcher holding them crashed, was killed, or lost its
 * disk) to the queue. The interrupted attempt is logged, since the receiver may have got it, and it
 * counts towards the limit so a delivery that keeps killing its dispatcher ends up dead. Rows in
 * `held` are left to the dispatcher that holds them.
 */
export function reclaimExpired(db: Db, now: Date, policy: RetryPolicy, held?: HeldLeases): ReclaimedLease[] {
  requireTx(db);
  const at = now.toISOString();
  const expired = db.sqlite
    .query<OutboxRow, [string]>("SELECT * FROM webhook_outbox WHERE status = 'delivering' AND lease_expires_at <= ?")
    .all(at)
    .filter((row) => !(held && row.lease_owner === held.owner && held.ids.has(row.id)));
  for (const row of expired) {
    // The tenant reads this in the delivery log: no lease owner (it names the host and process).
    const error = `lease expired at ${row.lease_expires_at} before the attempt was recorded (the appliance stopped mid-attempt, or could not write its outcome); the receiver may have received it`;
    insertAttempt(db, row, { startedAt: now, durationMs: 0, statusCode: null, error, url: null });
    const dead = row.attempts >= policy.maxAttempts;
    db.sqlite.run(
      `UPDATE webhook_outbox
          SET status = ?, next_attempt_at = ?, dead_at = ?, lease_owner = NULL, lease_expires_at = NULL,
              last_status_code = NULL, last_error = ?
        WHERE id = ? AND status = 'delivering' AND lease_owner IS ?`,
      [dead ? "dead" : "pending", dead ? null : at, dead ? at : null, error, row.id, row.lease_owner],
    );
  }
  return expired.map((row) => ({ id: row.id, owner: row.lease_owner, expiredAt: row.lease_expires_at }));
}

export type AttemptResult = "delivered" | "retry" | "dead" | "lease_lost";

/**
 * Records an attempt's outcome, but only if `owner` still holds the lease (compare-and-set): a
 * dispatcher whose lease expired and was reclaimed must not overwrite the newer owner's state.
 */
export function finishAttempt(
  db: Db,
  args: { row: AttemptOf; owner: string; attempt: AttemptRecord; now: Date; policy: RetryPolicy },
): AttemptResult {
  requireTx(db);
  const { row, attempt } = args;
  const at = args.now.toISOString();
  const ok = attempt.error === null;
  const delay = ok ? null : retryDelayMs(args.policy, row.attempts);
  const result: AttemptResult = ok ? "delivered" : delay === null ? "dead" : "retry";
  const nextAttemptAt = delay === null ? null : new Date(args.now.getTime() + delay).toISOString();
  // query() caches the prepared statement: every delivered event records its attempt here.
  const changed = db.sqlite
    .query<unknown, [string, string | null, string | null, string | null, number | null, string | null, string, string, number, number]>(
      `UPDATE webhook_outbox
          SET status = ?, next_attempt_at = ?, delivered_at = ?, dead_at = ?, lease_owner = NULL, lease_expires_at = NULL,
              last_status_code = ?, last_error = ?
        WHERE id = ? AND status = 'delivering' AND lease_owner = ? AND series = ? AND attempts = ?`,
    )
    .run(
      result === "retry" ? "pending" : result,
      nextAttemptAt,
      result === "delivered" ? at : null,
      result === "dead" ? at : null,
      attempt.statusCode,
      attempt.error,
      row.id,
      args.owner,
      row.series,
      row.attempts,
    );
  if (changed.changes === 0) return "lease_lost";
  insertAttempt(db, row, attempt);
  return result;
}

function insertAttempt(db: Db, row: AttemptOf, attempt: AttemptRecord): void {
  db.sqlite
    .query<unknown, [string, string, number, number, string, number, number | null, string | null, string | null]>(
      `INSERT INTO webhook_attempts (id, outbox_id, series, attempt, started_at, duration_ms, status_code, error, url)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      newId(),
      row.id,
      row.series,
      row.attempts,
      attempt.startedAt.toISOString(),
      Math.round(attempt.durationMs),
      attempt.statusCode,
      attempt.error,
      attempt.url,
    );
}
