import type { OutboxRow } from "./outbox-rows";

/** A lease on events taken out before they are inserted: they commit already claimed by `owner`. */
export interface OutboxLease {
  owner: string;
  expiresAt: Date;
}

/**
 * The in-process route from a commit that queued webhook events to this process's dispatcher.
 *
 * Events queued while a dispatcher runs here are inserted already leased to it ('delivering', attempt
 * 1, its owner and lease) and handed to it in memory after the commit, so it sends them without a
 * claim transaction of its own. That claim was the largest single cost on the main thread at an
 * open-loop load (11% of its samples at 1,400 screens/s): every event was written a third time, and
 * each round paid a BEGIN IMMEDIATE and a COMMIT besides. Durability is unchanged: a leased row is
 * committed with the screening, and if the process dies before sending it, the lease expires and any
 * dispatcher reclaims it, as it would a row claimed the ordinary way.
 */
export interface OutboxHandoff {
  /** A lease for the events the caller's transaction is about to queue, or null to queue them 'pending'. */
  lease(now: Date): OutboxLease | null;
  /** After the commit: the events it queued. Leased ones join the dispatcher's queue; pending ones wake it to claim. */
  committed(events: readonly OutboxRow[]): void;
}

/** No dispatcher in this process (the CLI, or before the server starts one): events wait 'pending' for a claim. */
export const NO_DISPATCHER: OutboxHandoff = { lease: () => null, committed: () => undefined };
