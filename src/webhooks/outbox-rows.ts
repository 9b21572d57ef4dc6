import type { WebhookEvent } from "./payload";

export const DELIVERY_STATUSES = ["pending", "delivering", "delivered", "dead"] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** webhook_outbox as stored. */
export interface OutboxRow {
  id: string;
  tenant_id: string;
  event: WebhookEvent;
  screening_id: string;
  payload: string;
  status: DeliveryStatus;
  series: number;
  attempts: number;
  next_attempt_at: string | null;
  lease_owner: string | null;
  lease_expires_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
  delivered_at: string | null;
  dead_at: string | null;
}

/**
 * What the dispatcher keeps of a claimed row: what it sends and what the attempt's record checks.
 * Narrower than OutboxRow so that a claimed row, alive from its claim until its attempt is recorded,
 * holds 4 strings instead of 10 (those that live that long reach the old generation).
 */
export type ClaimedRow = Pick<OutboxRow, "id" | "tenant_id" | "event" | "payload" | "series" | "attempts">;

/** Which attempt of which delivery: what finishing an attempt checks (lease compare-and-set) and its record names. */
export type AttemptOf = Pick<OutboxRow, "id" | "series" | "attempts">;

/** webhook_attempts as stored. */
export interface AttemptRow {
  id: string;
  outbox_id: string;
  series: number;
  attempt: number;
  started_at: string;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
  url: string | null;
}

export interface AttemptRecord {
  startedAt: Date;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
  url: string | null;
}
