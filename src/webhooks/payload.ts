import type { PepTier, SourceList } from "@/watchlists/entity";

/** The events the spec names (6. Events). */
export const WEBHOOK_EVENTS = ["screening.completed", "monitoring.alert"] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

export type Classification = "sanctions" | "pep" | "adverse_media";
export type AdverseMediaStatus = "Skipped" | "Ok" | "Stale" | "Unavailable";

/**
 * The webhook body, exactly the spec's fields in the spec's order. It carries no subject or entity
 * name by construction: there is no field that could hold one.
 */
export interface WebhookPayload {
  event: WebhookEvent;
  screeningId: string;
  /** The caller's own reference, or null when the screen had none. */
  userReference: string | null;
  isMatch: boolean;
  score: number;
  decision: string;
  riskScore: number;
  riskBand: string;
  /** ISO 8601 with offset. */
  createdAt: string;
  /** The top classification; null on a clean screen, which has none. */
  classification: Classification | null;
  pepTiers: PepTier[];
  sourceLists: SourceList[];
  matchCount: number;
  adverseMediaStatus: AdverseMediaStatus;
  /** The originating request's correlation id; null when no request started it. */
  correlationId: string | null;
}

/** What a screening outcome must provide to announce itself: the payload minus the event. */
export type WebhookOutcome = Omit<WebhookPayload, "event">;

/**
 * Rejects at compile time any object with keys beyond WebhookOutcome, so passing a whole screening
 * record (which holds fullName and matched entity names) does not type-check even from a variable,
 * where TypeScript's excess-property check would not apply.
 */
type ExactOutcome<T> = T & Record<Exclude<keyof T, keyof WebhookOutcome>, never>;

/**
 * Builds the payload by copying the spec fields one by one, so at run time too nothing else (a name,
 * a date of birth, a matched entity) can slip into the signed body.
 */
export function webhookPayloadFromOutcome<T extends WebhookOutcome>(event: WebhookEvent, outcome: ExactOutcome<T>): WebhookPayload {
  return {
    event,
    screeningId: outcome.screeningId,
    userReference: outcome.userReference ?? null,
    isMatch: outcome.isMatch,
    score: outcome.score,
    decision: outcome.decision,
    riskScore: outcome.riskScore,
    riskBand: outcome.riskBand,
    createdAt: outcome.createdAt,
    classification: outcome.classification ?? null,
    pepTiers: [...new Set(outcome.pepTiers)],
    sourceLists: [...new Set(outcome.sourceLists)],
    matchCount: outcome.matchCount,
    adverseMediaStatus: outcome.adverseMediaStatus,
    correlationId: outcome.correlationId ?? null,
  };
}
